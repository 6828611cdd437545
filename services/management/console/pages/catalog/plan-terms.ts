/**
 * A plan's lease and exempt settings as the plan form holds them, as typed, and what the form
 * sends of them (docs/api-decisions.md, "Leases", "Exempt identifiers").
 */
import type { Plan } from '../../../../../libs/contracts/index.js';
import {
  DEFAULT_EXEMPT_LIMIT,
  MAX_EXEMPT_LIMIT,
  MAX_LEASE_SECONDS,
} from '../../../../../libs/contracts/bounds.js';

export interface PlanTermsDraft {
  /** Seconds; empty for no lease. */
  lease: string;
  /** One pattern per line. */
  exemptIdentifiers: string;
  exemptLimit: string;
  /** Days; empty for no trials (docs/api-decisions.md, "Trials"). */
  trialDays: string;
}

export type PlanTerms = Pick<
  Plan,
  'lease_seconds' | 'exempt_identifiers' | 'exempt_limit' | 'trial_days'
>;

export const NEW_PLAN_TERMS: PlanTermsDraft = {
  lease: '',
  exemptIdentifiers: '',
  exemptLimit: String(DEFAULT_EXEMPT_LIMIT),
  trialDays: '',
};

export function termsDraftOf(plan: PlanTerms): PlanTermsDraft {
  return {
    lease: plan.lease_seconds === null ? '' : String(plan.lease_seconds),
    exemptIdentifiers: plan.exempt_identifiers.join('\n'),
    exemptLimit: String(plan.exempt_limit),
    trialDays: plan.trial_days === null ? '' : String(plan.trial_days),
  };
}

const wholeNumberIn = (text: string, min: number, max: number) => {
  if (!/^\d+$/.test(text.trim())) return false;
  const value = Number(text);
  return value >= min && value <= max;
};

export const isLease = (text: string) =>
  text.trim() === '' || wholeNumberIn(text, 1, MAX_LEASE_SECONDS);

export const isExemptLimit = (text: string) => wholeNumberIn(text, 0, MAX_EXEMPT_LIMIT);

/** A trial length: 1 to 365 days, or empty for none. */
export const isTrialDays = (text: string) => text.trim() === '' || wholeNumberIn(text, 1, 365);

/**
 * What the API is sent: the patterns one a line, blank lines dropped. The API judges them (it
 * stores them lowercased, and names the one it refuses and why), so the rules live in one place.
 */
export function termsBody(draft: PlanTermsDraft): PlanTerms {
  return {
    lease_seconds: draft.lease.trim() === '' ? null : Number(draft.lease),
    exempt_identifiers: draft.exemptIdentifiers
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== ''),
    exempt_limit: Number(draft.exemptLimit),
    trial_days: draft.trialDays.trim() === '' ? null : Number(draft.trialDays),
  };
}
