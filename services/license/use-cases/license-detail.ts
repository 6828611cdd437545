import { DETAIL_ACTIVATIONS, type LicenseDetail } from '../../../libs/contracts/index.js';
import type { LicenseReadModel } from '../admin/license-read-model.js';
import type { ActivationRecord, LicenseRecord } from '../records.js';
import type { RejectedAttemptStore } from '../stores.js';
import type { EntitlementStore } from '../entitlements/entitlement-store.js';
import { licenseDetailView } from '../record-views.js';
import type { ProductLookup } from './license-reads.js';
import type { PlanLookup } from './plan-lookup.js';

/** The first of a license's activations, as its detail and the portal show them. */
export async function firstActivations(
  licenseReads: Pick<LicenseReadModel, 'listActivations'>,
  license: LicenseRecord,
): Promise<ActivationRecord[]> {
  const { activations } = await licenseReads.listActivations({
    licenseKey: license.license_key,
    identifierKeys: null,
    page: 1,
    perPage: DETAIL_ACTIVATIONS,
  });
  return activations;
}

/** What a license's detail is read from. */
export interface LicenseDetailDeps {
  licenseReads: Pick<LicenseReadModel, 'listActivations'>;
  rejectedAttempts: Pick<RejectedAttemptStore, 'listForLicense'>;
  entitlements: Pick<EntitlementStore, 'forLicense'>;
  products: ProductLookup;
  knownPlans: Pick<PlanLookup, 'find'>;
  clock: () => Date;
}

export type DetailOf = (license: LicenseRecord) => Promise<LicenseDetail>;

/**
 * A license as the admin API shows it (every admin call on one answers it), with its product,
 * its plans' names, its first activations and its rejected attempts.
 */
export function licenseDetail({
  licenseReads,
  rejectedAttempts,
  entitlements,
  products,
  knownPlans,
  clock,
}: LicenseDetailDeps): DetailOf {
  return async (license) => {
    const [product, plan, pendingPlan, attempts, activations, grants] = await Promise.all([
      products.find(license.product_id),
      knownPlans.find(license.plan_id),
      license.pending_plan_id === null ? null : knownPlans.find(license.pending_plan_id),
      rejectedAttempts.listForLicense(license.license_key),
      firstActivations(licenseReads, license),
      entitlements.forLicense(license.license_key),
    ]);
    return licenseDetailView({
      license,
      activations,
      product,
      planName: plan?.name ?? null,
      pendingPlanName: pendingPlan?.name ?? null,
      rejectedAttempts: attempts,
      entitlements: grants,
      now: clock(),
    });
  };
}
