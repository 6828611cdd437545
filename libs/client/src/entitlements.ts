import type { LicensingResult } from './result.js';

/** What reports a license's live entitlements: a validation, an activation, a license file. */
export interface WithEntitlements {
  status?: string;
  entitlements?: readonly string[];
}

/**
 * Whether the license an answer reports grants the entitlement `code`: `answer` is what
 * `validate`, `activate`, `heartbeat` or `verifyLicenseFile` returned, or its `data`. Only a
 * successful answer on an active license whose live entitlements (its plan's and its own
 * unexpired ones; signed, like the rest of the answer or the file) hold `code` grants it; a
 * license file checked offline grants what it held when it was issued, until its lease ends.
 */
export function hasEntitlement(
  answer: LicensingResult<WithEntitlements> | WithEntitlements | null | undefined,
  code: string,
): boolean {
  if (!answer) return false;
  const data = 'success' in answer ? answer.data : answer;
  if (!data || (data.status !== undefined && data.status !== 'active')) return false;
  return Array.isArray(data.entitlements) && data.entitlements.includes(code);
}
