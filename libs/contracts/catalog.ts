import { z } from 'zod';
import { EntitlementCode } from './entitlements.js';
import {
  DownloadAccess,
  Id,
  LicenseStatus,
  NonEmptyShortText,
  ShortText,
  Timestamp,
  WellFormedText,
} from './shared.js';
import {
  FileArch,
  FilePlatform,
  FileSignature,
  JoomlaSettings,
  ReleaseChannel,
  RolloutPercent,
  WordPressSettings,
} from './updaters.js';

/**
 * The plan a product's trials are issued on (docs/api-decisions.md, "Trials"): plans are not tied
 * to products, so the product names it; null, the product offers no trial.
 */
export const TrialPlanId = Id.nullable().meta({
  description:
    'The plan trials of this product are issued on (POST {api_base}/trials); null: no trial. A ' +
    'plan that does not exist or has no trial_days offers none either.',
});

/** A product of the update catalog. A product with bundle items is a bundle (spec 2.2). */
export const Product = z.object({
  id: Id,
  title: z.string(),
  requires_license: z.boolean(),
  download_access: DownloadAccess,
  bundle_items: z.array(Id),
  /** What a Joomla update stream repeats (null: the product has no Joomla feed). */
  joomla: JoomlaSettings.nullable(),
  /** What a WordPress plugin's updater reads (null: the plugin's slug is the product id). */
  wordpress: WordPressSettings.nullable(),
  trial_plan_id: TrialPlanId,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Product = z.infer<typeof Product>;

export const CreateProductRequest = z.strictObject({
  id: Id.optional(),
  title: NonEmptyShortText,
  requires_license: z.boolean().default(true),
  download_access: DownloadAccess.default('license_key'),
  bundle_items: z.array(Id).max(1000).default([]),
  joomla: JoomlaSettings.nullable().default(null),
  wordpress: WordPressSettings.nullable().default(null),
  trial_plan_id: TrialPlanId.default(null),
});
export type CreateProductRequest = z.infer<typeof CreateProductRequest>;

export const UpdateProductRequest = z.strictObject({
  id: Id,
  title: NonEmptyShortText.optional(),
  requires_license: z.boolean().optional(),
  download_access: DownloadAccess.optional(),
  bundle_items: z.array(Id).max(1000).optional(),
  /** Replaces the settings whole; null removes them. */
  joomla: JoomlaSettings.nullable().optional(),
  wordpress: WordPressSettings.nullable().optional(),
  trial_plan_id: TrialPlanId.optional(),
});
export type UpdateProductRequest = z.infer<typeof UpdateProductRequest>;

export const ProductRef = z.strictObject({ id: Id });
export const ProductList = z.object({ products: z.array(Product) });

/**
 * Broadcast when a product, or one of its versions or files, changes: every cache of what the
 * catalog says of that product (title, bundle, access rule, releases) drops it.
 */
export const ProductChangedEvent = z.object({ id: Id });

// ---- Versions and files (spec 2.6, 2.7, 4.4) ----

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

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const Sha512 = z.string().regex(/^[0-9a-f]{128}$/);
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
   * versions by upload time (for each caller, of the files that count for it: releases.ts).
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

/**
 * What the update check would offer now (spec 4.4), per plan: without a key (plan null), and for
 * a key of each plan. A null version: nothing is offered.
 */
export const UpdateOffers = z.object({
  offers: z.array(
    z.object({
      plan_id: z.number().int().positive().nullable(),
      plan: z.string().nullable(),
      version: z.string().nullable(),
      file: z
        .object({ id: z.number().int().positive(), filename: z.string(), size: z.number().int() })
        .nullable(),
    }),
  ),
});
export type UpdateOffers = z.infer<typeof UpdateOffers>;
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
  requires_entitlement: EntitlementCode.nullable().optional(),
});
export type UpdateFileRequest = z.infer<typeof UpdateFileRequest>;

export const FileRef = z.strictObject({ id: Id });

/**
 * The key of a caller that covers the product, and the identifier it sent normalised as spec 2.4
 * says (null: none): what the caller's rollout bucket is drawn from (docs/updaters.md).
 */
