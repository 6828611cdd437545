/**
 * A plan's expiry terms as the plan form holds them, what it sends of them, and what each one
 * does to a customer, in the console's words (docs/api-decisions.md, "Expiry strategies").
 */
import type { ExpiryStrategy, Plan, RenewalBasis } from '../../../../../libs/contracts/index.js';

export interface ExpiryTermsDraft {
  strategy: ExpiryStrategy;
  /** Whole days, as typed. */
  graceDays: string;
  renewalBasis: RenewalBasis;
}

export type ExpiryTerms = Pick<Plan, 'expiry_strategy' | 'grace_days' | 'renewal_basis'>;

export const NEW_EXPIRY_TERMS: ExpiryTermsDraft = {
  strategy: 'revoke',
  graceDays: '0',
  renewalBasis: 'from_expiry',
};

export const MAX_GRACE_DAYS = 3650;

export const EXPIRY_STRATEGY_WORDS: Record<ExpiryStrategy, string> = {
  revoke: 'Revoke',
  maintain: 'Maintain',
  restrict: 'Restrict',
};

/** What each strategy does to a customer once the license has expired (and its grace ended). */
export const EXPIRY_STRATEGY_EFFECTS: Record<ExpiryStrategy, string> = {
  revoke:
    'Once expired, the license is no longer valid: new activations and downloads are refused ' +
    'until it is renewed.',
  maintain:
    'Once expired, the software keeps working and can still be activated, but it gets only the ' +
    'versions released up to the expiry date; newer ones need a renewal.',
  restrict:
    'Once expired, the sites or devices already activated keep working with the versions ' +
    'released up to the expiry date; new activations are refused until it is renewed.',
};

export const RENEWAL_BASIS_WORDS: Record<RenewalBasis, string> = {
  from_expiry: 'From the old expiry date',
  from_now: 'From the day of renewal',
  from_now_if_expired: 'From the day of renewal if expired, else from the old expiry',
};

export function expiryDraftOf(plan: ExpiryTerms): ExpiryTermsDraft {
  return {
    strategy: plan.expiry_strategy,
    graceDays: String(plan.grace_days),
    renewalBasis: plan.renewal_basis,
  };
}

export const isGraceDays = (text: string) =>
  /^\d+$/.test(text.trim()) && Number(text) <= MAX_GRACE_DAYS;

export function expiryBody(draft: ExpiryTermsDraft): ExpiryTerms {
  return {
    expiry_strategy: draft.strategy,
    grace_days: Number(draft.graceDays),
    renewal_basis: draft.renewalBasis,
  };
}
