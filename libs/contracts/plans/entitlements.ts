import { z } from 'zod';
import {
  ENTITLEMENT_CODE_PATTERN,
  MAX_ENTITLEMENT_CODE_LENGTH,
  MAX_PLAN_ENTITLEMENTS,
} from '../bounds.js';
import { NonEmptyShortText, Timestamp } from '../shared.js';
import { LicenseKey } from '../licenses/license-key.js';

// ---- Entitlements: what a license grants beyond its plan's name (docs/api-decisions.md) ----

/**
 * An entitlement's code: lowercase ASCII letters and digits, with `-`, `_` or `.` inside, at most
 * 64 characters. No comma, so a list of codes is one form field (`entitlements=a,b`).
 */
export const EntitlementCode = z
  .string()
  .max(MAX_ENTITLEMENT_CODE_LENGTH)
  .regex(ENTITLEMENT_CODE_PATTERN, {
    message:
      'An entitlement code is lowercase letters and digits, with - _ or . inside ' +
      `(at most ${MAX_ENTITLEMENT_CODE_LENGTH} characters).`,
  })
  .meta({
    description:
      'Lowercase letters and digits, with -, _ or . inside (not first or last), ' +
      `at most ${MAX_ENTITLEMENT_CODE_LENGTH} characters: pro, updates-3y.`,
  });

/** A set of codes: a plan's, or those a validate asks about. Each once; order kept as given. */
export const EntitlementCodes = z
  .array(EntitlementCode)
  .max(MAX_PLAN_ENTITLEMENTS)
  .refine((codes) => new Set(codes).size === codes.length, {
    message: 'An entitlement code is given more than once.',
  });

export const Entitlement = z.object({
  code: EntitlementCode,
  name: z.string(),
  created_at: Timestamp,
});
export type Entitlement = z.infer<typeof Entitlement>;

export const CreateEntitlementRequest = z.strictObject({
  code: EntitlementCode,
  name: NonEmptyShortText,
});
export type CreateEntitlementRequest = z.infer<typeof CreateEntitlementRequest>;

/** Only the name changes: the code is what plans, licenses and files refer to. */
export const UpdateEntitlementRequest = z.strictObject({
  code: EntitlementCode,
  name: NonEmptyShortText,
});

export const EntitlementRef = z.strictObject({ code: EntitlementCode });
export const EntitlementList = z.object({ entitlements: z.array(Entitlement) });

/** Where an entitlement is in use, so it cannot be deleted (ENTITLEMENT_IN_USE). */
export const EntitlementInUse = z.object({
  plans: z.number().int().nonnegative(),
  licenses: z.number().int().nonnegative(),
});

/** An entitlement a license carries beyond its plan's, until `expires_at` (null: never). */
export const LicenseEntitlement = z.object({
  code: EntitlementCode,
  expires_at: Timestamp.nullable(),
  granted_at: Timestamp,
});
export type LicenseEntitlement = z.infer<typeof LicenseEntitlement>;

/**
 * Grants a license an entitlement of its own; granting one it has already replaces its expiry.
 * An expiry in the past is accepted: the entitlement is then listed but not live.
 */
export const GrantEntitlementRequest = z.strictObject({
  license_key: LicenseKey,
  code: EntitlementCode,
  expires_at: Timestamp.nullable().default(null),
});
export type GrantEntitlementRequest = z.infer<typeof GrantEntitlementRequest>;

export const RevokeEntitlementRequest = z.strictObject({
  license_key: LicenseKey,
  code: EntitlementCode,
});
