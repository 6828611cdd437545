import type { DownloadAccess } from '../../libs/contracts/index.js';

/** What the release rules need of a version and a file; the stored records have more. */
export interface ReleaseVersion {
  id: number;
  published: boolean;
  uploaded_at: Date;
}

export interface ReleaseFile {
  id: number;
  version_id: number;
  plan_id: number | null;
  include_in_updates: boolean;
  uploaded_at: Date;
}

const newestFirst = (a: { uploaded_at: Date; id: number }, b: { uploaded_at: Date; id: number }) =>
  b.uploaded_at.getTime() - a.uploaded_at.getTime() || b.id - a.id;

/**
 * Spec 4.4, which version and file a caller gets:
 * 1. only published versions count;
 * 2. only files ticked Include in auto-updates count, so a version whose files are all unticked
 *    is never offered;
 * 3. the most recently uploaded version wins, whatever its release date;
 * 4. without a key (planId null) only all-plans files count; with a key, files restricted to the
 *    license's plan count too and are preferred;
 * 5. a bundle key sees the all-plans files of each product in its bundle (the caller passes
 *    planId null for it).
 * A version with no file for this caller does not count for this caller.
 */
export function chooseRelease<V extends ReleaseVersion, F extends ReleaseFile>(
  versions: readonly V[],
  files: readonly F[],
  planId: number | null,
): { version: V; file: F } | null {
  const eligible = files.filter(
    (f) => f.include_in_updates && (f.plan_id === null || f.plan_id === planId),
  );
  for (const version of versions.filter((v) => v.published).sort(newestFirst)) {
    const candidates = eligible.filter((f) => f.version_id === version.id).sort(newestFirst);
    const file =
      (planId !== null ? candidates.find((f) => f.plan_id === planId) : undefined) ?? candidates[0];
    if (file) return { version, file };
  }
  return null;
}

/** Spec 2.6: `download_requires` for each Download API Access setting. */
export function downloadRequires(
  access: DownloadAccess,
): 'license_key' | 'activated_identifier' | 'account' | null {
  return access === 'public' ? null : access;
}

/** Spec 2.6 `date`: the admin-set release date, or the upload date, as `Y-m-d`. */
export function releaseDate(version: { release_date: string | null; uploaded_at: Date }): string {
  return version.release_date ?? version.uploaded_at.toISOString().slice(0, 10);
}
