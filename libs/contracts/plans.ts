import { z } from 'zod';
import { ActivationType, Id, NonEmptyShortText, Timestamp } from './shared.js';
import { DEFAULT_EXEMPT_LIMIT, MAX_LEASE_SECONDS } from './bounds.js';
import { ExemptIdentifiers, ExemptLimit } from './exempt-identifiers.js';
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

export const Plan = z.object({
  id: Id,
  name: z.string(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  lease_seconds: LeaseSeconds,
  exempt_identifiers: z.array(z.string()),
  exempt_limit: z.number().int().nonnegative(),
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
  ...createPlanExpiryFields,
});
export type CreatePlanRequest = z.infer<typeof CreatePlanRequest>;

/**
 * What an admin may change of a plan: its name and its lease and exemption settings. Licenses
 * take the settings when issued on the plan or moved to it (spec 3.3), not before.
 */
export const UpdatePlanRequest = z.strictObject({
  id: Id,
  name: NonEmptyShortText.optional(),
  lease_seconds: LeaseSeconds.optional(),
  exempt_identifiers: ExemptIdentifiers.optional(),
  exempt_limit: ExemptLimit.optional(),
  ...updatePlanExpiryFields,
});
export type UpdatePlanRequest = z.infer<typeof UpdatePlanRequest>;

export const PlanRef = z.strictObject({ id: Id });
export const PlanList = z.object({ plans: z.array(Plan) });

/** A plan name already taken: the plan that has it (ALREADY_EXISTS). */
export const PlanNameTaken = z.object({ plan_id: Id.optional() });
