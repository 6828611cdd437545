import type {
  ActivationResult,
  Checkout,
  Entitlement,
  LicenseEntitlement,
  LicenseCoverage,
  LicenseStatus,
  Plan,
  ValidationResult,
} from '../../libs/contracts/index.js';
import type { ValidationDecision } from './activations/activation-rules.js';
import { missingEntitlements } from './entitlements/entitlement-rules.js';
import type { CheckoutDecision } from './activations/checkout-rules.js';
import {
  expiryStanding,
  type ExpiringLicense,
  type ExpiryStanding,
} from './lifecycle/expiry-rules.js';
import { coversProduct, type LicensedProduct } from './rules.js';
import type {
  EntitlementRecord,
  LicenseEntitlementRecord,
  LicenseRecord,
  PlanRecord,
} from './records.js';

/** Response shapes built from stored records: the spec's field names and types. */

/** A stored time as the answers write it, or null. */
export const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** What the plan's expiry terms give the license now (docs/api-decisions.md, "Expiry strategies"). */
function standingView(standing: ExpiryStanding) {
  return {
    in_grace: standing.in_grace,
    grace_ends_at: iso(standing.grace_ends_at),
    updates_until: iso(standing.updates_until),
  };
}

export function planView(plan: PlanRecord): Plan {
  return {
    id: plan.id,
    name: plan.name,
    activation_type: plan.activation_type,
    activation_limit: plan.activation_limit,
    lease_seconds: plan.lease_seconds,
    exempt_identifiers: [...plan.exempt_identifiers],
    exempt_limit: plan.exempt_limit,
    max_uses: plan.max_uses,
    uses_reset: plan.uses_reset,
    trial_days: plan.trial_days,
    entitlements: [...plan.entitlements],
    expiry_strategy: plan.expiry_strategy,
    grace_days: plan.grace_days,
    renewal_basis: plan.renewal_basis,
    created_at: plan.created_at.toISOString(),
  };
}

export function entitlementView(entitlement: EntitlementRecord): Entitlement {
  return {
    code: entitlement.code,
    name: entitlement.name,
    created_at: entitlement.created_at.toISOString(),
  };
}

export function licenseEntitlementView(grant: LicenseEntitlementRecord): LicenseEntitlement {
  return {
    code: grant.code,
    expires_at: iso(grant.expires_at),
    granted_at: grant.granted_at.toISOString(),
  };
}

/**
 * What validate says of the entitlements asked about (docs/api-decisions.md, "Entitlements"):
 * those missing make the answer `valid: false`, with the code ENTITLEMENTS_MISSING.
 */
function entitlementAnswer(
  live: string[],
  asked: readonly string[],
): Pick<ValidationResult, 'entitlements' | 'entitlements_missing' | 'code'> {
  const missing = missingEntitlements(live, asked);
  return {
    entitlements: live,
    entitlements_missing: missing,
    code: missing.length > 0 ? 'ENTITLEMENTS_MISSING' : null,
  };
}

/** Spec 4.1 success payload (deactivate answers with the same shape). */
export function activationResultView({
  license,
  product,
  planName,
  identifier,
  leaseExpiresAt,
  entitlements,
  now,
}: {
  /** With its plan's expiry terms. */
  license: LicenseRecord & ExpiringLicense;
  product: LicensedProduct;
  planName: string;
  identifier: string;
  /** The activation's lease end; null without a lease (and for deactivate). */
  leaseExpiresAt: Date | null;
  /** Its live entitlements (entitlement-rules.ts `liveEntitlements`). */
  entitlements: string[];
  now: Date;
}): ActivationResult {
  const standing = expiryStanding(license, now);
  return {
    status: standing.status,
    license_key: license.license_key,
    product: product.title,
    plan: planName,
    activation_type: license.activation_type,
    activation_limit: license.activation_limit,
    activations_used: license.activations_used,
    expires_at: iso(license.expires_at),
    identifier,
    lease_expires_at: iso(leaseExpiresAt),
    entitlements,
    ...standingView(standing),
  };
}

/** Spec 4.2: a known license as validate reports it; a license file holds the same. */
function reportedLicense({
  license,
  product,
  planName,
  report,
  entitlements,
}: {
  license: LicenseRecord;
  product: LicensedProduct;
  planName: string;
  report: { valid: boolean; status: LicenseStatus; standing: ExpiryStanding };
  /** Its live entitlements (entitlement-rules.ts `liveEntitlements`). */
  entitlements: string[];
}): Omit<
  ValidationResult,
  'identifier_activated' | 'lease_expires_at' | 'entitlements_missing' | 'code'
