import type { z } from 'zod';
import type { UpdateInfo } from './catalog/catalog.js';
import type { ActivationResult, ValidationResult } from './licenses/license-operations.js';
import type { ActivationType, activationTypes, LicenseStatus, licenseStatuses } from './shared.js';
import type { StartedTrial } from './licenses/trials.js';
import type { ReleaseChannel, releaseChannels } from './catalog/updaters.js';
import type { UsageResult } from './licenses/usage.js';

// The success payloads of the public API (spec 2.6, 4.1, 4.2, 4.4) as plain types. The client
// package imports these, and its published declarations include them: a `z.infer` type there
// would need zod, which the client does not depend on. `PayloadTypesMatchSchemas` (below) does
// not compile when one of them differs from the output of its schema.

/** Spec 2.1: the four activation types. */
export type PlainActivationType = (typeof activationTypes)[number];

/** Spec 3.1: the five stored license statuses. */
export type PlainLicenseStatus = (typeof licenseStatuses)[number];

/** The release channels (docs/updaters.md). */
export type PlainReleaseChannel = (typeof releaseChannels)[number];

/**
 * What the plan's expiry terms give the license now (docs/api-decisions.md, "Expiry
 * strategies"), in the activate and validate answers.
 */
export interface PlainExpiryStanding {
  /** Past its expiry but within the plan's grace days: it answers as active. */
  in_grace: boolean;
  /** ISO 8601 timestamp: its expiry plus the grace days; `null` without an expiry or grace. */
  grace_ends_at: string | null;
  /**
   * ISO 8601 timestamp: on a plan that keeps expired licenses working (`maintain`, `restrict`),
   * its expiry; once expired it gets the versions released up to then. `null` otherwise.
   */
  updates_until: string | null;
}

/** Spec 4.1 success payload of activate; deactivate answers with the same shape. */
export interface PlainActivationResult extends PlainExpiryStanding {
  status: PlainLicenseStatus;
  license_key: string;
  /** Product title. */
  product: string;
  /** Plan name. */
  plan: string;
  activation_type: PlainActivationType;
  /** `0` means unlimited. */
  activation_limit: number;
  activations_used: number;
  /** ISO 8601 timestamp; `null` for a license that does not expire. */
  expires_at: string | null;
  /** The normalised identifier the server stored; use it for a later deactivation. */
  identifier: string;
  /**
   * ISO 8601 timestamp: when this activation lapses unless activate or validate with its
   * identifier renews it. `null` when the plan has no lease.
   */
  lease_expires_at: string | null;
  /** The license's live entitlements: its plan's and its own unexpired ones, sorted. */
  entitlements: string[];
}

/** Spec 4.2 success payload of validate. */
export interface PlainValidationResult extends PlainExpiryStanding {
  /**
   * `true` when the license is active and not expired, and for an expired license on a plan
   * that keeps it working (`updates_until` set).
   */
  valid: boolean;
  /** `invalid` for an unknown key. A license past its expiry date reports `expired`. */
  status: PlainLicenseStatus | 'invalid';
  license_key: string;
  /** Product title; `null` for an unknown key. */
  product: string | null;
  /** Plan name; `null` for an unknown key. */
  plan: string | null;
  /** `null` for an unknown key. */
  activation_type: PlainActivationType | null;
  /** `0` means unlimited (and is also what an unknown key gets). */
  activation_limit: number;
  activations_used: number;
  /** ISO 8601 timestamp; `null` for a license that does not expire, or an unknown key. */
  expires_at: string | null;
  /** `true` when no identifier was sent, else whether that identifier is activated. */
  identifier_activated: boolean;
  /**
   * ISO 8601 timestamp: when the activation of the identifier sent lapses unless renewed (this
   * validation renewed it). `null` when the plan has no lease, no identifier was sent, or it is
   * not activated.
   */
  lease_expires_at: string | null;
  /** The license's live entitlements: its plan's and its own unexpired ones, sorted; `[]` for an unknown key. */
  entitlements: string[];
  /** Of the entitlements asked about (`entitlements=a,b`), those the license lacks; `[]` when none. */
  entitlements_missing: string[];
  /** `ENTITLEMENTS_MISSING` when `entitlements_missing` is not empty (then `valid` is false); else `null`. */
  code: 'ENTITLEMENTS_MISSING' | null;
}

