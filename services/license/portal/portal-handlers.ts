import { LicensingError, type HandlersOf } from '../../../libs/contracts/index.js';
import type { LicenseReadModel } from '../admin/license-read-model.js';
import { unknownKey, type LicensedProduct } from '../rules.js';
import { firstActivations } from '../use-cases/license-detail.js';
import type { LicenseReads, ProductLookup } from '../use-cases/license-reads.js';
import type { PlanLookup } from '../use-cases/plan-lookup.js';
import { portalLicenseView } from '../record-views.js';
import { usageView } from '../usage/usage-rules.js';
import type { UsageStore } from '../usage/usage-store.js';

/** What the customer portal's view of a license is read from. */
export interface PortalHandlerDeps {
  licenseReads: Pick<LicenseReadModel, 'listActivations'>;
  products: ProductLookup;
  clock: () => Date;
  reads: Pick<LicenseReads, 'licenseWithActivations' | 'productOf'>;
  knownPlans: Pick<PlanLookup, 'planOf'>;
  usage: Pick<UsageStore, 'findUsage'>;
}

/** The customer portal's call with a license key (read-only). */
export function portalHandlers({
  licenseReads,
  products,
  clock,
  reads: { licenseWithActivations, productOf },
  knownPlans: { planOf },
  usage,
}: PortalHandlerDeps): Pick<HandlersOf<'license'>, 'license.portalLicense'> {
  return {
    // ---- Spec 1 and 2.3: the customer portal (read-only) ----
    'license.portalLicense': async ({ license_key }, context) => {
      const now = clock();
      const read = await licenseWithActivations(license_key, null, now, context);
      if (!read) throw LicensingError.from(unknownKey());
      const { activations: _none, ...license } = read;
      const [product, plan, activations] = await Promise.all([
        productOf(license),
        planOf(license.plan_id),
        firstActivations(licenseReads, license),
      ]);
      // Spec 2.2: a bundle key is used with the bundle's products; a bundle item the catalog no
      // longer has cannot be used, so it is not shown.
      const usable =
        product.bundle_items.length === 0
          ? [product]
          : (await Promise.all(product.bundle_items.map((id) => products.find(id)))).filter(
              (item): item is LicensedProduct => item !== null,
            );
      const view = portalLicenseView({
        license,
        activations,
        product,
        planName: plan.name,
        products: usable,
        now: clock(),
      });
      if (plan.max_uses === null) return view;
      const stored = await usage.findUsage({
        licenseKey: license.license_key,
        idempotencyKey: null,
      });
      return { ...view, usage: usageView(stored, plan, now) };
    },
  };
}
