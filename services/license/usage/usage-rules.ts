import {
  refusal,
  type LicenseUsage,
  type Refused,
  type Refusal,
  type UsesReset,
} from '../../../libs/contracts/index.js';
import {
  activationNotFound,
  coversProduct,
  findActivation,
  isPastExpiry,
  normaliseOrRefuse,
  productMismatch,
  unknownKey,
  type LicenseState,
  type LicensedProduct,
} from '../rules.js';

/**
 * Usage counters (docs/api-decisions.md, "Usage counters"): a plan with `max_uses` lets each of
 * its licenses record that many uses per period; the period is a UTC day, a UTC month, or, for a
 * counter that never resets, one period that started at the epoch.
 */

/** The start of the one period of a counter that never resets. */
export const NEVER_RESETS = new Date(0);

/** The start of the period `now` is in. */
export function usagePeriodStart(reset: UsesReset, now: Date): Date {
  switch (reset) {
    case 'never':
      return NEVER_RESETS;
    case 'daily':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    case 'monthly':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  }
}

/** When the period `now` is in ends and the counter starts again from 0; null for `never`. */
export function usageResetsAt(reset: UsesReset, now: Date): Date | null {
  switch (reset) {
    case 'never':
      return null;
    case 'daily':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    case 'monthly':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  }
}

/** A license's counter as stored: its uses in the period that started at `period_start`. */
export interface StoredUsage {
  uses: number;
  /** Null for a license that never recorded a use. */
  period_start: Date | null;
}

/** The uses of the current period (which started at `periodStart`): 0 once a new one began. */
export function usesInPeriod(stored: StoredUsage, periodStart: Date): number {
  return stored.period_start?.getTime() === periodStart.getTime() ? stored.uses : 0;
}

/** A license's counter as the admin and the portal show it, at `now`, under its plan as it is. */
export function usageView(
  stored: StoredUsage | null,
  plan: { max_uses: number | null; uses_reset: UsesReset },
  now: Date,
): LicenseUsage {
  const resetsAt = usageResetsAt(plan.uses_reset, now);
  return {
    uses: stored ? usesInPeriod(stored, usagePeriodStart(plan.uses_reset, now)) : 0,
    max_uses: plan.max_uses,
    uses_reset: plan.uses_reset,
    resets_at: resetsAt && resetsAt.toISOString(),
  };
}

export function usageLimitReached(uses: number, maxUses: number): Refusal {
  return refusal('USAGE_LIMIT_REACHED', 'This license has recorded all the uses its plan allows.', {
    uses,
    max_uses: maxUses,
  });
}

export function noUsageCounted(): Refusal {
  return refusal('INVALID_REQUEST', "This license's plan counts no usage.");
}

export type UsageCheck<L> = { ok: true; license: L; maxUses: number; reset: UsesReset } | Refused;

/**
 * Whether a license may record a use now: refused as activate refuses (spec 4.1 orders 2 to 4:
 * LICENSE_INVALID, PRODUCT_MISMATCH, LICENSE_EXPIRED; an identifier that normalises to nothing
 * is INVALID_REQUEST, as in activate, once the license's type is known), then
 * ACTIVATION_NOT_FOUND for an identifier sent and not activated on it, then INVALID_REQUEST when
 * its plan counts no usage. Whether the cap allows the increment is decided by the write itself.
 */
export function checkUsage<L extends LicenseState>({
  license,
  product,
  plan,
  request,
  now,
}: {
  license: L | null;
  product: LicensedProduct | null;
  plan: { max_uses: number | null; uses_reset: UsesReset } | null;
  request: { identifier: string | null; product_id: number };
  now: Date;
}): UsageCheck<L> {
  if (license === null) return { ok: false, refusal: unknownKey() };
  const sent =
    request.identifier === null
      ? null
      : normaliseOrRefuse(license.activation_type, request.identifier);
  if (sent && !sent.ok) return { ok: false, refusal: sent.refusal };
  if (license.status !== 'active') {
    return { ok: false, refusal: refusal('LICENSE_INVALID', `This license is ${license.status}.`) };
  }
  if (product !== null && !coversProduct(product, request.product_id)) {
    return { ok: false, refusal: productMismatch() };
  }
  if (isPastExpiry(license, now)) {
    return { ok: false, refusal: refusal('LICENSE_EXPIRED', 'This license has expired.') };
  }
  if (sent && !findActivation(license.activations, sent.identifier.key)) {
    return { ok: false, refusal: activationNotFound() };
  }
  if (plan === null || plan.max_uses === null) return { ok: false, refusal: noUsageCounted() };
  return { ok: true, license, maxUses: plan.max_uses, reset: plan.uses_reset };
}

/** What an increment the counter's conditional write did not take is. */
export type UncountedDecision =
  | { outcome: 'repeated'; uses: number }
  | { outcome: 'limit'; uses: number; refusal: Refusal }
  | { outcome: 'retry' };

/**
 * An increment not written, decided on the counter read after: its idempotency key was counted
 * already (answered with the uses as they are now), or the period's uses leave no room for it
 * (USAGE_LIMIT_REACHED), or the counter changed between the write and the read (written again).
 */
export function decideUncounted({
  stored,
  seen,
  periodStart,
  increment,
  maxUses,
}: {
  stored: StoredUsage;
  seen: boolean;
  periodStart: Date;
  increment: number;
  maxUses: number;
}): UncountedDecision {
  const uses = usesInPeriod(stored, periodStart);
  if (seen) return { outcome: 'repeated', uses };
  if (uses + increment > maxUses) {
    return { outcome: 'limit', uses, refusal: usageLimitReached(uses, maxUses) };
  }
  return { outcome: 'retry' };
}
