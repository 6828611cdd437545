import {
  LicensingError,
  internalError,
  taskNames,
  type HandlersOf,
} from '../../../libs/contracts/index.js';
import { MAX_DECISION_ROUNDS } from '../activations/activation-rules.js';
import type { LicenseEvents } from '../events.js';
import type { LicenseStore } from '../licenses/license-store.js';
import { decidePlanChange, decideRenewal, renewalExpiry } from './lifecycle-rules.js';
import { unknownLicense, unknownPlan } from '../rules.js';
import {
  runScheduledTask,
  scheduledTasks,
  type ScheduleSettings,
  type TaskStores,
} from './scheduled-tasks.js';
import type { TaskRunStore } from '../stores.js';
import type { DetailOf } from '../use-cases/license-detail.js';
import type { LicenseReads } from '../use-cases/license-reads.js';
import type { PlanLookup } from '../use-cases/plan-lookup.js';
import { scheduledTaskView } from '../record-views.js';

const dateOrNull = (timestamp: string | null) => (timestamp === null ? null : new Date(timestamp));

/** What a license's changes over time and the scheduled tasks run on. */
export interface LifecycleHandlerDeps extends TaskStores {
  licenses: LicenseStore;
  taskRuns: TaskRunStore;
  clock: () => Date;
  schedule: ScheduleSettings;
  events: LicenseEvents;
  knownPlans: Pick<PlanLookup, 'find' | 'planOf'>;
  reads: Pick<LicenseReads, 'requireLicense'>;
  detail: DetailOf;
}

/** A license over time: plan changes and renewals (spec 3.3), the scheduled tasks (2.5, 3.1). */
export function lifecycleHandlers({
  licenses,
  plans,
  rejectedAttempts,
  taskRuns,
  clock,
  schedule,
  events,
  knownPlans,
  reads: { requireLicense },
  detail,
}: LifecycleHandlerDeps): Pick<
  HandlersOf<'license'>,
  'license.changePlan' | 'license.renewLicense' | 'license.runTask' | 'license.listTasks'
> {
  const { planOf } = knownPlans;
  return {
    // ---- Spec 3.3: plan changes and renewals ----
    'license.changePlan': async ({ license_key, plan_id, when, confirm }, context) => {
      const current = await requireLicense(license_key);
      const plan = await knownPlans.find(plan_id);
      if (!plan) throw LicensingError.from(unknownPlan(plan_id));
      // Judged on the license as read now, for a change at renewal too: an admin confirms what
      // they can see. A limit left below the activations in use is allowed once confirmed: they
      // stay, and claimSlot refuses new ones until the count is under the limit.
      const decision = decidePlanChange({ license: current, plan, confirmed: confirm });
      if (!decision.ok) throw LicensingError.from(decision.refusal);
      context.beforeWrite();
      const now = clock();
      if (when === 'renewal') {
        // Only stored: the license moves when a checkout renewal applies it (below).
        const scheduled = await licenses.schedulePlanChange({
          licenseKey: license_key,
          planId: plan.id,
          now,
        });
        if (!scheduled) throw LicensingError.from(unknownLicense());
        return detail(scheduled);
      }
      const changed = await licenses.changePlan({ licenseKey: license_key, plan, now });
      if (!changed) throw LicensingError.from(unknownLicense());
      const { license, previous } = changed;
      // The plan it was already on resets its limit and type, but moves it to no other plan.
      if (license.plan_id !== previous.plan_id) {
        events.planChanged({ license, previousPlanId: previous.plan_id, at: now });
      }
      return detail(license);
    },

    'license.renewLicense': async (
      { license_key, expires_at, extend_days, source, next_payment_at },
      context,
    ) => {
      const sent = {
        expires_at: expires_at === undefined ? undefined : new Date(expires_at),
        extend_days,
      };
      for (let round = 0; round < MAX_DECISION_ROUNDS; round++) {
        const license = await requireLicense(license_key);
        const now = clock();
        // The new expiry, by the basis of the license's plan as it is now.
        const basis = (await planOf(license.plan_id)).renewal_basis;
        const expiry = renewalExpiry({ request: sent, expiresAt: license.expires_at, basis, now });
        if (!expiry.ok) throw LicensingError.from(expiry.refusal);
        const request = { source, expires_at: expiry.expiresAt };
        const decision = decideRenewal({ license, request, now });
        if (!decision.ok) throw LicensingError.from(decision.refusal);
        const plan = decision.planId === null ? undefined : await planOf(decision.planId);
        context.beforeWrite();
        const renewed = await licenses.renew({
          licenseKey: license_key,
          basis: {
            status: license.status,
            plan_id: license.plan_id,
            pending_plan_id: license.pending_plan_id,
            expires_at: license.expires_at,
          },
          renewal: {
            status: decision.status,
            expires_at: request.expires_at,
            next_payment_at:
              next_payment_at === undefined ? undefined : dateOrNull(next_payment_at),
            plan,
          },
          now,
        });
        if (renewed) {
          // Written only while the license was as read, so what it replaced is what was read.
          if (renewed.expires_at?.getTime() !== license.expires_at?.getTime()) {
            events.licenseRenewed({
              license: renewed,
              previousExpiresAt: license.expires_at,
              at: now,
            });
          }
          // A checkout renewal that applied a stored plan change (spec 3.3).
          if (renewed.plan_id !== license.plan_id) {
            events.planChanged({ license: renewed, previousPlanId: license.plan_id, at: now });
          }
          return detail(renewed);
        }
      }
      throw internalError('The license changed too often during this renewal; try again.');
    },

    // ---- Spec 2.5 and 3.1: the scheduled tasks, run on demand and listed ----
    'license.runTask': async ({ name }, context) => {
      const ranAt = clock();
      const affected = await runScheduledTask({
        name,
        stores: { licenses, plans, rejectedAttempts, taskRuns },
        events,
        trigger: 'on-demand',
        now: ranAt,
        beforeEachWrite: () => context.beforeWrite(),
      });
      return { name, ran_at: ranAt.toISOString(), affected };
    },

    'license.listTasks': async () => {
      const [lastRuns, nextRuns] = await Promise.all([
        taskRuns.lastRuns(),
        Promise.all(
          taskNames.map((name) =>
            taskRuns.nextScheduledRun({ jobName: scheduledTasks[name].jobName }),
          ),
        ),
      ]);
      return {
        tasks: taskNames.map((name, i) =>
          scheduledTaskView({
            name,
            interval: scheduledTasks[name].interval(schedule),
            lastRun: lastRuns.find((run) => run.name === name) ?? null,
            nextRunAt: nextRuns[i] ?? null,
          }),
        ),
      };
    },
  };
}
