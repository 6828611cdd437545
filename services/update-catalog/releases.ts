import type {
  DownloadAccess,
  FileArch,
  FilePlatform,
  LicenseCoverage,
  LicenseStatus,
  ReleaseChannel,
} from '../../libs/contracts/index.js';
import {
  fitsTarget,
  isInRollout,
  targetSpecificity,
  type ReleaseAudience,
  type ReleaseTarget,
} from './audience.js';

/** What the release rules need of a version and a file; the stored records have more. */
export interface ReleaseVersion {
  id: number;
  published: boolean;
  /** The admin-set release date (`Y-m-d`), or null: the upload date counts (spec 2.6 `date`). */
  release_date?: string | null;
  channel: ReleaseChannel;
  rollout_percent: number;
  requires_entitlement?: string | null;
}

export interface ReleaseFile {
  id: number;
  version_id: number;
  plan_id: number | null;
  include_in_updates: boolean;
  platform: FilePlatform | null;
  arch: FileArch | null;
  requires_entitlement?: string | null;
  uploaded_at: Date;
}

/**
 * Whether a caller with these entitlements is offered what requires `required` (null or absent:
 * nothing; docs/api-decisions.md, "Entitlements"). Without a covering key there are none.
 */
export const entitled = (
  required: string | null | undefined,
  entitlements: ReadonlySet<string>,
): boolean => required === null || required === undefined || entitlements.has(required);

/** The entitlements a key brings: those of a key covering the product, else none. */
export function entitlementScope(
  coverage: Pick<LicenseCoverage, 'covers' | 'entitlements'> | null,
): string[] {
  return coverage?.covers ? coverage.entitlements : [];
}

/** The version and file a caller gets, and the version's upload time for this caller. */
export interface Release<
  V extends ReleaseVersion = ReleaseVersion,
  F extends ReleaseFile = ReleaseFile,
> {
  version: V;
  file: F;
  uploadedAt: Date;
}

/**
 * Expiry strategies (docs/api-decisions.md): a version is released, for this file, on its
 * admin-set release date or else the file's upload date (spec 2.6 `date`, which an admin may
 * backdate); a caller limited to `untilDay` gets it when that day is on or before it.
 */
export function releasedBy(
  version: Pick<ReleaseVersion, 'release_date'>,
  file: Pick<ReleaseFile, 'uploaded_at'>,
  untilDay: string | null | undefined,
): boolean {
  if (untilDay === null || untilDay === undefined) return true;
  return releaseDate(version.release_date ?? null, file.uploaded_at) <= untilDay;
}

/**
 * The last release day a covering key's license gets: its expiry's, while its plan's expiry
 * strategy limits it (`license.coverage` reports `updates_until` only then). Null: any version.
 */
