import type { LicenseStatus, Refused } from '../../../libs/contracts/index.js';
import { checkLicenseUse } from './activation-rules.js';
import type { ExpiryStanding } from '../lifecycle/expiry-rules.js';
import {
  activationNotFound,
  findActivation,
  type LicenseState,
  type LicensedProduct,
} from '../rules.js';

/**
 * Offline license files (docs/api-decisions.md, "License files"): a file is issued for an
 * identifier activated on a license of one product, and holds for a lease, never past the
 * activation's own lease on a plan with one ("Leases").
 */

/** A lease in whole seconds, as a JWT's `iat` and `exp` name it. */
export interface Lease {
  issuedAt: Date;
  expiresAt: Date;
}

const wholeSecond = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);

/**
 * The lease of a file issued `now` for `ttlSeconds`: from now to the earliest of now + the time to
 * live, the license's own expiry and the end of the activation's lease (when it has one), all in
 * whole seconds (rounded down: a lease never outlasts the license or the activation).
 */
export function licenseFileLease(
  now: Date,
  ttlSeconds: number,
  licenseExpiresAt: Date | null,
  activationLeaseEnd: Date | null = null,
): Lease {
  const issuedAt = wholeSecond(now);
  let expiresAt = new Date(issuedAt.getTime() + ttlSeconds * 1000);
  for (const end of [licenseExpiresAt, activationLeaseEnd]) {
    if (end !== null && end < expiresAt) expiresAt = wholeSecond(end);
  }
  return { issuedAt, expiresAt };
}

export type CheckoutDecision =
  | {
      ok: true;
      /** The activated identifier, as stored. */
      identifier: string;
      /** The license's state as validate reports it (spec 4.2). */
      status: LicenseStatus;
      valid: boolean;
      standing: ExpiryStanding;
      lease: Lease;
      /**
       * On a plan with a lease, the activation's lease end as the checkout renews it (the issue
       * plus the plan's `lease_seconds`), which the file's lease never passes; null without one.
       */
      activationLeaseEnd: Date | null;
    }
  | Refused;

/**
 * A license file is refused as activate refuses (spec 4.1 orders 1 to 4: INVALID_REQUEST,
 * LICENSE_INVALID, PRODUCT_MISMATCH, LICENSE_EXPIRED), then with ACTIVATION_NOT_FOUND when the
 * identifier, normalised for the license's activation type (2.4), is not activated on it. A
 * refusal records nothing: a file is not an activation attempt (2.5).
 */
export function decideCheckout({
  license,
  product,
  request,
  now,
}: {
  license: (LicenseState & { lease_seconds: number | null }) | null;
  product: LicensedProduct | null;
  request: { identifier: string; product_id: number; ttl_seconds: number };
  now: Date;
}): CheckoutDecision {
  const use = checkLicenseUse(license, product, request, now);
  if (!use.ok) return { ok: false, refusal: use.refusal };
  const activation = findActivation(use.license.activations, use.identifier.key);
  if (!activation) return { ok: false, refusal: activationNotFound() };
  const { standing } = use;
  const seconds = license!.lease_seconds;
  const activationLeaseEnd =
    seconds === null ? null : new Date(wholeSecond(now).getTime() + seconds * 1000);
  return {
    ok: true,
    identifier: activation.identifier,
    status: standing.status,
    valid: standing.valid,
    standing,
    // Never past the end of the license's use: its expiry, or its grace (`revoke`); on
    // `maintain` and `restrict` its expiry does not end it.
    lease: licenseFileLease(now, request.ttl_seconds, standing.usableUntil, activationLeaseEnd),
    activationLeaseEnd,
  };
}
