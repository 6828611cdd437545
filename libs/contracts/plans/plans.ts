import { z } from 'zod';
import { ActivationType, Id, NonEmptyShortText, Timestamp } from '../shared.js';
import { DEFAULT_EXEMPT_LIMIT, MAX_LEASE_SECONDS } from '../bounds.js';
import { ExemptIdentifiers, ExemptLimit } from './exempt-identifiers.js';
import { MaxUses, UsesReset } from '../licenses/usage.js';
import { EntitlementCodes } from './entitlements.js';
import { createPlanExpiryFields, planExpiryFields, updatePlanExpiryFields } from './plan-expiry.js';

// ---- Plans (spec 2.1) ----

/**
 * A plan's lease (docs/api-decisions.md, "Leases"): an activation lapses this many seconds after
 * it was made or last renewed (activate or validate with its identifier); null, no lease.
 */
export const LeaseSeconds = z
  .number()
  .int()
  .positive()
  .max(MAX_LEASE_SECONDS)
  .nullable()
  .meta({
    description:
      'Seconds an activation lives unless renewed by an activate or a validate with its ' +
      `identifier; null: activations never lapse. At most ${MAX_LEASE_SECONDS} (a year).`,
  });

/**
 * A plan's trial length (docs/api-decisions.md, "Trials"): a trial issued on the plan expires this
 * many days after it starts; null, the plan issues no trials.
 */
export const TrialDays = z
  .number()
  .int()
  .min(1)
  .max(365)
  .nullable()
  .meta({
    description:
      'Days a trial issued on this plan lasts (1 to 365); null: the plan issues no trials. A ' +
      "product's trial_plan_id names the plan its trials are issued on.",
  });

export const Plan = z.object({
  id: Id,
  name: z.string(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  lease_seconds: LeaseSeconds,
  exempt_identifiers: z.array(z.string()),
  exempt_limit: z.number().int().nonnegative(),
  max_uses: MaxUses,
  uses_reset: UsesReset,
  trial_days: TrialDays,
  /** The entitlements every license on the plan has while on it; [] for plans stored before. */
  entitlements: z.array(z.string()),
  ...planExpiryFields,
  created_at: Timestamp,
});
export type Plan = z.infer<typeof Plan>;

export const CreatePlanRequest = z.strictObject({
  id: Id.optional(),
  name: NonEmptyShortText,
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative().max(1_000_000),
  lease_seconds: LeaseSeconds.default(null),
  exempt_identifiers: ExemptIdentifiers.default([]),
  exempt_limit: ExemptLimit.default(DEFAULT_EXEMPT_LIMIT),
  // Optional rather than defaulted, so that callers written before them need not name them.
  max_uses: MaxUses.optional().meta({ description: 'Default null: no usage counted.' }),
  uses_reset: UsesReset.optional().meta({ description: 'Default never.' }),
  trial_days: TrialDays.default(null),
  entitlements: EntitlementCodes.default([]),
  ...createPlanExpiryFields,
});
export type CreatePlanRequest = z.infer<typeof CreatePlanRequest>;

/**
 * What an admin may change of a plan: its name, its lease and exemption settings, its usage
 * settings, its trial length and its entitlements. Licenses take the lease and exemption settings
 * when issued on the plan or moved to it (spec 3.3), not before; the usage settings and the
 * entitlements apply at once (read from the plan per request).
 */
export const UpdatePlanRequest = z.strictObject({
  id: Id,
  name: NonEmptyShortText.optional(),
  lease_seconds: LeaseSeconds.optional(),
  exempt_identifiers: ExemptIdentifiers.optional(),
  exempt_limit: ExemptLimit.optional(),
  max_uses: MaxUses.optional(),
  uses_reset: UsesReset.optional(),
  trial_days: TrialDays.optional(),
  entitlements: EntitlementCodes.optional(),
  ...updatePlanExpiryFields,
});
export type UpdatePlanRequest = z.infer<typeof UpdatePlanRequest>;

export const PlanRef = z.strictObject({ id: Id });
export const PlanList = z.object({ plans: z.array(Plan) });

/** A plan name already taken: the plan that has it (ALREADY_EXISTS). */
export const PlanNameTaken = z.object({ plan_id: Id.optional() });
