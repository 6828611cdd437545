import { defaultExpiryTerms } from '../../libs/contracts/plan-expiry.js';

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
