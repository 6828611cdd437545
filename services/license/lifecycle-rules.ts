import { refusal, type LicenseStatus, type Refusal } from '../../libs/contracts/index.js';

// ---- Spec 3.3: renewals ----

/** `checkout`: the Renew button; `gateway`: an automatic renewal by the payment gateway. */
export type RenewalSource = 'checkout' | 'gateway';

/** What a renewal decision needs to know about the license. */
export interface RenewableLicense {
  status: LicenseStatus;
  plan_id: number;
  pending_plan_id: number | null;
}

export type RenewalDecision =
  | {
      outcome: 'renew';
      /** The status after the renewal. */
      status: LicenseStatus;
      /**
       * Checkout: the plan whose limit and type the license takes (its pending plan change, else
       * its own plan). Null for a gateway renewal: plan, limit, type and pending change stay.
       */
      planId: number | null;
    }
  | { outcome: 'refuse'; refusal: Refusal };

/**
 * A renewal's status (docs/api-decisions.md): a license stored as `expired` becomes `active`,
 * `active` stays `active`, `suspended` stays `suspended` (its dates are extended; lifting a
 * suspension is an admin's separate decision). `revoked` and `cancelled` are terminal: they
 * cannot be renewed (null), a new license is issued instead.
 */
export function statusAfterRenewal(status: LicenseStatus): LicenseStatus | null {
  switch (status) {
    case 'expired':
    case 'active':
      return 'active';
    case 'suspended':
      return 'suspended';
    case 'revoked':
    case 'cancelled':
      return null;
  }
}

/**
 * Spec 3.3: a renewal through checkout (the Renew button) resets limit and type to the plan's,
 * a pending plan change applied first; an automatic gateway renewal leaves them unchanged. Its
 * refusals, in order: INVALID_REQUEST for a new expiry date that is not after `now`, then
 * LICENSE_INVALID for a revoked or cancelled license (`statusAfterRenewal`).
 */
export function decideRenewal({
  license,
  request,
  now,
}: {
  license: RenewableLicense;
  request: { source: RenewalSource; expires_at: Date };
  now: Date;
}): RenewalDecision {
  if (request.expires_at.getTime() <= now.getTime()) {
    return {
      outcome: 'refuse',
      refusal: refusal('INVALID_REQUEST', 'The new expiry date must be in the future.'),
    };
  }
  const status = statusAfterRenewal(license.status);
  if (status === null) {
    return {
      outcome: 'refuse',
      refusal: refusal(
        'LICENSE_INVALID',
        `This license is ${license.status} and cannot be renewed; issue a new license instead.`,
      ),
    };
  }
  return {
    outcome: 'renew',
    status,
    planId: request.source === 'checkout' ? (license.pending_plan_id ?? license.plan_id) : null,
  };
}
