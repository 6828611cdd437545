import { refused, type ErrorCode, type Refused } from '../errors.js';
import type { LicenseCoverage } from '../licenses/license-operations.js';
import type { DownloadAccess } from '../shared.js';

/**
 * Spec 4.5's access table, which both the download service (serving a file) and the update
 * catalog (a feed that lists a download URL, or refuses a key the way an updater expects) apply.
 */

/** The 403 refusals of spec 4.5's access table (below), as every route that applies it lists them. */
export const forbiddenDownloadCodes = [
  'LICENSE_INVALID',
  'PRODUCT_MISMATCH',
  'LICENSE_EXPIRED',
  'ACTIVATION_REQUIRED',
  'DOWNLOAD_NOT_AVAILABLE',
  'ENTITLEMENT_REQUIRED',
] as const satisfies readonly ErrorCode[];

export interface AccessRequest {
  /** The product's Download API Access (spec 2.7). */
  access: DownloadAccess;
  /** Whether a license key was sent. */
  keySent: boolean;
  /** Whether an identifier was sent. */
  identifierSent: boolean;
  /** `license.coverage` for the key and product; null when no key was sent. */
  coverage: LicenseCoverage | null;
}

/**
 * Allowed, with the plan whose restricted files the caller may get (null: all-plans files) and,
 * for an expired license its plan keeps, the time by which the versions it gets were released
 * (`updatesUntil`, null: any); or refused with the error code the client gets (and the log's
 * reason).
 */
export type AccessDecision =
  { ok: true; planId: number | null; updatesUntil: string | null } | Refused;

/**
 * Spec 4.5, every rule, checked in this order (docs/api-decisions.md):
 * Account only refuses everything; Public needs nothing (a covering key only scopes the file to
 * its plan, as in the update check); License key and License key + activated identifier need a
 * key that exists and is active (LICENSE_INVALID), covers the product directly or through its
 * bundle (PRODUCT_MISMATCH), has not expired (LICENSE_EXPIRED); then an identifier when the
 * product demands one (ACTIVATION_REQUIRED), and any identifier sent must be activated on the
 * license after normalisation (ACTIVATION_NOT_FOUND). An expired license whose plan's expiry
 * strategy keeps it (`maintain`, `restrict`: coverage's `updates_until`, docs/api-decisions.md
 * "Expiry strategies") is not refused LICENSE_EXPIRED: it gets the versions released by then.
 */
export function decideDownloadAccess(request: AccessRequest): AccessDecision {
  const { access, coverage } = request;
  if (access === 'account') {
    return refused(
      'DOWNLOAD_NOT_AVAILABLE',
      "This product's files are available only from the customer's account.",
    );
  }
  if (access === 'public') {
    const covering = coverage?.covers ? coverage : null;
    return {
      ok: true,
      planId: covering ? covering.plan_id : null,
      updatesUntil: covering ? covering.updates_until : null,
    };
  }
  if (!request.keySent || coverage === null) {
    return refused('LICENSE_INVALID', 'This download needs a license key.');
  }
  if (!coverage.found || coverage.status === null) {
    return refused('LICENSE_INVALID', 'The license key is not valid.');
  }
  if (coverage.status !== 'active' && coverage.status !== 'expired') {
    return refused('LICENSE_INVALID', `The license is ${coverage.status}.`);
  }
  if (!coverage.covers) {
    return refused('PRODUCT_MISMATCH', 'The license key is not for this product.');
  }
  if (coverage.status === 'expired' && coverage.updates_until === null) {
    return refused('LICENSE_EXPIRED', 'The license has expired.');
  }
  if (access === 'activated_identifier' && !request.identifierSent) {
    return refused(
      'ACTIVATION_REQUIRED',
      'This download needs an identifier that is activated on the license.',
    );
  }
  if (request.identifierSent && coverage.identifier_activated !== true) {
    return refused('ACTIVATION_NOT_FOUND', 'The identifier is not activated on this license.');
  }
  return { ok: true, planId: coverage.plan_id, updatesUntil: coverage.updates_until };
}

/** The entitlements a download decision goes by: a covering key's live ones, else none. */
export function downloadEntitlements(coverage: LicenseCoverage | null): string[] {
  return coverage?.covers ? coverage.entitlements : [];
}

/**
 * After the access table: a file whose version or itself requires an entitlement the key lacks
 * is refused with ENTITLEMENT_REQUIRED (docs/api-decisions.md, "Entitlements"); without a key,
 * every such file is.
 */
export function decideEntitlementAccess(
  selection: {
    version: { requires_entitlement: string | null };
    file: { requires_entitlement: string | null };
  },
  entitlements: readonly string[],
): { ok: true } | Refused {
  for (const required of [
    selection.version.requires_entitlement,
    selection.file.requires_entitlement,
  ]) {
    if (required !== null && !entitlements.includes(required)) {
      return refused('ENTITLEMENT_REQUIRED', `This file needs the entitlement ${required}.`);
    }
  }
  return { ok: true };
}
