import { z } from 'zod';
import {
  ActivationType,
  ClientIp,
  Id,
  LicenseStatus,
  NonEmptyShortText,
  ShortText,
  Timestamp,
} from './shared.js';

// ---- Plans (spec 2.1) ----

export const Plan = z.object({
  id: Id,
  name: z.string(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  created_at: Timestamp,
});
export type Plan = z.infer<typeof Plan>;

export const CreatePlanRequest = z.strictObject({
  id: Id.optional(),
  name: NonEmptyShortText,
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative().max(1_000_000),
});
export type CreatePlanRequest = z.infer<typeof CreatePlanRequest>;

export const PlanRef = z.strictObject({ id: Id });
export const PlanList = z.object({ plans: z.array(Plan) });

// ---- Public license operations (spec 4.1 to 4.3) ----

/** The license key as sent by a client; unknown keys are answered, not rejected, here. */
const LicenseKey = NonEmptyShortText;

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
});
export type ValidateRequest = z.infer<typeof ValidateRequest>;

export const DeactivateRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  product_id: Id.nullable(),
});
export type DeactivateRequest = z.infer<typeof DeactivateRequest>;

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
});
export type ValidationResult = z.infer<typeof ValidationResult>;

// ---- Management (admin) operations ----

export const Activation = z.object({
  identifier: z.string(),
  name: z.string().nullable(),
  ip: z.string(),
  activated_at: Timestamp,
});
export type Activation = z.infer<typeof Activation>;

export const RejectedAttempt = z.object({
  identifier: z.string(),
  tries: z.number().int().positive(),
  last_attempt_at: Timestamp,
});
export type RejectedAttempt = z.infer<typeof RejectedAttempt>;

/** Every field of spec 2.2, plus the record's links, activations and rejected attempts. */
export const LicenseDetail = z.object({
  license_key: z.string(),
  status: LicenseStatus,
  product_id: Id,
  plan_id: Id,
  product: z.string().nullable(),
  plan: z.string().nullable(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  activations_used: z.number().int().nonnegative(),
  expires_at: Timestamp.nullable(),
  auto_renew: z.boolean(),
  next_payment_at: Timestamp.nullable(),
  last_check_at: Timestamp.nullable(),
  last_check_ip: z.string().nullable(),
  check_count: z.number().int().nonnegative(),
  created_at: Timestamp,
  activations: z.array(Activation),
  rejected_attempts: z.array(RejectedAttempt),
});
export type LicenseDetail = z.infer<typeof LicenseDetail>;

export const CreateLicenseRequest = z.strictObject({
  license_key: NonEmptyShortText.refine((v) => v === v.trim(), {
    message: 'must not start or end with white space',
  }).optional(),
  product_id: Id,
  plan_id: Id,
  status: LicenseStatus.default('active'),
  expires_at: Timestamp.nullable().default(null),
  auto_renew: z.boolean().default(false),
  next_payment_at: Timestamp.nullable().default(null),
});
export type CreateLicenseRequest = z.infer<typeof CreateLicenseRequest>;

export const LicenseRef = z.strictObject({ license_key: LicenseKey });

export const UpdateLicenseRequest = z.strictObject({
  license_key: LicenseKey,
  status: LicenseStatus.optional(),
  expires_at: Timestamp.nullable().optional(),
  activation_limit: z.number().int().nonnegative().max(1_000_000).optional(),
});
export type UpdateLicenseRequest = z.infer<typeof UpdateLicenseRequest>;

export const AddActivationRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  name: ShortText.nullable().default(null),
});
export type AddActivationRequest = z.infer<typeof AddActivationRequest>;

export const RemoveActivationRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
});
export type RemoveActivationRequest = z.infer<typeof RemoveActivationRequest>;

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
  /** Reported status: an active license past its expiry date is `expired` (spec 3.1). */
  status: LicenseStatus.nullable(),
  plan_id: Id.nullable(),
  expires_at: Timestamp.nullable(),
  auto_renew: z.boolean(),
  next_payment_at: Timestamp.nullable(),
  /** Whether the identifier sent is activated (normalised as in 2.4); null when none was sent. */
  identifier_activated: z.boolean().nullable(),
});
export type LicenseCoverage = z.infer<typeof LicenseCoverage>;
