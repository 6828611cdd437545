import {
  defaultExpiryTerms,
  type ExpiryTerms,
  type LicenseStatus,
} from '../../../libs/contracts/index.js';

/**
 * A plan's expiry terms (docs/api-decisions.md, "Expiry strategies"): what a license keeps past
 * its expiry date. `revoke` with no grace is spec 3.1 and 4.5 as written; the plan's terms are
 * read live, per request, never copied into its licenses.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the expiry rules need to know about a license; `expiry` absent: the plan's defaults. */
export interface ExpiringLicense {
  status: LicenseStatus;
  expires_at: Date | null;
  expiry?: ExpiryTerms;
}

/**
 * How a license stands against its expiry at `now`:
 * - `status` as reported (spec 3.1: `expired` once past the expiry date, here past the grace too),
 *   `valid` as validate answers it;
 * - `use`: whether it may be activated and checked out (`usable`), only for identifiers already
 *   activated (`existing-only`, `restrict` past the grace), refused with LICENSE_EXPIRED
 *   (`expired`, an active license past its date on `revoke`) or with LICENSE_INVALID (`inactive`,
 *   any other stored status, spec 4.1 order 2);
 * - `usableUntil`: when it stops being usable (a license file's lease ends by then), null when
 *   never by its date.
 */
export interface ExpiryStanding {
  status: LicenseStatus;
  valid: boolean;
  use: 'usable' | 'existing-only' | 'expired' | 'inactive';
  in_grace: boolean;
  grace_ends_at: Date | null;
  updates_until: Date | null;
  /** Past expiry and grace on `maintain`/`restrict`: only versions released by `updates_until`. */
  limitsVersions: boolean;
  usableUntil: Date | null;
}

export function termsOf(license: Pick<ExpiringLicense, 'expiry'>): ExpiryTerms {
  return license.expiry ?? defaultExpiryTerms;
}

/** The expiry plus the plan's grace days; null without an expiry or without grace days. */
export function graceEndsAt(expiresAt: Date | null, graceDays: number): Date | null {
  return expiresAt === null || graceDays === 0
    ? null
    : new Date(expiresAt.getTime() + graceDays * DAY_MS);
}

/** When a license stops answering as active: its expiry, or the end of its grace. */
export function activeUntil(expiresAt: Date | null, graceDays: number): Date | null {
  return graceEndsAt(expiresAt, graceDays) ?? expiresAt;
}

const reached = (date: Date | null, now: Date) => date !== null && date.getTime() <= now.getTime();

/**
 * Spec 3.1 and 4.2 under the plan's terms. An active license before its expiry, or in its grace,
 * answers as active. Past them (or stored `expired` by the scheduled task, which runs at the end
 * of the grace): `revoke` reports `expired` and not valid, as the spec says; `maintain` and
 * `restrict` report `expired` and valid, limited to the versions released by the expiry. A
 * license stored `expired` on `revoke` keeps the spec's LICENSE_INVALID for activate.
 */
export function expiryStanding(license: ExpiringLicense, now: Date): ExpiryStanding {
  const terms = termsOf(license);
  const keeps = terms.expiry_strategy !== 'revoke' && license.expires_at !== null;
  const grace_ends_at = graceEndsAt(license.expires_at, terms.grace_days);
  const dated = license.status === 'active' || license.status === 'expired';
  const base = {
    in_grace: false,
    grace_ends_at: dated ? grace_ends_at : null,
    updates_until: dated && keeps ? license.expires_at : null,
    limitsVersions: false,
    usableUntil: keeps ? null : activeUntil(license.expires_at, terms.grace_days),
  };
  if (!dated) return { ...base, status: license.status, valid: false, use: 'inactive' };
  const pastEnd =
    license.status === 'expired' || reached(activeUntil(license.expires_at, terms.grace_days), now);
  if (!pastEnd) {
    const in_grace = reached(license.expires_at, now);
    return { ...base, in_grace, status: 'active', valid: true, use: 'usable' };
  }
  if (!keeps) {
    const use = license.status === 'expired' ? 'inactive' : 'expired';
    return { ...base, status: 'expired', valid: false, use };
  }
  const use = terms.expiry_strategy === 'restrict' ? 'existing-only' : 'usable';
  return { ...base, status: 'expired', valid: true, use, limitsVersions: true };
}

/** The expiry terms of a plan, as a license's rules read them. */
export function expiryTermsOf(plan: ExpiryTerms): ExpiryTerms {
  return {
    expiry_strategy: plan.expiry_strategy,
    grace_days: plan.grace_days,
    renewal_basis: plan.renewal_basis,
  };
}
