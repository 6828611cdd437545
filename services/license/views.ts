import type {
  ActivationResult,
  LicenseDetail,
  Plan,
  ValidationResult,
} from '../../libs/contracts/index.js';
import type { LicenseDocument, PlanDocument, RejectedAttemptDocument } from './models.js';
import { effectiveStatus, type LicensedProduct } from './rules.js';

/** Response shapes built from stored records: the spec's field names and types. */

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function planView(plan: PlanDocument): Plan {
  return {
    id: plan._id,
    name: plan.name,
    activation_type: plan.activation_type,
    activation_limit: plan.activation_limit,
    created_at: plan.created_at.toISOString(),
  };
}

/** Spec 4.1 success payload (deactivate answers with the same shape). */
export function activationResultView(
  license: LicenseDocument,
  product: LicensedProduct,
  planName: string,
  identifier: string,
  now: Date,
): ActivationResult {
  return {
    status: effectiveStatus(license, now),
    license_key: license.license_key,
    product: product.title,
    plan: planName,
    activation_type: license.activation_type,
    activation_limit: license.activation_limit,
    activations_used: license.activations.length,
    expires_at: iso(license.expires_at),
    identifier,
  };
}

/** Spec 4.2 success payload for a known key. */
export function validationView(
  license: LicenseDocument,
  product: LicensedProduct,
  planName: string,
  identifierActivated: boolean,
  now: Date,
): ValidationResult {
  const status = effectiveStatus(license, now);
  return {
    valid: status === 'active',
    status,
    license_key: license.license_key,
    product: product.title,
    plan: planName,
    activation_type: license.activation_type,
    activation_limit: license.activation_limit,
    activations_used: license.activations.length,
    expires_at: iso(license.expires_at),
    identifier_activated: identifierActivated,
  };
}

/** Spec 4.2 rule 1: the answer for an unknown key. */
export function unknownKeyView(licenseKey: string): ValidationResult {
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
  };
}

export function licenseDetailView(
  license: LicenseDocument,
  product: LicensedProduct | null,
  planName: string | null,
  attempts: RejectedAttemptDocument[],
  now: Date,
): LicenseDetail {
  return {
    license_key: license.license_key,
    status: effectiveStatus(license, now),
    product_id: license.product_id,
    plan_id: license.plan_id,
    product: product?.title ?? null,
    plan: planName,
    activation_type: license.activation_type,
    activation_limit: license.activation_limit,
    activations_used: license.activations.length,
    expires_at: iso(license.expires_at),
    auto_renew: license.auto_renew,
    next_payment_at: iso(license.next_payment_at),
    last_check_at: iso(license.last_check_at),
    last_check_ip: license.last_check_ip,
    check_count: license.check_count,
    created_at: license.created_at.toISOString(),
    activations: license.activations.map((a) => ({
      identifier: a.identifier,
      name: a.name,
      ip: a.ip,
      activated_at: a.activated_at.toISOString(),
    })),
    rejected_attempts: attempts.map((r) => ({
      identifier: r.identifier,
      tries: r.tries,
      last_attempt_at: r.last_attempt_at.toISOString(),
    })),
  };
}
