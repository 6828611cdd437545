import { z } from 'zod';
import {
  ActivationType,
  Id,
  LicenseStatus,
  MAX_FIELD_LENGTH,
  NonEmptyShortText,
  ShortText,
  Timestamp,
} from '../shared.js';
import { LICENSE_KEY_PATTERN, MAX_EXTEND_DAYS } from '../bounds.js';
import { LicenseKey } from './license-key.js';
import { Activation, Customer, LicenseDetail, Metadata } from './license-views.js';

// ---- An admin's changes of a license (spec 3.3) ----

/**
 * Spec 3.3: a plan change, applied `now` (limit and type reset to the new plan's) or at the next
 * checkout `renewal` (stored as pending until then). A change that would leave more activations
 * than the new limit, or change the activation type, is made only with `confirm` true
 * (docs/api-decisions.md, "Plan changes"); without it, CONFIRMATION_REQUIRED says what it would do.
 */
export const ChangePlanRequest = z.strictObject({
  license_key: LicenseKey,
  plan_id: Id,
  when: z.enum(['now', 'renewal']),
  confirm: z
    .boolean()
    .default(false)
    .meta({
      description:
        'Make the change even when it leaves more activations than the new limit or changes ' +
        'the activation type; without it such a change is refused with CONFIRMATION_REQUIRED, ' +
        'which says what it would do.',
    }),
});
export type ChangePlanRequest = z.infer<typeof ChangePlanRequest>;

/**
 * What a plan change would do, carried by its CONFIRMATION_REQUIRED refusal beside
 * `activation_limit` (the license's limit now) and `activations_used` (all of which stay).
 */
export const PlanChangeFacts = z.object({
  plan_id: Id,
  /** The new plan's name. */
  plan: z.string(),
  activation_type: ActivationType,
  new_activation_type: ActivationType,
  type_changes: z.boolean(),
  new_activation_limit: z.number().int().nonnegative(),
  /** The activations the new limit leaves over it; 0 for an unlimited plan. */
  activations_over_limit: z.number().int().nonnegative(),
});

export type PlanChangeFacts = z.infer<typeof PlanChangeFacts>;

/**
 * Spec 3.3: a renewal. `checkout` (the Renew button) resets limit and type to the plan's, a
 * pending plan change applied first; `gateway` (automatic renewal) leaves them unchanged. Both
 * set the new expiry and next payment date (docs/api-decisions.md: statuses).
 */
export const RenewLicenseRequest = z.strictObject({
  license_key: LicenseKey,
  /** The new expiry; or, instead, `extend_days`. */
  expires_at: Timestamp.optional(),
  /**
   * Days the renewal adds, counted from where the plan's `renewal_basis` says (the old expiry,
   * now, or now when already expired; docs/api-decisions.md, "Expiry strategies"). Exactly one of
   * `expires_at` and `extend_days` is sent.
   */
  extend_days: z.number().int().positive().max(36_500).optional(),
  source: z.enum(['checkout', 'gateway']),
  next_payment_at: Timestamp.nullable().optional(),
});
export type RenewLicenseRequest = z.infer<typeof RenewLicenseRequest>;

/**
 * A key an admin gives a new license (docs/api-decisions.md, "License keys an admin gives"): the
 * characters of generated keys (hex digits, so ASCII letters and digits) and `-` and `_`, 1 to
 * 255 of them.
 * Keys travel in URL paths, form fields and log lines; nothing in this alphabet needs escaping,
 * hides (white space, control characters) or looks like a path segment (`.`, `..`). Only a new
 * key is held to it: keys are looked up as any text up to 255 characters, so keys stored before
 * stay readable.
 */
export const GivenLicenseKey = z
  .string()
  .regex(LICENSE_KEY_PATTERN, {
    message: `must be 1 to ${MAX_FIELD_LENGTH} characters, each a letter A-Z or a-z, a digit, - or _`,
  })
  .meta({
    description:
      `The key to issue, 1 to ${MAX_FIELD_LENGTH} characters, each an ASCII letter (A-Z, a-z), ` +
      'a digit, `-` or `_`; generated when not sent (32 lowercase hex characters).',
  });

export const CreateLicenseRequest = z.strictObject({
  license_key: GivenLicenseKey.optional(),
  product_id: Id,
  plan_id: Id,
  status: LicenseStatus.default('active'),
  expires_at: Timestamp.nullable().default(null),
  auto_renew: z.boolean().default(false),
  next_payment_at: Timestamp.nullable().default(null),
  customer: Customer.nullable().default(null),
  metadata: Metadata.default({}),
});
export type CreateLicenseRequest = z.infer<typeof CreateLicenseRequest>;

/**
 * An admin's change of a license (spec 3.3): any of its fields. `extend_expiry_days` moves the
 * expiry it has by that many days (a bulk change's extension), instead of `expires_at`.
 */
export const UpdateLicenseRequest = z.strictObject({
  license_key: LicenseKey,
  status: LicenseStatus.optional(),
  expires_at: Timestamp.nullable().optional(),
  activation_limit: z.number().int().nonnegative().max(1_000_000).optional(),
  customer: Customer.nullable().optional(),
  metadata: Metadata.optional(),
  auto_renew: z.boolean().optional(),
  next_payment_at: Timestamp.nullable().optional(),
  extend_expiry_days: z.number().int().positive().max(MAX_EXTEND_DAYS).optional(),
});
export type UpdateLicenseRequest = z.infer<typeof UpdateLicenseRequest>;

export const AddActivationRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  name: ShortText.nullable().default(null),
});
export type AddActivationRequest = z.infer<typeof AddActivationRequest>;

/** An admin's Add: the license after it, and the activation added (its identifier normalised). */
export const AddedActivation = z.object({ license: LicenseDetail, activation: Activation });
export type AddedActivation = z.infer<typeof AddedActivation>;

export const RemoveActivationRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
});
export type RemoveActivationRequest = z.infer<typeof RemoveActivationRequest>;
