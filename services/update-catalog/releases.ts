import type { DownloadAccess } from '../../libs/contracts/index.js';

/** What the release rules need of a version and a file; the stored records have more. */
export interface ReleaseVersion {
  id: number;
  published: boolean;
}

export interface ReleaseFile {
  id: number;
  version_id: number;
  plan_id: number | null;
  include_in_updates: boolean;
  uploaded_at: Date;
}

/** Later upload first; file ids are assigned in upload order, so they break ties of the clock. */
const newestFirst = (a: ReleaseFile, b: ReleaseFile) =>
  b.uploaded_at.getTime() - a.uploaded_at.getTime() || b.id - a.id;

/**
 * Spec 4.4, which version and file a caller gets:
 * 1. only published versions count;
 * 2. only files ticked Include in auto-updates count, so a version whose files are all unticked
 *    is never offered;
 * 3. the most recently uploaded version wins, whatever its release date. A version is uploaded
 *    when its package file is: its upload time, for this caller, is that of the newest of its
 *    files that count for the caller (rules 2 and 4). So a version created long ago whose file
 *    is uploaded today wins over one uploaded yesterday;
 * 4. without a key (planId null) only all-plans files count; with a key, files restricted to the
 *    license's plan count too and are preferred;
 * 5. a bundle key sees the all-plans files of each product in its bundle (the caller passes
 *    planId null for it).
 * A version with no file for this caller does not count for this caller. `uploadedAt` is the
 * version's upload time for this caller: the update check's `date` when no release date is set.
 */
export function chooseRelease<V extends ReleaseVersion, F extends ReleaseFile>(
  versions: readonly V[],
  files: readonly F[],
  planId: number | null,
): { version: V; file: F; uploadedAt: Date } | null {
  const published = new Map(versions.filter((v) => v.published).map((v) => [v.id, v]));
  const eligible = files
    .filter(
      (f) =>
        published.has(f.version_id) &&
        f.include_in_updates &&
        (f.plan_id === null || f.plan_id === planId),
    )
    .sort(newestFirst);
  // The newest eligible file names the most recently uploaded version.
  const newest = eligible[0];
  if (!newest) return null;
  const version = published.get(newest.version_id)!;
  const candidates = eligible.filter((f) => f.version_id === version.id);
  const file =
    (planId !== null ? candidates.find((f) => f.plan_id === planId) : undefined) ?? newest;
  return { version, file, uploadedAt: newest.uploaded_at };
}

/** Spec 2.6: `download_requires` for each Download API Access setting. */
export function downloadRequires(
  access: DownloadAccess,
): 'license_key' | 'activated_identifier' | 'account' | null {
  return access === 'public' ? null : access;
}

/**
 * Spec 2.6 `date`: the admin-set release date, or the upload date, as `Y-m-d` (UTC). The upload
 * date is the version's upload time for the caller (`chooseRelease`), not when the version record
 * was created.
 */
export function releaseDate(releaseDateSet: string | null, uploadedAt: Date): string {
  return releaseDateSet ?? uploadedAt.toISOString().slice(0, 10);
}