> {
  return {
    valid: report.valid,
    status: report.status,
    license_key: license.license_key,
    product: product.title,
    plan: planName,
    activation_type: license.activation_type,
    activation_limit: license.activation_limit,
    activations_used: license.activations_used,
    expires_at: iso(license.expires_at),
    entitlements,
    ...standingView(report.standing),
  };
}

/** Spec 4.2 success payload for a known key. */
export function validationView(
  reported: Parameters<typeof reportedLicense>[0] & {
    report: Extract<ValidationDecision, { outcome: 'report' }>;
    /** The lease this validation renewed; null when none was. */
    leaseExpiresAt: Date | null;
    /** The entitlements the request asked about. */
    asked: readonly string[];
  },
): ValidationResult {
  const answer = entitlementAnswer(reported.entitlements, reported.asked);
  const license = reportedLicense(reported);
  return {
    ...license,
    valid: license.valid && answer.code === null,
    identifier_activated: reported.report.identifierActivated,
    lease_expires_at: iso(reported.leaseExpiresAt),
    ...answer,
  };
}

/** What a license file holds (docs/api-decisions.md, "License files"), for the gateway to sign. */
export function checkoutView({
  license,
  product,
  planName,
  productId,
  issue,
  entitlements,
}: {
  license: LicenseRecord;
  product: LicensedProduct;
  planName: string;
  productId: number;
  issue: Extract<CheckoutDecision, { ok: true }>;
  entitlements: string[];
}): Checkout {
  return {
    license: reportedLicense({ license, product, planName, report: issue, entitlements }),
    identifier: issue.identifier,
    product_id: productId,
    issued_at: issue.lease.issuedAt.toISOString(),
    expires_at: issue.lease.expiresAt.toISOString(),
  };
}

/** Spec 4.2 rule 1: the answer for an unknown key, which grants no entitlement. */
export function unknownKeyView(licenseKey: string, asked: readonly string[]): ValidationResult {
  return {
    valid: false,
    status: 'invalid',
    license_key: licenseKey,
    product: null,
    plan: null,
    activation_type: null,
    activation_limit: 0,
    activations_used: 0,
    expires_at: null,
    identifier_activated: false,
    lease_expires_at: null,
    ...entitlementAnswer([], asked),
    in_grace: false,
    grace_ends_at: null,
    updates_until: null,
  };
}

/** Spec 4.4 and 4.5: what the update check and downloads learn of a key for one product. */
export function coverageView({
  license,
  product,
  productId,
  identifierActivated,
  identifier,
  entitlements,
  now,
}: {
  /** With its plan's expiry terms. */
  license: LicenseRecord & ExpiringLicense;
  product: LicensedProduct;
  productId: number;
  /** Null when no identifier was sent. */
  identifierActivated: boolean | null;
  /** The identifier sent, normalised for the license (null: none, or not one). */
  identifier: string | null;
  /** Its live entitlements: the files and versions that need one it lacks are not its. */
  entitlements: string[];
  now: Date;
}): LicenseCoverage {
  const covers = coversProduct(product, productId);
  const standing = expiryStanding(license, now);
  return {
    found: true,
    covers,
    status: standing.status,
    in_grace: standing.in_grace,
    grace_ends_at: iso(standing.grace_ends_at),
    // Only while the strategy limits the versions (past the expiry and the grace).
    updates_until: standing.limitsVersions ? iso(standing.updates_until) : null,
    // A bundle key sees only all-plans files of the bundle's products (spec 4.4 rule 5).
    plan_id: covers && license.product_id === productId ? license.plan_id : null,
    expires_at: iso(license.expires_at),
    auto_renew: license.auto_renew,
    next_payment_at: iso(license.next_payment_at),
    identifier_activated: identifierActivated,
    identifier,
    entitlements,
  };
}

/** The coverage of an unknown key: none. */
export function unknownKeyCoverageView(identifierSent: boolean): LicenseCoverage {
  return {
    found: false,
    covers: false,
    status: null,
    in_grace: false,
    grace_ends_at: null,
    updates_until: null,
    plan_id: null,
    expires_at: null,
    auto_renew: false,
    next_payment_at: null,
    identifier_activated: identifierSent ? false : null,
    identifier: null,
    entitlements: [],
  };
}
