import {
  refusal,
  refused,
  type ActivationType,
  type RenewalBasis,
  type LicenseStatus,
  type Refused,
  type licenseUpdateFields,
} from '../../../libs/contracts/index.js';

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
      ok: true;
      /** The status after the renewal. */
      status: LicenseStatus;
      /**
       * Checkout: the plan whose limit and type the license takes (its pending plan change, else
       * its own plan). Null for a gateway renewal: plan, limit, type and pending change stay.
       */
      planId: number | null;
    }
  | Refused;

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
    return refused('INVALID_REQUEST', 'The new expiry date must be in the future.');
  }
  const status = statusAfterRenewal(license.status);
  if (status === null) {
    return refused(
      'LICENSE_INVALID',
      `This license is ${license.status} and cannot be renewed; issue a new license instead.`,
    );
  }
  return {
    ok: true,
    status,
    planId: request.source === 'checkout' ? (license.pending_plan_id ?? license.plan_id) : null,
  };
}

/**
 * A renewal's new expiry: the date sent, or `extendDays` counted from the plan's renewal basis
 * (docs/api-decisions.md, "Expiry strategies"): `from_expiry`, the old expiry; `from_now`, now;
 * `from_now_if_expired`, now when the old expiry has passed, else the old expiry. A license that
 * does not expire counts from now. INVALID_REQUEST unless exactly one of the two is sent.
 */
export function renewalExpiry({
  request,
  expiresAt,
  basis,
  now,
}: {
  request: { expires_at?: Date; extend_days?: number };
  expiresAt: Date | null;
  basis: RenewalBasis;
  now: Date;
}): { ok: true; expiresAt: Date } | Refused {
  const { expires_at, extend_days } = request;
  if ((expires_at === undefined) === (extend_days === undefined)) {
    return refused('INVALID_REQUEST', 'Send either expires_at or extend_days.');
  }
  if (expires_at !== undefined) return { ok: true, expiresAt: expires_at };
  const expired = expiresAt === null || expiresAt.getTime() <= now.getTime();
  const fromNow =
    basis === 'from_now' || expiresAt === null || (basis === 'from_now_if_expired' && expired);
  const from = fromNow ? now : expiresAt;
  return { ok: true, expiresAt: new Date(from.getTime() + extend_days! * 86_400_000) };
}

// ---- Spec 3.3: plan changes ----

/**
 * What a plan change does to a license (docs/api-decisions.md, "Plan changes"): its type and
 * limit now and after, the activations in use (they all stay), and how many of them the new
 * limit leaves over it (0 for an unlimited plan).
 */
export interface PlanChangeEffects {
  activation_type: ActivationType;
  new_activation_type: ActivationType;
  type_changes: boolean;
  activation_limit: number;
  new_activation_limit: number;
  activations_used: number;
  activations_over_limit: number;
}

export function planChangeEffects(
  license: { activation_type: ActivationType; activation_limit: number; activations_used: number },
  plan: { activation_type: ActivationType; activation_limit: number },
): PlanChangeEffects {
  const over =
    plan.activation_limit === 0 ? 0 : Math.max(0, license.activations_used - plan.activation_limit);
  return {
    activation_type: license.activation_type,
    new_activation_type: plan.activation_type,
    type_changes: license.activation_type !== plan.activation_type,
    activation_limit: license.activation_limit,
    new_activation_limit: plan.activation_limit,
    activations_used: license.activations_used,
    activations_over_limit: over,
  };
}

const activations = (count: number) => `${count} activation${count === 1 ? '' : 's'}`;

/**
 * A plan change that leaves more activations than the new limit (they stay, and new ones are
 * refused until the count is under it, spec 3.3) or changes the activation type (identifiers
 * stored for one type are then judged as another) is made only when confirmed; unconfirmed, it
 * is refused with CONFIRMATION_REQUIRED, whose fields say what it would do.
 */
export function decidePlanChange({
  license,
  plan,
  confirmed,
}: {
  license: { activation_type: ActivationType; activation_limit: number; activations_used: number };
  plan: { id: number; name: string; activation_type: ActivationType; activation_limit: number };
  confirmed: boolean;
}): { ok: true; effects: PlanChangeEffects } | Refused {
  const effects = planChangeEffects(license, plan);
  if (confirmed || (!effects.type_changes && effects.activations_over_limit === 0)) {
    return { ok: true, effects };
  }
  const consequences = [
    ...(effects.activations_over_limit > 0
      ? [
          `leaves ${activations(effects.activations_used)} on a limit of ` +
            `${effects.new_activation_limit}, ${effects.activations_over_limit} over it (they ` +
            'stay; new ones are refused until the count is under the limit)',
        ]
      : []),
    ...(effects.type_changes
      ? [
          `changes the activation type from ${effects.activation_type} to ` +
            `${effects.new_activation_type}`,
        ]
      : []),
  ];
  return {
    ok: false,
    refusal: refusal(
      'CONFIRMATION_REQUIRED',
      `Moving this license to ${plan.name} ${consequences.join(' and ')}; send confirm: true ` +
        'to make the change.',
      { plan_id: plan.id, plan: plan.name, ...effects },
    ),
  };
}

// ---- Spec 3.3: an admin's changes ----

/** What an admin may change of a license (`license.updateLicense`). */
export interface ChangeableLicense {
  status: LicenseStatus;
  activation_limit: number;
  expires_at: Date | null;
}

/** A field of a license an admin changes (libs/contracts/events/domain-events.ts `license.updated`). */
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
export function extendedExpiry(
  expiresAt: Date | null,
  days: number,
): { ok: true; expiresAt: Date } | Refused {
  if (expiresAt === null) {
    return refused(
      'INVALID_REQUEST',
      'This license never expires, so its expiry cannot be extended; set an expiry date instead.',
    );
  }
  return { ok: true, expiresAt: new Date(expiresAt.getTime() + days * DAY_MS) };
}