export const RolloutCaller = z.strictObject({
  license_key: NonEmptyShortText,
  identifier: ShortText.nullable(),
});
export type RolloutCaller = z.infer<typeof RolloutCaller>;

/**
 * Which file a caller gets (spec 4.4 rules 1-5): the newest published version with a file for
 * the caller. `plan_id` is the license's plan when the key covers the product directly; a bundle
 * key (or no key) sees only all-plans files. `file_id` names the file a feed listed instead; the
 * channel and the rollout caller narrow the versions offered.
 */
export const SelectFileRequest = z.strictObject({
  product_id: Id,
  plan_id: Id.nullable(),
  file_id: Id.nullable().default(null),
  channel: ReleaseChannel.default('stable'),
  rollout: RolloutCaller.nullable().default(null),
  /** The key's live entitlements: a version or file requiring another is not chosen. */
  entitlements: z.array(z.string()).default([]),
  /**
   * An expired license its plan keeps (docs/api-decisions.md, "Expiry strategies"): only
   * versions released on or before this time count, a pinned file's too. Null: any.
   */
  updates_until: Timestamp.nullable().default(null),
});
export const SelectedFile = z.object({
  product: Product,
  selection: z
    .object({
      version: Version.omit({ files: true }),
      file: PackageFile,
    })
    .nullable(),
});
export type SelectedFile = z.infer<typeof SelectedFile>;

/**
 * The update check (spec 4.4). `downloads_url` is the public, absolute URL of the download
 * endpoint without the product id; only the gateway knows the address clients reach it at.
 */
export const CheckUpdateRequest = z.strictObject({
  product_id: Id,
  license_key: NonEmptyShortText.nullable(),
  /** The identifier the caller sent, for its rollout bucket (docs/updaters.md). */
  identifier: ShortText.nullable().default(null),
  channel: ReleaseChannel.default('stable'),
  downloads_url: z.url(),
});
export type CheckUpdateRequest = z.infer<typeof CheckUpdateRequest>;

const DownloadRequires = z.enum(['license_key', 'activated_identifier', 'account']).nullable();

/** Spec 2.6: the two shapes of the update check's answer. */
export const UpdateInfo = z.union([
  z.strictObject({
    update_available: z.literal(true),
    name: z.string(),
    version: z.string(),
    download_url: z.string().nullable(),
    download_requires: DownloadRequires,
    release_notes: z.string().nullable(),
    date: CalendarDate,
    file_size: z.number().int().nonnegative(),
    /** The lowercase hex SHA-256 of that file (docs/api-decisions.md: spec 2.6 gains it). */
    sha256: Sha256,
    requires_license: z.boolean(),
    license_status: LicenseStatus.optional(),
    license_expires_at: Timestamp.nullable().optional(),
    auto_renew: z.boolean().optional(),
    next_payment_at: Timestamp.nullable().optional(),
    /** A covering key: its plan's grace (docs/api-decisions.md, "Expiry strategies"). */
    in_grace: z.boolean().optional(),
    grace_ends_at: Timestamp.nullable().optional(),
    /** A covering key whose expired license gets the versions released by its expiry. */
    updates_until: Timestamp.optional(),
    /** With `updates_until`: the newest version, which only a renewal brings. */
    newer_version: z.string().optional(),
    newer_requires: z.literal('renewal').optional(),
  }),
  z.strictObject({
    update_available: z.literal(false),
    requires_license: z.boolean(),
    download_requires: DownloadRequires,
    /** No version, so no file to check. */
    sha256: z.null(),
  }),
]);
export type UpdateInfo = z.infer<typeof UpdateInfo>;

/**
 * Spec 4.4 response 3: a product that does not exist gets the no-version shape with
 * `download_requires` null; there is no not-found error. Also the answer for a path that names
 * no product at all (`/updates/0`, `/updates/abc`).
 */
export const unknownProductUpdate = {
  update_available: false,
  requires_license: false,
  download_requires: null,
  sha256: null,
} as const satisfies UpdateInfo;
