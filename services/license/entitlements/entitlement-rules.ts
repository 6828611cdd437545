import { refusal, type Refusal } from '../../../libs/contracts/index.js';
import type { LicenseEntitlementRecord } from '../records.js';

/**
 * Entitlements (docs/api-decisions.md, "Entitlements"): what a license grants beyond its plan's
 * name. Pure: the stores and the plan cache give the plan's codes and the license's own.
 */

/** A license's own entitlement is live until its expiry (null: never), exclusive. */
export function isLive(grant: Pick<LicenseEntitlementRecord, 'expires_at'>, now: Date): boolean {
  return grant.expires_at === null || grant.expires_at.getTime() > now.getTime();
}

/**
 * The live entitlements of a license at `now`: its plan's, for as long as it is on the plan,
 * and its own unexpired ones; sorted, each once.
 */
export function liveEntitlements({
  planCodes,
  grants,
  now,
}: {
  planCodes: readonly string[];
  grants: readonly Pick<LicenseEntitlementRecord, 'code' | 'expires_at'>[];
  now: Date;
}): string[] {
  const live = new Set(planCodes);
  for (const grant of grants) if (isLive(grant, now)) live.add(grant.code);
  return [...live].sort();
}

/** Of the codes asked about, those not among the live ones: sorted, each once. */
export function missingEntitlements(live: readonly string[], asked: readonly string[]): string[] {
  const granted = new Set(live);
  return [...new Set(asked.filter((code) => !granted.has(code)))].sort();
}

/** The codes of a plan's set that are not defined, in the order given. */
export function undefinedCodes(codes: readonly string[], defined: readonly string[]): string[] {
  const known = new Set(defined);
  return codes.filter((code) => !known.has(code));
}

export const unknownEntitlement = (code: string): Refusal =>
  refusal('NOT_FOUND', `Entitlement ${code} does not exist.`);

/** Codes given to grant (a plan's set, or a license's own) must be defined first. */
export function undefinedEntitlements(codes: readonly string[]): Refusal {
  return refusal(
    'INVALID_REQUEST',
    `entitlements: not defined: ${codes.join(', ')}. Create them first (POST /admin/v1/entitlements).`,
  );
}

/** An entitlement is deleted only once no plan and no license grants it. */
export function entitlementInUse(
  code: string,
  use: { plans: number; licenses: number },
): Refusal | null {
  if (use.plans === 0 && use.licenses === 0) return null;
  return refusal(
    'ENTITLEMENT_IN_USE',
    `Entitlement ${code} is granted by ${use.plans} plan(s) and ${use.licenses} license(s); ` +
      'remove it from them first.',
    use,
  );
}
