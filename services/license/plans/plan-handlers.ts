import {
  LicensingError,
  refusal,
  type ActivationType,
  type HandlersOf,
} from '../../../libs/contracts/index.js';
import { exemptPatternProblem } from '../activations/exempt-rules.js';
import { planNameTaken, unknownPlan } from '../rules.js';
import { refuseUndefinedCodes } from '../entitlements/entitlement-handlers.js';
import type { EntitlementStore } from '../entitlements/entitlement-store.js';
import type { PlanStore } from '../stores.js';
import type { PlanLookup } from '../use-cases/plan-lookup.js';
import { planView } from '../views.js';

/**
 * Exempt identifiers: a pattern that can never match an identifier of the plan's activation type
 * is refused, rather than stored to silently do nothing.
 */
function refuseUnmatchablePatterns(type: ActivationType, patterns: readonly string[]): void {
  for (const pattern of patterns) {
    const problem = exemptPatternProblem(type, pattern);
    if (problem !== null) {
      throw LicensingError.from(refusal('INVALID_REQUEST', `exempt_identifiers: ${problem}`));
    }
  }
}

/** What an admin's calls on plans run on. */
export interface PlanHandlerDeps {
  plans: PlanStore;
  entitlements: Pick<EntitlementStore, 'defined'>;
  knownPlans: Pick<PlanLookup, 'find' | 'invalidate'>;
  clock: () => Date;
}

/** What an admin does with plans (spec 2.1): creates, reads, lists and changes them. */
export function planHandlers({
  plans,
  entitlements,
  knownPlans,
  clock,
}: PlanHandlerDeps): Pick<
  HandlersOf<'license'>,
  'license.createPlan' | 'license.getPlan' | 'license.listPlans' | 'license.updatePlan'
> {
  return {
    'license.createPlan': async ({ id, ...plan }, context) => {
      refuseUnmatchablePatterns(plan.activation_type, plan.exempt_identifiers);
      await refuseUndefinedCodes(entitlements, plan.entitlements);
      const created = await plans.create({
        plan: { ...plan, max_uses: plan.max_uses ?? null, uses_reset: plan.uses_reset ?? 'never' },
        id,
        now: clock(),
        // The store writes the sequence counter, then the plan, perhaps more than once.
        beforeEachWrite: () => context.beforeWrite(),
      });
      if (created.outcome === 'id-taken') {
        throw LicensingError.from(refusal('ALREADY_EXISTS', `Plan ${id} already exists.`));
      }
      if (created.outcome === 'name-taken')
        throw LicensingError.from(planNameTaken(created.holder));
      return planView(created.plan);
    },

    'license.getPlan': async ({ id }) => {
      const plan = await knownPlans.find(id);
      if (!plan) throw LicensingError.from(unknownPlan(id));
      return planView(plan);
    },

    'license.listPlans': async () => ({ plans: (await plans.list()).map(planView) }),

    'license.updatePlan': async ({ id, ...changes }, context) => {
      const current = await plans.find(id);
      if (!current) throw LicensingError.from(unknownPlan(id));
      if (changes.exempt_identifiers !== undefined) {
        refuseUnmatchablePatterns(current.activation_type, changes.exempt_identifiers);
      }
      if (changes.entitlements !== undefined) {
        await refuseUndefinedCodes(entitlements, changes.entitlements);
      }
      context.beforeWrite();
      const updated = await plans.update({ id, changes });
      if (!updated) throw LicensingError.from(unknownPlan(id));
      if (updated.outcome === 'name-taken')
        throw LicensingError.from(planNameTaken(updated.holder));
      knownPlans.invalidate(id);
      return planView(updated.plan);
    },
  };
}
