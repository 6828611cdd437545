import { LicensingError, type HandlersOf } from '../../../libs/contracts/index.js';
import { generateLicenseKey } from '../admin/admin-handlers.js';
import type { LicenseEvents } from '../events.js';
import type { LicenseStore } from '../licenses/license-store.js';
import type { RejectedAttemptStore } from '../stores.js';
import type { TrialStore } from './trial-store.js';
import { decideTrial, trialAlreadyUsed } from './trial-rules.js';
import { startedTrialView, trialView } from './trial-views.js';
import type { ClaimActivation } from '../use-cases/claim-activation.js';
import type { ProductLookup } from '../use-cases/license-reads.js';
import type { PlanLookup } from '../use-cases/plan-lookup.js';

/** What trials run on. */
export interface TrialHandlerDeps {
  trials: Pick<TrialStore, 'record' | 'list'>;
  licenses: Pick<LicenseStore, 'issue'>;
  rejectedAttempts: Pick<RejectedAttemptStore, 'record'>;
  products: ProductLookup;
  knownPlans: Pick<PlanLookup, 'find'>;
  events: Pick<LicenseEvents, 'licenseCreated' | 'trialStarted'>;
  claimActivation: ClaimActivation;
  clock: () => Date;
}

/**
 * Trials (docs/api-decisions.md, "Trials"): a client starts one for an identifier, once per
 * product ever; an admin lists them.
 */
export function trialHandlers({
  trials,
  licenses,
  rejectedAttempts,
  products,
  knownPlans,
  events,
  claimActivation,
  clock,
}: TrialHandlerDeps): Pick<HandlersOf<'license'>, 'license.startTrial' | 'license.listTrials'> {
  return {
    'license.startTrial': async (request, context) => {
      const now = clock();
      const product = await products.find(request.product_id);
      const planId = product?.trial_plan_id ?? null;
      const plan = planId === null ? null : await knownPlans.find(planId);
      const decision = decideTrial({ ...request, product, plan, now });
      if (!decision.ok) throw LicensingError.from(decision.refusal);
      // The trial is recorded first: its unique index decides, of requests at once, which one
      // issues a license; a license is never issued for a trial refused.
      context.beforeWrite();
      const recorded = await trials.record({
        product_id: request.product_id,
        identifier: decision.identifier.identifier,
        identifier_key: decision.identifier.key,
        trial_key: decision.trialKey,
        license_key: generateLicenseKey(),
        plan_id: decision.plan.id,
        started_at: now,
        expires_at: decision.expiresAt,
        converted_at: null,
        converted_license_key: null,
        call_id: context.callId,
      });
      const { trial } = recorded;
      // The same call delivered again goes on; any other is refused and recorded (spec 2.5).
      if (recorded.outcome === 'taken' && trial.call_id !== context.callId) {
        await rejectedAttempts.record({
          licenseKey: trial.license_key,
          identifier: decision.identifier.identifier,
          name: null,
          reason: 'trial_already_used',
          source: 'api',
          at: now,
          beforeEachWrite: () => context.beforeWrite(),
        });
        throw LicensingError.from(trialAlreadyUsed().refusal);
      }
      context.beforeWrite();
      const issued = await licenses.issue({
        now: trial.started_at,
        license: {
          license_key: trial.license_key,
          product_id: trial.product_id,
          plan_id: decision.plan.id,
          status: 'active',
          expires_at: trial.expires_at,
          auto_renew: false,
          next_payment_at: null,
          // Spec 2.1: the license copies the plan's limit and type, lease and exemptions.
          activation_type: decision.plan.activation_type,
          activation_limit: decision.plan.activation_limit,
          lease_seconds: decision.plan.lease_seconds,
          exempt_identifiers: decision.plan.exempt_identifiers,
          exempt_limit: decision.plan.exempt_limit,
          customer: decision.customer,
          metadata: {},
        },
      });
      const claim = await claimActivation({
        licenseKey: trial.license_key,
        request: {
          identifier: trial.identifier,
          product_id: trial.product_id,
          name: null,
          ip: request.ip,
        },
        source: 'api',
        context,
      });
      if (!claim.ok) throw LicensingError.from(claim.refusal);
      if (issued.outcome === 'issued') {
        events.licenseCreated({ license: issued.license, at: trial.started_at });
        events.trialStarted({ trial, at: trial.started_at });
      }
      return startedTrialView(
        trial,
        claim.outcome === 'claimed' ? claim.activation.activated_at : trial.started_at,
      );
    },

    'license.listTrials': async ({ product_id, converted, page, per_page }) => {
      const found = await trials.list({
        productId: product_id,
        converted,
        page,
        perPage: per_page,
      });
      return { trials: found.trials.map(trialView), page, per_page, total: found.total };
    },
  };
}
