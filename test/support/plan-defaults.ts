import { defaultExpiryTerms } from '../../libs/contracts/plans/plan-expiry.js';
import { planNameKey } from '../../services/license/rules.js';

/**
 * What a plan stored before its later settings existed answers for them: the defaults that keep
 * it on the spec's terms (no usage counted, no trial, no entitlement, revoke at expiry).
 */
export const LATER_PLAN_SETTINGS = {
  max_uses: null,
  uses_reset: 'never',
  trial_days: null,
  entitlements: [],
  ...defaultExpiryTerms,
} as const;

/**
 * A plan document as an older version stored it, before any of the later settings: what the
 * tests of those settings' defaults put in the license database.
 */
export function oldPlanDocument(id: number, name: string) {
  return {
    _id: id,
    name,
    name_key: planNameKey(name),
    activation_type: 'domain',
    activation_limit: 2,
    lease_seconds: null,
    exempt_identifiers: [],
    exempt_limit: 3,
    created_at: new Date('2025-01-01T00:00:00.000Z'),
  };
}
