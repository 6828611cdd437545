import type { EntitlementStore } from '../entitlements/entitlement-store.js';
import { liveEntitlements } from '../entitlements/entitlement-rules.js';
import type { LicenseRecord } from '../records.js';
import type { PlanLookup } from './plan-lookup.js';

/** A license's plan name and live entitlements, as the answers with a license key report them. */
export type PlanAndEntitlements = (
  license: Pick<LicenseRecord, 'license_key' | 'plan_id' | 'has_own_entitlements'>,
  now: Date,
) => Promise<{ planName: string; entitlements: string[] }>;

/**
 * Reads the plan through the plans' cache (its entitlements apply while the license is on it)
 * and, for a license that was ever given some, its own entitlements at once, so the answer waits
 * for one round trip at most.
 */
export function planAndEntitlements({
  knownPlans,
  entitlements,
}: {
  knownPlans: Pick<PlanLookup, 'planOf'>;
  entitlements: Pick<EntitlementStore, 'forLicense'>;
}): PlanAndEntitlements {
  return async (license, now) => {
    const [plan, grants] = await Promise.all([
      knownPlans.planOf(license.plan_id),
      license.has_own_entitlements ? entitlements.forLicense(license.license_key) : [],
    ]);
    return {
      planName: plan.name,
      entitlements: liveEntitlements({ planCodes: plan.entitlements, grants, now }),
    };
  };
}
