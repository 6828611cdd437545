import { LicensingError, internalError, type HandlersOf } from '../../../libs/contracts/index.js';
import { metrics } from '../../../libs/observability/index.js';
import { normaliseIdentifier } from '../../../libs/identifier/index.js';
import { MAX_DECISION_ROUNDS } from './activation-rules.js';
import { decideCheckout } from './checkout-rules.js';
import type { LicenseStore } from '../licenses/license-store.js';
import { isIdentifierActivated } from '../rules.js';
import type { ClaimActivation } from '../use-cases/claim-activation.js';
import type { EndTrial } from '../use-cases/end-trial.js';
import type { LicenseReads } from '../use-cases/license-reads.js';
import type { PlanAndEntitlements } from '../use-cases/live-entitlements.js';
import type { ReleaseActivation } from '../use-cases/release-activation.js';
import {
  activationResultView,
  checkoutView,
  coverageView,
  unknownKeyCoverageView,
} from '../views.js';

/** What the calls made with a license key run on. */
export interface ActivationHandlerDeps {
  licenses: Pick<LicenseStore, 'recordCheckout'>;
  clock: () => Date;
  reads: LicenseReads;
  /** The plan's name and the license's live entitlements, read together. */
  planAndEntitlements: PlanAndEntitlements;
  claimActivation: ClaimActivation;
  releaseActivation: ReleaseActivation;
  endTrial: EndTrial;
}

/**
 * The calls that client software makes with a license key (validate: validation-handlers.ts), and
 * the update check's and downloads'.
 */
export function activationHandlers(
  deps: ActivationHandlerDeps,
): Pick<
  HandlersOf<'license'>,
  'license.activate' | 'license.deactivate' | 'license.checkout' | 'license.coverage'
> {
  const { licenses, clock, claimActivation, releaseActivation } = deps;
  const { productOf, licenseWithActivations, licenseAsRead, expiryOf } = deps.reads;
  const { planAndEntitlements } = deps;

  return {
    // ---- Spec 4.1 ----
    'license.activate': async (request, context) => {
      const result = await claimActivation({
        licenseKey: request.license_key,
        request,
        source: 'api',
        context,
      });
      metrics.activationOutcomes.inc({
        outcome: !result.ok
          ? result.refusal.code
          : result.outcome === 'claimed'
            ? 'activated'
            : 'already_active',
      });
      if (!result.ok) throw LicensingError.from(result.refusal);
      const { license, product, identifier, leaseExpiresAt } = result;
      // A paid license activated on a trial's identifier ends the trial (api-decisions, Trials);
      // an identifier already active was looked at when it was claimed.
      if (result.outcome === 'claimed') {
        await deps.endTrial({ license, product, identifier, context });
      }
      const now = clock();
      const [named, expiry] = await Promise.all([
        planAndEntitlements(license, now),
        expiryOf(license),
      ]);
      return activationResultView({
        license: { ...license, expiry },
        product,
        ...named,
        identifier,
        leaseExpiresAt,
        now,
      });
    },

    // ---- Spec 4.3 (completed in docs/api-decisions.md) ----
    'license.deactivate': async (request, context) => {
      const license = await licenseWithActivations(
        request.license_key,
        request.identifier,
        clock(),
        context,
      );
      const product = license && (await productOf(license));
      const removed = await releaseActivation({
        license,
        product,
        request,
        context,
        source: 'deactivate',
      });
      const now = clock();
      return activationResultView({
        license: { ...removed.license, expiry: await expiryOf(removed.license) },
        product: product!,
        ...(await planAndEntitlements(removed.license, now)),
        identifier: removed.identifier,
        leaseExpiresAt: null,
        now,
      });
    },

    // ---- License files (docs/api-decisions.md, "License files") ----
    'license.checkout': async (request, context) => {
      // The file holds the license as decided on; it is recorded, as issued, only while the
      // license is still usable and the identifier activated; otherwise decided again.
      for (let round = 0; round < MAX_DECISION_ROUNDS; round++) {
        const now = clock();
        const license = await licenseWithActivations(
          request.license_key,
          request.identifier,
          now,
          context,
        );
        const product = license && (await productOf(license));
        const decision = decideCheckout({ license, product, request, now });
        if (!decision.ok) throw LicensingError.from(decision.refusal);
        context.beforeWrite();
        // On a plan with a lease the checkout renews the activation's, which the file never
        // outlasts: a slot the identifier lets lapse is free only once its file has expired.
        const recorded = await licenses.recordCheckout({
          licenseKey: request.license_key,
          identifier: decision.identifier,
          at: decision.lease.issuedAt,
          leaseSeconds: license!.lease_seconds,
          leaseExpiresAt: decision.activationLeaseEnd,
          asRead: { status: license!.status, expires_at: license!.expires_at },
        });
        if (recorded) {
          return checkoutView({
            license: license!,
            product: product!,
            ...(await planAndEntitlements(license!, now)),
            productId: request.product_id,
            issue: decision,
          });
        }
      }
      throw internalError('The license changed too often during this checkout; try again.');
    },

    // ---- Spec 4.4 and 4.5: what the update check and downloads need to know of a key ----
    // A read: it writes nothing (spec 4.4 and 4.5 decide nothing about the license).
    'license.coverage': async ({ license_key, product_id, identifier }) => {
      const now = clock();
      const license = await licenseAsRead(license_key, identifier, now);
      if (!license) return unknownKeyCoverageView(identifier !== null);
      const [product, { entitlements }] = await Promise.all([
        productOf(license),
        planAndEntitlements(license, now),
      ]);
      return coverageView({
        license,
        product,
        entitlements,
        productId: product_id,
        identifierActivated:
          identifier === null ? null : isIdentifierActivated(license, identifier),
        identifier:
          identifier === null ? null : normaliseIdentifier(license.activation_type, identifier),
        now,
      });
    },
  };
}
