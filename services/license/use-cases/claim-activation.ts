import { internalError, type CallContext, type Refused } from '../../../libs/contracts/index.js';
import { identifierKey } from '../../../libs/identifier/index.js';
import {
  MAX_DECISION_ROUNDS,
  decideActivation,
  leaseEnd,
} from '../activations/activation-rules.js';
import type { LicenseEvents } from '../events.js';
import type { LicenseStore } from '../licenses/license-store.js';
import type { ActivationRecord, ActivationSource, LicenseRecord } from '../records.js';
import type { LicensedProduct } from '../rules.js';
import type { RejectedAttemptStore } from '../stores.js';
import type { LicenseReads } from './license-reads.js';

/** What claiming an activation runs on. */
export interface ClaimActivationDeps {
  licenses: Pick<LicenseStore, 'claimSlot' | 'renewLease'>;
  rejectedAttempts: Pick<RejectedAttemptStore, 'record'>;
  events: Pick<LicenseEvents, 'activationCreated' | 'activationRejected'>;
  reads: Pick<LicenseReads, 'licenseWithActivations' | 'productOf'>;
  clock: () => Date;
}

/** An activation asked for: a client's activate or an admin's Add. */
export interface ActivationClaim {
  licenseKey: string;
  request: { identifier: string; product_id: number | null; name: string | null; ip: string };
  /** `api`: a client's activate; `admin`: an admin's Add. */
  source: ActivationSource;
  context: CallContext;
}

export type ClaimOutcome =
  | {
      ok: true;
      outcome: 'claimed';
      license: LicenseRecord;
      product: LicensedProduct;
      identifier: string;
      activation: ActivationRecord;
      leaseExpiresAt: Date | null;
    }
  | {
      ok: true;
      outcome: 'already-active';
      license: LicenseRecord;
      product: LicensedProduct;
      identifier: string;
      /** Renewed by this activate when the license has a lease. */
      leaseExpiresAt: Date | null;
    }
  | Refused;

export type ClaimActivation = (claim: ActivationClaim) => Promise<ClaimOutcome>;

/**
 * Decides and, when allowed, claims a slot; decides again when the license changed between the
 * read and the atomic claim. Each round that writes returns, so each outcome is announced once:
 * a claimed slot as `activation.created`. A refusal that spec 2.5 records (a full or expired
 * license) is a rejected attempt, with its reason, the name sent and who tried: a client's
 * activate and an admin's Add alike; a client's is also an `activation.rejected` event.
 */
export function claimActivation({
  licenses,
  rejectedAttempts,
  events,
  reads,
  clock,
}: ClaimActivationDeps): ClaimActivation {
  return async ({ licenseKey, request, source, context }) => {
    for (let round = 0; round < MAX_DECISION_ROUNDS; round++) {
      const now = clock();
      const license = await reads.licenseWithActivations(
        licenseKey,
        request.identifier,
        now,
        context,
      );
      const product = license && (await reads.productOf(license));
      const decision = decideActivation(license, product, request, now);
      if (!decision.ok) {
        if (license && decision.recordAttempt) {
          const { identifier, reason } = decision.recordAttempt;
          await rejectedAttempts.record({
            licenseKey,
            identifier: identifier.identifier,
            name: request.name,
            reason,
            source,
            at: now,
            beforeEachWrite: () => context.beforeWrite(),
          });
          if (source === 'api') {
            events.activationRejected({
              license,
              identifier: identifier.identifier,
              ip: request.ip,
              reason: decision.refusal.code,
              at: now,
            });
          }
        }
        return { ok: false, refusal: decision.refusal };
      }
      if (decision.outcome === 'already-active') {
        // Spec 3.2 with a lease: activating it again renews it.
        const until = leaseEnd(license!.lease_seconds, now);
        let leaseExpiresAt: Date | null = null;
        if (until !== null) {
          context.beforeWrite();
          const renewed = await licenses.renewLease({
            licenseKey,
            identifierKey: identifierKey(decision.identifier),
            now,
            until,
          });
          // Lapsed since the read: decided again, as a new activation.
          if (!renewed) continue;
          leaseExpiresAt = until;
        }
        return {
          ok: true,
          outcome: 'already-active',
          license: license!,
          product: product!,
          identifier: decision.identifier,
          leaseExpiresAt,
        };
      }
      context.beforeWrite();
      const claimed = await licenses.claimSlot({
        licenseKey,
        activation: {
          identifier: decision.identifier.identifier,
          name: request.name,
          ip: request.ip,
          activated_at: now,
          lease_expires_at: leaseEnd(license!.lease_seconds, now),
          exempt: decision.exempt,
        },
        now,
        // Decided on its status and expiry under its plan's expiry terms
        // (lifecycle/expiry-rules.ts).
        asRead: { status: license!.status, expires_at: license!.expires_at },
      });
      if (claimed) {
        events.activationCreated({
          license: claimed.license,
          activation: claimed.activation,
          source,
          at: now,
        });
        return {
          ok: true,
          outcome: 'claimed',
          license: claimed.license,
          product: product!,
          identifier: decision.identifier.identifier,
          activation: claimed.activation,
          leaseExpiresAt: claimed.activation.lease_expires_at,
        };
      }
    }
    throw internalError('The license changed too often during this activation; try again.');
  };
}
