import {
  LicensingError,
  refusal,
  type CreateLicenseRequest,
} from '../../../libs/contracts/index.js';
import type { NewLicense } from '../licenses/license-store.js';
import type { CustomerRecord } from '../records.js';
import { storedCustomer } from '../rules.js';
import type { ProductLookup } from './license-reads.js';
import type { PlanLookup } from './plan-lookup.js';

/** A customer as stored, its address normalised; refused (INVALID_REQUEST) when it cannot be. */
export function customerOrRefuse(
  customer: { email: string; name: string | null } | null,
): CustomerRecord | null {
  if (customer === null) return null;
  const stored = storedCustomer(customer);
  if (!stored.ok) throw LicensingError.from(stored.refusal);
  return stored.customer;
}

/** What a license is issued from: an admin's request, or a store sale's (with its key). */
export type LicenseRequest = Omit<CreateLicenseRequest, 'license_key'> & { license_key: string };

/**
 * The license a request issues, on a plan and a product that exist (refused INVALID_REQUEST
 * otherwise): spec 2.1, the license copies the plan's limit (and type) when it is issued, and its
 * lease and exemptions with them.
 */
export type LicenseToIssue = (request: LicenseRequest) => Promise<NewLicense>;

export function licenseToIssue({
  knownPlans,
  products,
}: {
  knownPlans: Pick<PlanLookup, 'find'>;
  products: ProductLookup;
}): LicenseToIssue {
  return async (request) => {
    const plan = await knownPlans.find(request.plan_id);
    if (!plan) {
      throw LicensingError.from(
        refusal('INVALID_REQUEST', `Plan ${request.plan_id} does not exist.`),
      );
    }
    if (!(await products.find(request.product_id))) {
      throw LicensingError.from(
        refusal('INVALID_REQUEST', `Product ${request.product_id} does not exist.`),
      );
    }
    return {
      license_key: request.license_key,
      product_id: request.product_id,
      plan_id: plan.id,
      status: request.status,
      expires_at: request.expires_at === null ? null : new Date(request.expires_at),
      auto_renew: request.auto_renew,
      next_payment_at: request.next_payment_at === null ? null : new Date(request.next_payment_at),
      activation_type: plan.activation_type,
      activation_limit: plan.activation_limit,
      lease_seconds: plan.lease_seconds,
      exempt_identifiers: plan.exempt_identifiers,
      exempt_limit: plan.exempt_limit,
      customer: customerOrRefuse(request.customer),
      metadata: request.metadata,
    };
  };
}
