import { refused, type Refused } from '../../../libs/contracts/index.js';
import type { CustomerRecord, PlanRecord, TrialRecord } from '../records.js';
import {
  normaliseOrRefuse,
  storedCustomer,
  type LicensedProduct,
  type NormalisedIdentifier,
} from '../rules.js';

/**
 * The rules of trials (docs/api-decisions.md, "Trials"): which product offers one and on which
 * plan, what the trial license is issued with, and when a paid license ends a trial.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** A trial asked for: its product and its plan as read (null when missing), and what was sent. */
export interface TrialAsked {
  product: LicensedProduct | null;
  plan: PlanRecord | null;
  identifier: string;
  email: string | null;
  now: Date;
}

export type TrialDecision =
  | {
      ok: true;
      plan: PlanRecord;
      identifier: NormalisedIdentifier;
      customer: CustomerRecord | null;
      expiresAt: Date;
    }
  | Refused;

/** When a trial started at `now` on a plan of `days` ends. */
export function trialExpiry(now: Date, days: number): Date {
  return new Date(now.getTime() + days * DAY_MS);
}

/**
 * Whether a trial may be issued, in this order: a product that exists and names a trial plan that
 * exists and has a trial length (else PRODUCT_MISMATCH, as a key that does not cover a product is
 * refused); the identifier, normalised for the plan's activation type (spec 2.4; INVALID_REQUEST
 * when it normalises to nothing); the buyer's address, when sent (INVALID_REQUEST).
 */
export function decideTrial({ product, plan, identifier, email, now }: TrialAsked): TrialDecision {
  const planId = product?.trial_plan_id ?? null;
  if (!product || planId === null) {
    return refused('PRODUCT_MISMATCH', 'This product offers no trial.');
  }
  if (!plan || plan.id !== planId || plan.trial_days === null) {
    return refused('PRODUCT_MISMATCH', 'This product offers no trial.');
  }
  const normalised = normaliseOrRefuse(plan.activation_type, identifier);
  if (!normalised.ok) return normalised;
  let customer: CustomerRecord | null = null;
  if (email !== null) {
    const stored = storedCustomer({ email, name: null });
    if (!stored.ok)
      return refused('INVALID_REQUEST', stored.refusal.message.replace('customer.', ''));
    customer = stored.customer;
  }
  return {
    ok: true,
    plan,
    identifier: normalised.identifier,
    customer,
    expiresAt: trialExpiry(now, plan.trial_days),
  };
}

/** One trial per identifier and product, ever: the second is refused. */
export function trialAlreadyUsed(): Refused {
  return refused(
    'TRIAL_ALREADY_USED',
    'A trial of this product was already issued for this identifier.',
  );
}

/**
 * A paid license activated on a trial's identifier ends the trial: any license but the trial's
 * own, and not another trial license, on a trial not yet converted.
 */
export function endsTrial(
  trial: Pick<TrialRecord, 'license_key' | 'converted_at'>,
  license: { license_key: string; isTrial: boolean },
): boolean {
  return (
    trial.converted_at === null && !license.isTrial && trial.license_key !== license.license_key
  );
}

/** The products a license's activation may end a trial of: its product, and a bundle's items. */
export function trialProductsOf(product: LicensedProduct): number[] {
  return [product.id, ...product.bundle_items];
}
