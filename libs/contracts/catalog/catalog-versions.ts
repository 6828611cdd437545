/** The catalog's versions and their package files, as admins record them (spec 2.6, 2.7). */
import { z } from 'zod';
import { EntitlementCode } from '../plans/entitlements.js';
import { Sha256, Sha512 } from './package-digests.js';
import { Id, NonEmptyShortText, Timestamp, WellFormedText } from '../shared.js';
import {
  FileArch,
  FilePlatform,
  FileSignature,
  MinimumSystemVersion,
  ReleaseChannel,
  RolloutPercent,
} from './updaters.js';

/** `Y-m-d`, the format of release dates and of the update check's `date` (spec 2.6). */
export const CalendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date as YYYY-MM-DD' })
  .refine(
    (v) =>
      !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) &&
      new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
    {
      message: 'must be a real calendar date',
    },
  );

const ReleaseNotes = WellFormedText.max(65_535).refine((v) => !v.includes('\u0000'), {
  message: 'must not contain NUL bytes',
});
const VersionString = NonEmptyShortText.refine((v) => v.length <= 64, {
  message: 'must be at most 64 characters',
});

/** A package file of a version. `plan_id` null means the file is for every plan. */
export const PackageFile = z.object({
  id: Id,
  version_id: Id,
  product_id: Id,
  filename: z.string(),
  plan_id: Id.nullable(),
  include_in_updates: z.boolean(),
  size: z.number().int().nonnegative(),
  sha256: Sha256,
  /** Lowercase hex; null for a file uploaded before SHA-512 was recorded. */
  sha512: Sha512.nullable(),
  content_type: z.string(),
  object_key: z.string(),
  /** The operating system and processor it is for (null: any). */
  platform: FilePlatform.nullable(),
  arch: FileArch.nullable(),
  /** The updater's signature of the file (Tauri, Sparkle), base64; null: none. */
  signature: FileSignature.nullable(),
  /** A macOS file only: the oldest macOS it runs on (Sparkle's minimumSystemVersion); null: any. */
  minimum_system_version: MinimumSystemVersion.nullable(),
  /** The entitlement a key needs to be offered and to download it (null: none). */
  requires_entitlement: z.string().nullable(),
  uploaded_at: Timestamp,
});
export type PackageFile = z.infer<typeof PackageFile>;

export const Version = z.object({
  id: Id,
  product_id: Id,
  version: z.string(),
  release_notes: z.string().nullable(),
  release_date: CalendarDate.nullable(),
  published: z.boolean(),
  channel: ReleaseChannel,
  rollout_percent: RolloutPercent,
  /** The entitlement a key needs to be offered it and its files (null: none). */
  requires_entitlement: z.string().nullable(),
  /** When the version was created in admin. */
  created_at: Timestamp,
  /**
   * When the newest of its files was uploaded; null while it has none. Spec 4.4 rule 3 orders
   * versions by upload time (for each caller, of the files that count for it:
   * services/update-catalog/releases.ts).
   */
  uploaded_at: Timestamp.nullable(),
  files: z.array(PackageFile),
});
export type Version = z.infer<typeof Version>;

export const CreateVersionRequest = z.strictObject({
  product_id: Id,
  version: VersionString,
  release_notes: ReleaseNotes.nullable().default(null),
  release_date: CalendarDate.nullable().default(null),
  published: z.boolean().default(true),
  channel: ReleaseChannel.default('stable'),
  rollout_percent: RolloutPercent.default(100),
  requires_entitlement: EntitlementCode.nullable().default(null),
});
export type CreateVersionRequest = z.infer<typeof CreateVersionRequest>;

export const UpdateVersionRequest = z.strictObject({
  id: Id,
  version: VersionString.optional(),
  release_notes: ReleaseNotes.nullable().optional(),
  release_date: CalendarDate.nullable().optional(),
  published: z.boolean().optional(),
  channel: ReleaseChannel.optional(),
  rollout_percent: RolloutPercent.optional(),
  requires_entitlement: EntitlementCode.nullable().optional(),
});
export type UpdateVersionRequest = z.infer<typeof UpdateVersionRequest>;

export const VersionRef = z.strictObject({ id: Id });
export const VersionList = z.object({ versions: z.array(Version) });

export const ProductVersionsRequest = z.strictObject({ product_id: Id });

/** Records a file already stored by the download service (bytes never travel over RPC). */
export const AddFileRequest = z.strictObject({
  version_id: Id,
  filename: NonEmptyShortText,
  plan_id: Id.nullable().default(null),
  include_in_updates: z.boolean().default(true),
  size: z.number().int().nonnegative(),
  sha256: Sha256,
  sha512: Sha512.nullable().default(null),
  content_type: WellFormedText.min(1).max(255),
  object_key: WellFormedText.min(1).max(1024),
  platform: FilePlatform.nullable().default(null),
  arch: FileArch.nullable().default(null),
  signature: FileSignature.nullable().default(null),
  minimum_system_version: MinimumSystemVersion.nullable().default(null),
  requires_entitlement: EntitlementCode.nullable().default(null),
});
export type AddFileRequest = z.infer<typeof AddFileRequest>;

export const UpdateFileRequest = z.strictObject({
  id: Id,
  plan_id: Id.nullable().optional(),
  include_in_updates: z.boolean().optional(),
  platform: FilePlatform.nullable().optional(),
  arch: FileArch.nullable().optional(),
  signature: FileSignature.nullable().optional(),
  minimum_system_version: MinimumSystemVersion.nullable().optional(),
  requires_entitlement: EntitlementCode.nullable().optional(),
});
export type UpdateFileRequest = z.infer<typeof UpdateFileRequest>;

export const FileRef = z.strictObject({ id: Id });
