/**
 * The update check (spec 4.4): which file a caller gets, what it is answered, and what the check
 * would offer each plan now.
 */
import { z } from 'zod';
import { Product } from './catalog-products.js';
import { CalendarDate, PackageFile, Version } from './catalog-versions.js';
import { Sha256 } from './package-digests.js';
import { Id, LicenseStatus, NonEmptyShortText, ShortText, Timestamp } from '../shared.js';
import { ReleaseChannel } from './updaters.js';

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
