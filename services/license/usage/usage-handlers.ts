import {
  LicensingError,
  internalError,
  type CallContext,
  type HandlersOf,
  type LicenseUsage,
  type UsageResult,
} from '../../../libs/contracts/index.js';
import { MAX_DECISION_ROUNDS } from '../activations/activation-rules.js';
import type { LicenseEvents } from '../events.js';
import { unknownKey } from '../rules.js';
import type { LicenseReads } from '../use-cases/license-reads.js';
import type { PlanLookup } from '../use-cases/plan-lookup.js';
import {
  checkUsage,
  decideUncounted,
  usagePeriodStart,
  usageResetsAt,
  usageView,
} from './usage-rules.js';
import type { UsageStore } from './usage-store.js';

/** What recording a use runs on. */
export interface UsageHandlerDeps {
  usage: UsageStore;
  clock: () => Date;
  reads: Pick<LicenseReads, 'licenseWithActivations' | 'productOf' | 'requireLicense'>;
  knownPlans: Pick<PlanLookup, 'planOf'>;
  events: Pick<LicenseEvents, 'usageLimitReached'>;
}

/** Usage counters (docs/api-decisions.md, "Usage counters"): a client records uses. */
export function usageHandlers({
  usage,
  clock,
  reads,
  knownPlans,
  events,
}: UsageHandlerDeps): Pick<
  HandlersOf<'license'>,
  'license.recordUsage' | 'license.getUsage' | 'license.resetUsage'
> {
  /** A license's counter in the current period of its plan, as the admin sees it. */
  async function usageOf(licenseKey: string, now: Date): Promise<LicenseUsage> {
    const license = await reads.requireLicense(licenseKey);
    const plan = await knownPlans.planOf(license.plan_id);
    return usageView(await usage.findUsage({ licenseKey, idempotencyKey: null }), plan, now);
  }

  return {
    'license.getUsage': async ({ license_key }) => usageOf(license_key, clock()),

    'license.resetUsage': async ({ license_key }, context) => {
      const now = clock();
      const license = await reads.requireLicense(license_key);
      const plan = await knownPlans.planOf(license.plan_id);
      context.beforeWrite();
      const periodStart = usagePeriodStart(plan.uses_reset, now);
      await usage.resetUses({ licenseKey: license_key, periodStart, now });
      return usageOf(license_key, now);
    },

    'license.recordUsage': async (request, context: CallContext) => {
      const now = clock();
      const { license_key: licenseKey, idempotency_key: idempotencyKey, increment } = request;
      const license = await reads.licenseWithActivations(
        licenseKey,
        request.identifier,
        now,
        context,
      );
      const product = license && (await reads.productOf(license));
      // The plan as it is now: a change of its cap or period applies to the next call.
      const plan = license && (await knownPlans.planOf(license.plan_id));
      const check = checkUsage({ license, product, plan, request, now });
      if (!check.ok) throw LicensingError.from(check.refusal);
      const { maxUses, reset } = check;
      const counted = check.license;
      const periodStart = usagePeriodStart(reset, now);
      const resetsAt = usageResetsAt(reset, now);
      const answer = (uses: number): UsageResult => ({
        uses,
        max_uses: maxUses,
        resets_at: resetsAt && resetsAt.toISOString(),
      });
      /** `usage.limit_reached`, sent by the first call of the period to reach or meet the cap. */
      const noticeLimit = async (uses: number) => {
        if (!(await usage.claimLimitNotice({ licenseKey, periodStart }))) return;
        events.usageLimitReached({
          license: counted,
          usage: { uses, max_uses: maxUses, uses_reset: reset, resets_at: answer(uses).resets_at },
          at: now,
        });
      };

      for (let round = 0; round < MAX_DECISION_ROUNDS; round++) {
        context.beforeWrite();
        const uses = await usage.addUses({
          licenseKey,
          idempotencyKey,
          increment,
          maxUses,
          periodStart,
          now,
        });
        if (uses !== null) {
          if (uses >= maxUses) await noticeLimit(uses);
          return answer(uses);
        }
        const stored = await usage.findUsage({ licenseKey, idempotencyKey });
        if (!stored) throw LicensingError.from(unknownKey());
        const decision = decideUncounted({
          stored,
          seen: stored.seen,
          periodStart,
          increment,
          maxUses,
        });
        if (decision.outcome === 'repeated') return answer(decision.uses);
        if (decision.outcome === 'limit') {
          await noticeLimit(decision.uses);
          throw LicensingError.from(decision.refusal);
        }
      }
      throw internalError('The usage counter changed too often during this call; try again.');
    },
  };
}