/** Spec 2.6: what the download endpoint needs; `null` when the download is public. */
export type PlainDownloadRequires = 'license_key' | 'activated_identifier' | 'account' | null;

/** Spec 2.6 and 4.4 response 1: a published version exists. */
export interface PlainUpdateAvailable {
  update_available: true;
  /** Product title. */
  name: string;
  /** Version string as entered in admin. */
  version: string;
  /** Absolute URL of the download endpoint; `null` for an account-only product. */
  download_url: string | null;
  download_requires: PlainDownloadRequires;
  release_notes: string | null;
  /** Release date, `Y-m-d`. */
  date: string;
  /** Size in bytes of the file an updater would receive. */
  file_size: number;
  /** Lowercase hex SHA-256 of that file: what a downloaded package is checked against. */
  sha256: string;
  /** The product's Requires License setting. */
  requires_license: boolean;
  /** Only with a key that covers the product. An active license past its expiry date reports `expired`. */
  license_status?: PlainLicenseStatus;
  /** Only with a key that covers the product. ISO 8601 timestamp; `null` when it does not expire. */
  license_expires_at?: string | null;
  /** Only with a key that covers the product: whether the license renews by subscription. */
  auto_renew?: boolean;
  /** Only with a key that covers the product. ISO 8601 timestamp of the next renewal. */
  next_payment_at?: string | null;
  /** Only with a key that covers the product: it is in its plan's grace days. */
  in_grace?: boolean;
  /** Only with a key that covers the product. ISO 8601 timestamp; `null` without grace. */
  grace_ends_at?: string | null;
  /**
   * Only with a covering key whose expired license gets the versions released up to its expiry:
   * that expiry (`version` is the newest such version).
   */
  updates_until?: string;
  /** With `updates_until`: a newer version exists, which a renewal brings. */
  newer_version?: string;
  newer_requires?: 'renewal';
}

/** Spec 4.4 responses 2 and 3: no published version, or no such product (`download_requires` null). */
export interface PlainNoUpdate {
  update_available: false;
  /** The product's Requires License setting. */
  requires_license: boolean;
  download_requires: PlainDownloadRequires;
  /** No version, so no file to check. */
  sha256: null;
}

/** Spec 2.6: the two shapes of the update check's answer, told apart by `update_available`. */
export type PlainUpdateInfo = PlainUpdateAvailable | PlainNoUpdate;

/** A usage counter after `POST /licenses/usage` (docs/api-decisions.md, "Usage counters"). */
export interface PlainUsageResult {
  /** The uses of the current period. */
  uses: number;
  max_uses: number;
  /** ISO 8601 UTC: when the counter starts again from 0; null when it never does. */
  resets_at: string | null;
}

/** `POST {api_base}/trials` success payload (docs/api-decisions.md, "Trials"). */
export interface PlainStartedTrial {
  /** The trial license's key. */
  license_key: string;
  product_id: number;
  /** ISO 8601 timestamp: the trial plan's `trial_days` after the trial started. */
  expires_at: string;
  activation: {
    /** The identifier as activated: normalised for the trial plan's activation type. */
    identifier: string;
    /** ISO 8601 timestamp. */
    activated_at: string;
  };
}

/** `true` only when `A` and `B` are the same type, optional and readonly modifiers included. */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

/** Each plain type above is exactly the output type of its schema. */
export type PayloadTypesMatchSchemas = [
  Expect<Same<PlainActivationType, ActivationType>>,
  Expect<Same<PlainLicenseStatus, LicenseStatus>>,
  Expect<Same<PlainReleaseChannel, ReleaseChannel>>,
  Expect<Same<PlainActivationResult, z.output<typeof ActivationResult>>>,
  Expect<Same<PlainValidationResult, z.output<typeof ValidationResult>>>,
  Expect<Same<PlainUpdateInfo, z.output<typeof UpdateInfo>>>,
  Expect<Same<PlainUsageResult, z.output<typeof UsageResult>>>,
  Expect<Same<PlainStartedTrial, z.output<typeof StartedTrial>>>,
];
