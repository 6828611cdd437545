import {
  refusal,
  type LicenseStatus,
  type Refusal,
  type licenseUpdateFields,
} from '../../libs/contracts/index.js';

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

// ---- Spec 3.3: an admin's changes ----

/** What an admin may change of a license (`license.updateLicense`). */
export interface ChangeableLicense {
  status: LicenseStatus;
  activation_limit: number;
  expires_at: Date | null;
}

/** A field of a license an admin changes (libs/contracts/webhooks.ts `license.updated`). */
export type LicenseUpdateField = (typeof licenseUpdateFields)[number];

/** The fields an admin's update changed, and their values before it. */
export interface LicenseChangeSet {
  changed: LicenseUpdateField[];
  previous: Partial<ChangeableLicense>;
}

/**
 * What an update changed of a license: the fields whose value differs after it, in the order of
 * `licenseUpdateFields`, with their values before. Null when it changed none, such as a field set
 * to the value it had (an update that changes nothing is no event).
 */
export function licenseChanges(
  before: ChangeableLicense,
  after: ChangeableLicense,
): LicenseChangeSet | null {
  const changed: LicenseUpdateField[] = [];
  const previous: Partial<ChangeableLicense> = {};
  if (before.status !== after.status) {
    changed.push('status');
    previous.status = before.status;
  }
  if (before.activation_limit !== after.activation_limit) {
    changed.push('activation_limit');
    previous.activation_limit = before.activation_limit;
  }
  if (before.expires_at?.getTime() !== after.expires_at?.getTime()) {
    changed.push('expires_at');
    previous.expires_at = before.expires_at;
  }
  return changed.length === 0 ? null : { changed, previous };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * An admin's extension of a license's expiry by whole days (a bulk change): the expiry it has,
 * later by that many days, whether it is ahead or past (the status is left alone, as a PATCH of
 * the date leaves it). A license that never expires has nothing to extend: refused.
 */
export function extendedExpiry(expiresAt: Date | null, days: number): Date | Refusal {
  if (expiresAt === null) {
    return refusal(
      'INVALID_REQUEST',
      'This license never expires, so its expiry cannot be extended; set an expiry date instead.',
    );
  }
  return new Date(expiresAt.getTime() + days * DAY_MS);
}
