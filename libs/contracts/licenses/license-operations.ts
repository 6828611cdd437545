import { z } from 'zod';
import {
  ActivationType,
  ClientIp,
  Id,
  LicenseStatus,
  NonEmptyShortText,
  ShortText,
  Timestamp,
} from '../shared.js';
import { LicenseKey } from './license-key.js';
import { EntitlementCodes } from '../plans/entitlements.js';

// ---- Public license operations (spec 4.1 to 4.3) ----

/**
 * What the plan's expiry terms give the license now (docs/api-decisions.md, "Expiry
 * strategies"): whether it is in its grace, when that ends, and the last release date of the
 * versions it gets once expired; null where they do not apply.
 */
export const ExpiryStanding = z.object({
  /** Past its expiry but within the plan's grace days: it answers as active. */
  in_grace: z.boolean(),
  /** Its expiry plus the plan's grace days; null without an expiry or grace days. */
  grace_ends_at: Timestamp.nullable(),
  /** Its expiry on a `maintain` or `restrict` plan; null on `revoke` or without an expiry. */
  updates_until: Timestamp.nullable(),
});

export const ActivateRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  product_id: Id.nullable(),
  name: ShortText.nullable(),
  ip: ClientIp,
});
export type ActivateRequest = z.infer<typeof ActivateRequest>;

export const ValidateRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: ShortText.nullable(),
  product_id: Id.nullable(),
  ip: ClientIp,
  /** The entitlements the client asks about (docs/api-decisions.md, "Entitlements"). */
  entitlements: EntitlementCodes.default([]),
});
export type ValidateRequest = z.infer<typeof ValidateRequest>;

export const DeactivateRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  product_id: Id.nullable(),
});
export type DeactivateRequest = z.infer<typeof DeactivateRequest>;

/**
 * The license's live entitlements (docs/api-decisions.md, "Entitlements"): its plan's and its own
 * unexpired ones, sorted, each once; [] for an unknown key.
 */
export const LiveEntitlements = z.array(z.string()).meta({
  description:
    "The license's live entitlements: its plan's and its own unexpired ones, sorted, each once.",
});

/** Spec 4.1 success payload; deactivate answers with the same shape (docs/api-decisions.md). */
export const ActivationResult = z.object({
  status: LicenseStatus,
  license_key: z.string(),
  product: z.string(),
  plan: z.string(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  activations_used: z.number().int().nonnegative(),
  expires_at: Timestamp.nullable(),
  identifier: z.string(),
  /**
   * When this activation lapses unless renewed (activate or validate with its identifier): the
   * plan's lease. Null when the plan has no lease, and in deactivate's answer.
   */
  lease_expires_at: Timestamp.nullable(),
  entitlements: LiveEntitlements,
  ...ExpiryStanding.shape,
});
export type ActivationResult = z.infer<typeof ActivationResult>;

/** Spec 4.2 success payload. */
export const ValidationResult = z.object({
  valid: z.boolean(),
  status: z.union([LicenseStatus, z.literal('invalid')]),
  license_key: z.string(),
  product: z.string().nullable(),
  plan: z.string().nullable(),
  activation_type: ActivationType.nullable(),
  activation_limit: z.number().int().nonnegative(),
  activations_used: z.number().int().nonnegative(),
  expires_at: Timestamp.nullable(),
  identifier_activated: z.boolean(),
  /**
   * When the activation of the identifier sent lapses unless renewed; this validation renewed
   * it. Null when the plan has no lease, no identifier was sent or it is not activated.
   */
  lease_expires_at: Timestamp.nullable(),
  entitlements: LiveEntitlements,
  /** Of the entitlements asked about, those the license lacks, sorted; [] when none. */
  entitlements_missing: z.array(z.string()),
  /** `ENTITLEMENTS_MISSING` when `entitlements_missing` is not empty (`valid` is then false). */
  code: z.literal('ENTITLEMENTS_MISSING').nullable(),
  ...ExpiryStanding.shape,
});
export type ValidationResult = z.infer<typeof ValidationResult>;

/**
 * A license file for an activated identifier (docs/api-decisions.md, "License files"): refused
 * as activate refuses (spec 4.1 order), then ACTIVATION_NOT_FOUND. `ttl_seconds` is the lease
 * asked for, already bounded by the gateway (LICENSE_FILE_MAX_TTL_SECONDS).
 */
export const CheckoutRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  product_id: Id,
  ttl_seconds: z.number().int().positive(),
});
export type CheckoutRequest = z.infer<typeof CheckoutRequest>;

/**
 * The license's state as validate reports it (spec 4.2), without the identifier question or its
 * activation's lease: a license file has a lease of its own.
 */
export const LicenseFileState = ValidationResult.omit({
  identifier_activated: true,
  lease_expires_at: true,
  entitlements_missing: true,
  code: true,
});

/** What a license file holds, for the gateway to sign: whole seconds, lease included. */
export const Checkout = z.object({
  license: LicenseFileState,
  /** The identifier as stored (normalised, spec 2.4). */
  identifier: z.string(),
  product_id: Id,
  issued_at: Timestamp,
  /** The lease: the earlier of `issued_at` + the time to live asked and the license's expiry. */
  expires_at: Timestamp,
});
export type Checkout = z.infer<typeof Checkout>;

// ---- Coverage (spec 4.4, 4.5) ----

/**
 * What the update check and the download endpoint need to know about a key for one product
 * (spec 4.4, 4.5). `found` false for an unknown key; `covers` whether the key covers the product
 * (directly or through its bundle); `plan_id` only when it covers the product directly, since a
 * bundle key sees only all-plans files (spec 4.4 rule 5).
 */
export const LicenseCoverageRequest = z.strictObject({
  license_key: LicenseKey,
  product_id: Id,
  identifier: ShortText.nullable(),
});
export type LicenseCoverageRequest = z.infer<typeof LicenseCoverageRequest>;

export const LicenseCoverage = z.object({
  found: z.boolean(),
  covers: z.boolean(),
  /**
   * Reported status: an active license past its expiry date is `expired` (spec 3.1), once past
   * the plan's grace days.
   */
  status: LicenseStatus.nullable(),
  in_grace: z.boolean(),
  grace_ends_at: Timestamp.nullable(),
  /**
   * Only while the plan's expiry strategy limits the versions (`maintain` or `restrict`, past the
   * expiry and the grace): the license's expiry; the catalog and the download offer and serve
   * only versions released on or before it. Null otherwise.
   */
  updates_until: Timestamp.nullable(),
  plan_id: Id.nullable(),
  expires_at: Timestamp.nullable(),
  auto_renew: z.boolean(),
  next_payment_at: Timestamp.nullable(),
  /** Whether the identifier sent is activated (normalised as in 2.4); null when none was sent. */
  identifier_activated: z.boolean().nullable(),
  /**
   * The identifier sent, normalised for the license's activation type (spec 2.4); null when none
   * was sent, the key is unknown or the value cannot be one. Rollout buckets are drawn from it.
   */
  identifier: ShortText.nullable(),
  /** The key's live entitlements (as validate reports them); [] for an unknown key. */
  entitlements: z.array(z.string()),
});
export type LicenseCoverage = z.infer<typeof LicenseCoverage>;
