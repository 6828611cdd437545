import { refused, type Refused } from '../../../libs/contracts/index.js';
import { withoutInvisible } from '../../../libs/identifier/index.js';
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

/** Dash punctuation (Pd: hyphen U+2010, en and em dashes...) and the minus sign, all one `-`. */
const DASHES = /[\p{Pd}\u2212]/gu;

/**
 * The form in which identifiers are compared for "one trial per identifier and product, ever":
 * two spellings a person reads as the same identifier are one. Invisible characters are removed,
 * compatibility forms folded (NFKC: full-width `ＡＢＣ１` is `ABC1`), every dash is `-`, and
 * letter case is folded (spec 2.4). Only the trials compare this way; the identifier is stored
 * and activated as sent, normalised as spec 2.4 says.
 */
export function trialIdentifierKey(identifier: string): string {
  return withoutInvisible(withoutInvisible(identifier).normalize('NFKC'))
    .replace(DASHES, '-')
    .toLowerCase()
    .normalize('NFKC');
}

/**
 * What the unique index of the trials holds: the product and the identifier's comparison form, in
 * one field, so that a trial stored before this key existed, and left without one, is not in it.
 */
export function trialKey(productId: number, identifier: string): string {
  return `${productId}:${trialIdentifierKey(identifier)}`;
}

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
      /** What the one-trial rule holds unique (`trialKey`). */
      trialKey: string;
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
 * when it normalises to nothing, or is only invisible characters, which would make every such
 * identifier one); the buyer's address, when sent (INVALID_REQUEST).
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
  if (trialIdentifierKey(normalised.identifier.key).trim() === '') {
    return refused('INVALID_REQUEST', 'The identifier is only invisible characters.');
  }
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
    trialKey: trialKey(product.id, normalised.identifier.key),
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