export function updatesUntilDay(
  coverage: Pick<LicenseCoverage, 'covers' | 'updates_until'> | null,
): string | null {
  return coverage?.covers && coverage.updates_until !== null
    ? coverage.updates_until.slice(0, 10)
    : null;
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
 * 5. a bundle key sees the all-plans files of each product in its bundle (`planScope` gives
 *    planId null for it).
 * A version with no file for this caller does not count for this caller. `uploadedAt` is the
 * version's upload time for this caller: the update check's `date` when no release date is set.
 *
 * Beyond the spec (docs/updaters.md): only versions of a channel the caller takes and whose
 * rollout takes the caller's bucket count, so a caller outside a rollout gets the newest version
 * it is in for; with a target, only files for that platform and processor count, the most
 * specific preferred after the plan-specific one. A version or file that requires an
 * entitlement the caller lacks does not count for it (docs/api-decisions.md, "Entitlements").
 * An audience limited by an expiry strategy (`updatesUntil`) counts only the files of versions
 * released by then (`releasedBy`).
 */
export function chooseRelease<V extends ReleaseVersion, F extends ReleaseFile>({
  versions,
  files,
  audience,
  target = null,
}: {
  versions: readonly V[];
  files: readonly F[];
  audience: ReleaseAudience;
  target?: ReleaseTarget | null;
}): Release<V, F> | null {
  const { planId, channels, bucket, entitlements, updatesUntil } = audience;
  const offered = new Map(
    versions
      .filter(
        (v) =>
          v.published &&
          channels.has(v.channel) &&
          isInRollout(v.rollout_percent, bucket) &&
          entitled(v.requires_entitlement, entitlements),
      )
      .map((v) => [v.id, v]),
  );
  const eligible = files
    .filter(
      (f) =>
        offered.has(f.version_id) &&
        f.include_in_updates &&
        (f.plan_id === null || f.plan_id === planId) &&
        entitled(f.requires_entitlement, entitlements) &&
        fitsTarget(f, target) &&
        releasedBy(offered.get(f.version_id)!, f, updatesUntil),
    )
    .sort(newestFirst);
  // The newest eligible file names the most recently uploaded version.
  const newest = eligible[0];
  if (!newest) return null;
  const version = offered.get(newest.version_id)!;
  const preference = (f: F) =>
    (planId !== null && f.plan_id === planId ? 4 : 0) + targetSpecificity(f, target);
  let file = newest;
  for (const candidate of eligible) {
    if (candidate.version_id === version.id && preference(candidate) > preference(file)) {
      file = candidate;
    }
  }
  return { version, file, uploadedAt: newest.uploaded_at };
}

/**
 * The file a URL names (a feed pins the file it lists): one of a published version, for every
 * plan or for the caller's (spec 4.4 rules 1 and 4). Channels, rollouts and Include in
 * auto-updates decide what is offered, not what an offered URL may fetch later; an expiry
 * strategy's limit (`updatesUntil`, the last release day) does, so a newer version's URL serves
 * nothing to a kept expired license.
 */
export function pinnedRelease<V extends ReleaseVersion, F extends ReleaseFile>({
  versions,
  files,
  fileId,
  planId,
  updatesUntil = null,
}: {
  versions: readonly V[];
  files: readonly F[];
  fileId: number;
  planId: number | null;
  updatesUntil?: string | null;
}): Release<V, F> | null {
  const file = files.find((f) => f.id === fileId);
  if (!file || (file.plan_id !== null && file.plan_id !== planId)) return null;
  const version = versions.find((v) => v.id === file.version_id && v.published);
  if (!version || !releasedBy(version, file, updatesUntil)) return null;
  return { version, file, uploadedAt: file.uploaded_at };
}

/**
 * Spec 4.4 rules 4 and 5: whose files the update check offers, as the plan whose restricted files
 * count too (null: all-plans files only). No key, an unknown key or a key for another product
 * only scope the answer (spec 5.2), so they are as good as none. A key covering the product
 * directly brings its plan. A bundle key sees the all-plans files: `license.coverage` reports no
 * plan for a key that covers the product through its bundle.
 */
export function planScope(
  coverage: Pick<LicenseCoverage, 'covers' | 'plan_id'> | null,
): number | null {
  return coverage?.covers ? coverage.plan_id : null;
}

/**
 * The license state response 1 adds for a covering key (spec 2.6); on a plan with grace days,
 * `in_grace` and `grace_ends_at`, and while its expiry strategy limits the versions,
 * `updates_until` (a plan with the spec's terms adds neither: its answer is the spec's).
 */
export interface ReportedLicenseState {
  license_status: LicenseStatus;
  license_expires_at: string | null;
  auto_renew: boolean;
  next_payment_at: string | null;
  in_grace?: boolean;
  grace_ends_at?: string;
  updates_until?: string;
}

/**
 * Spec 4.4 rule 6: the update check never refuses. A key covering the product gets its state
 * added, whatever it is (expired, suspended, revoked, cancelled); the download endpoint is where
 * access is enforced. Any other key adds nothing (a key that covers a product is always found,
 * so it always has a status).
 */
export function reportedLicenseState(
  coverage: Pick<
    LicenseCoverage,
    | 'covers'
    | 'status'
    | 'expires_at'
    | 'auto_renew'
    | 'next_payment_at'
    | 'in_grace'
    | 'grace_ends_at'
    | 'updates_until'
  > | null,
): ReportedLicenseState | null {
  if (!coverage?.covers || coverage.status === null) return null;
  return {
    license_status: coverage.status,
    license_expires_at: coverage.expires_at,
    auto_renew: coverage.auto_renew,
    next_payment_at: coverage.next_payment_at,
    ...(coverage.grace_ends_at === null
      ? {}
      : { in_grace: coverage.in_grace, grace_ends_at: coverage.grace_ends_at }),
    ...(coverage.updates_until === null ? {} : { updates_until: coverage.updates_until }),
  };
}

/** Spec 2.6: `download_url` is the download endpoint of the product, null for Account only. */
export function downloadUrl(
  product: { id: number; download_access: DownloadAccess },
  downloadsUrl: string,
): string | null {
  return product.download_access === 'account' ? null : `${downloadsUrl}/${product.id}`;
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
