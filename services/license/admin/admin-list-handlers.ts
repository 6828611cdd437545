import { orderOf, type HandlersOf, type LicenseSummary } from '../../../libs/contracts/index.js';
import type { LicenseReadModel } from './license-read-model.js';
import type { LicenseRecord } from '../records.js';
import { normaliseOrRefuse, searchText } from '../rules.js';
import type { PlanStore } from '../stores.js';
import type { LicenseReads, ProductLookup } from '../use-cases/license-reads.js';
import { activationView, licenseSummaryView } from '../record-views.js';

/** What the admin's lists run on: the read model, and the names of plans and products. */
export interface AdminListDeps {
  licenseReads: LicenseReadModel;
  plans: Pick<PlanStore, 'list'>;
  products: ProductLookup;
  clock: () => Date;
  reads: Pick<LicenseReads, 'requireLicense'>;
}

/**
 * What an admin lists (docs/api-decisions.md, "Lists: order, pages, exports"): a license's
 * activations a page at a time, and the licenses a search finds, a page or an export's batch at
 * a time, read through the license read model.
 */
export function adminListHandlers({
  licenseReads,
  plans,
  products,
  clock,
  reads: { requireLicense },
}: AdminListDeps): Pick<
  HandlersOf<'license'>,
  'license.listActivations' | 'license.searchLicenses' | 'license.exportLicenses'
> {
  /** Licenses as a list shows them, with their products' titles and their plans' names. */
  async function summaries(found: LicenseRecord[], now: Date): Promise<LicenseSummary[]> {
    const productIds = [...new Set(found.map((license) => license.product_id))];
    const [planList, productList] = await Promise.all([
      found.length === 0 ? [] : plans.list(),
      Promise.all(productIds.map((id) => products.find(id))),
    ]);
    const planNames = new Map(planList.map((plan) => [plan.id, plan.name]));
    const productsById = new Map(productList.flatMap((p) => (p ? [[p.id, p] as const] : [])));
    const nameOf = (id: number | null) => (id === null ? null : (planNames.get(id) ?? null));
    return found.map((license) =>
      licenseSummaryView({
        license,
        product: productsById.get(license.product_id) ?? null,
        planName: nameOf(license.plan_id),
        pendingPlanName: nameOf(license.pending_plan_id),
        now,
      }),
    );
  }

  return {
    'license.listActivations': async ({ license_key, q, page, per_page }) => {
      const license = await requireLicense(license_key);
      // Spec 2.4: the identifier searched for, as the license's type normalises it; one that
      // type cannot take is activated on no license.
      let identifierKeys: string[] | null = null;
      if (q !== null) {
        const normalised = normaliseOrRefuse(license.activation_type, q);
        identifierKeys = normalised.ok ? [normalised.identifier.key] : [];
      }
      const found = await licenseReads.listActivations({
        licenseKey: license_key,
        identifierKeys,
        page,
        perPage: per_page,
      });
      return {
        activations: found.activations.map(activationView),
        page,
        per_page,
        total: found.total,
      };
    },

    // ---- Admin search ----
    'license.searchLicenses': async ({ product_id, plan_id, status, q, sort, page, per_page }) => {
      // One instant for the filter and the view: a license found as active is shown active.
      const now = clock();
      const found = await licenseReads.search({
        filters: {
          productId: product_id,
          planId: plan_id,
          status,
          text: q === null ? null : searchText(q),
        },
        now,
        order: orderOf(sort),
        page,
        perPage: per_page,
      });
      return { licenses: await summaries(found.licenses, now), page, per_page, total: found.total };
    },

    'license.exportLicenses': async ({
      product_id,
      plan_id,
      status,
      q,
      sort,
      after,
      limit,
      as_of,
    }) => {
      // Every batch of one export at the instant it started: its statuses agree from first to last.
      const now = new Date(as_of);
      const found = await licenseReads.scan({
        filters: {
          productId: product_id,
          planId: plan_id,
          status,
          text: q === null ? null : searchText(q),
        },
        now,
        order: orderOf(sort),
        after,
        limit,
      });
      return { licenses: await summaries(found.licenses, now), next: found.next };
    },
  };
}
