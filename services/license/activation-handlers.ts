import {
  LicensingError,
  internalError,
  type CallContext,
  type HandlersOf,
} from '../../libs/contracts/index.js';
import { metrics } from '../../libs/observability/index.js';
import { normaliseIdentifier } from '../../libs/identifier/index.js';
import { MAX_DECISION_ROUNDS, decideValidation, leaseEnd } from './activation-rules.js';
import { decideCheckout } from './checkout-rules.js';
import type { LicenseCounts } from './daily-counts.js';
import type { LicenseStore } from './license-store.js';
import type { LicenseRecord } from './records.js';
import {
  findActivation,
  identifierKeysByType,
  isIdentifierActivated,
  normaliseOrRefuse,
} from './rules.js';
import type { ClaimActivation } from './use-cases/claim-activation.js';
import type { EndTrial } from './use-cases/end-trial.js';
import type { LicenseReads } from './use-cases/license-reads.js';
import type { PlanAndEntitlements } from './use-cases/live-entitlements.js';
import type { ReleaseActivation } from './use-cases/release-activation.js';
import {
  activationResultView,
  checkoutView,
  coverageView,
  unknownKeyCoverageView,
  unknownKeyView,
  validationView,
} from './views.js';

/** What the calls made with a license key run on. */
export interface ActivationHandlerDeps {
  licenses: Pick<LicenseStore, 'renewLease' | 'touchCheckIfMatching' | 'recordCheckout'>;
  counts: Pick<LicenseCounts, 'count'>;
  clock: () => Date;
  reads: LicenseReads;
  /** The plan's name and the license's live entitlements, read together. */
  planAndEntitlements: PlanAndEntitlements;
  claimActivation: ClaimActivation;
  releaseActivation: ReleaseActivation;
  endTrial: EndTrial;
}

/** The calls that client software makes with a license key, and the update check's and downloads'. */
export function activationHandlers(
  deps: ActivationHandlerDeps,
): Pick<
  HandlersOf<'license'>,
  | 'license.activate'
  | 'license.validate'
  | 'license.deactivate'
  | 'license.checkout'
  | 'license.coverage'
> {
  const { licenses, counts, clock, claimActivation, releaseActivation } = deps;
  const { productOf, licenseWithActivations, licenseAsRead, releaseLapsed, expiryOf } = deps.reads;
  const { planAndEntitlements } = deps;

  /**
   * Validate with an activated identifier on a license with a lease (docs/api-decisions.md,
   * "Leases"): the activation is renewed, and the lapsed activations of others are removed so
   * that the answer counts only live ones. Without a lease, the license as it is.
   */
  async function renewWithLease(
    license: LicenseRecord,
    identifierKey: string | null,
    now: Date,
    context: CallContext,
  ): Promise<{ license: LicenseRecord; leaseExpiresAt: Date | null }> {
    const until = leaseEnd(license.lease_seconds, now);
    if (until === null) return { license, leaseExpiresAt: null };
    // The count before may have waited past the deadline on a stalled database.
    context.beforeWrite();
    const [renewed, after] = await Promise.all([
      identifierKey === null
        ? false
        : licenses.renewLease({ licenseKey: license.license_key, identifierKey, now, until }),
      releaseLapsed(license.license_key, now),
    ]);
    return { license: after?.license ?? license, leaseExpiresAt: renewed ? until : null };
  }

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

    // ---- Spec 4.2 ----
    'license.validate': async (request, context) => {
      const now = clock();
      // The common case in one round trip: the license matches, so the check counts (rule 3),
      // once per call however often its request is delivered. Otherwise (or when this call was
      // counted already) nothing was written, and the license is read and decided on below; so
      // it is when the caller stopped waiting (a validate that counts nothing still answers).
      if (!context.passed) {
        context.beforeWrite();
        const keys = request.identifier === null ? null : identifierKeysByType(request.identifier);
        const counted = await licenses.touchCheckIfMatching({
          licenseKey: request.license_key,
          productId: request.product_id,
          identifierKeys: keys,
          at: now,
          ip: request.ip,
          checkId: context.callId,
          deadline: context.deadline,
        });
        if (counted) {
          // The overview counts a validate as its check is counted: once per call.
          counts.count('validations', counted.product_id, now);
          const product = await productOf(counted);
          // It matched: the identifier is activated under its key for the license's type.
          const key = keys?.[counted.activation_type];
          const activations =
            key === undefined
              ? []
              : [{ identifier: request.identifier ?? '', identifier_key: key }];
          const decision = decideValidation({
            license: { ...counted, activations, expiry: await expiryOf(counted) },
            product,
            request,
            now,
          });
          if (decision.ok && decision.outcome === 'report' && decision.countsAsCheck) {
            // With a lease: the activation is renewed, the lapsed ones of others removed.
            const [leased, plan] = await Promise.all([
              renewWithLease(counted, key ?? null, now, context),
              planAndEntitlements(counted, now),
            ]);
            return validationView({
              license: leased.license,
              product,
              ...plan,
              report: decision,
              leaseExpiresAt: leased.leaseExpiresAt,
              asked: request.entitlements,
            });
          }
          throw internalError('A counted check did not decide as one.');
        }
      }
      const license = await licenseWithActivations(
        request.license_key,
        request.identifier,
        now,
        context,
      );
      const product = license && (await productOf(license));
      const decision = decideValidation({ license, product, request, now });
      if (!decision.ok) throw LicensingError.from(decision.refusal);
      if (decision.outcome === 'unknown-key' || !license || !product) {
        return unknownKeyView(request.license_key, request.entitlements);
      }
      let leaseExpiresAt: Date | null = null;
      if (decision.countsAsCheck) {
        context.beforeWrite();
        // The license was read and decided on as it is: a plain count on its key (none when
        // this call was counted already).
        const counted = await licenses.touchCheckIfMatching({
          licenseKey: license.license_key,
          productId: null,
          identifierKeys: null,
          at: now,
          ip: request.ip,
          checkId: context.callId,
          deadline: context.deadline,
        });
        if (counted) counts.count('validations', counted.product_id, now);
        // An activated identifier's lease is renewed (rule 3's path).
        const sent =
          request.identifier === null
            ? null
            : normaliseOrRefuse(license.activation_type, request.identifier);
        if (sent?.ok && findActivation(license.activations, sent.identifier.key)) {
          const key = sent.identifier.key;
          leaseExpiresAt = (await renewWithLease(license, key, now, context)).leaseExpiresAt;
        }
      }
      return validationView({
        license,
        product,
        ...(await planAndEntitlements(license, now)),
        report: decision,
        leaseExpiresAt,
        asked: request.entitlements,
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
