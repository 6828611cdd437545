import {
  LicensingError,
  internalError,
  type CallContext,
  type HandlersOf,
} from '../../../libs/contracts/index.js';
import { decideValidation, leaseEnd } from './activation-rules.js';
import type { LicenseCounts } from '../overview/daily-counts.js';
import type { LicenseStore } from '../licenses/license-store.js';
import type { LicenseRecord } from '../records.js';
import { findActivation, identifierKeysByType, normaliseOrRefuse } from '../rules.js';
import type { LicenseReads } from '../use-cases/license-reads.js';
import type { PlanAndEntitlements } from '../use-cases/live-entitlements.js';
import { unknownKeyView, validationView } from '../views.js';

/** What validation runs on. */
export interface ValidationHandlerDeps {
  licenses: Pick<LicenseStore, 'renewLease' | 'touchCheckIfMatching'>;
  counts: Pick<LicenseCounts, 'count'>;
  clock: () => Date;
  reads: LicenseReads;
  /** The plan's name and the license's live entitlements, read together. */
  planAndEntitlements: PlanAndEntitlements;
}

/** Spec 4.2: the validation that client software asks with a license key, counted as a check. */
export function validationHandlers(
  deps: ValidationHandlerDeps,
): Pick<HandlersOf<'license'>, 'license.validate'> {
  const { licenses, counts, clock, planAndEntitlements } = deps;
  const { productOf, licenseWithActivations, releaseLapsed, expiryOf } = deps.reads;

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
  };
}
