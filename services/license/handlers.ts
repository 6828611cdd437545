import type { ServedHandlers } from '../../libs/transport/index.js';
import { activationHandlers } from './activations/activation-handlers.js';
import { adminHandlers } from './admin/admin-handlers.js';
import { adminListHandlers } from './admin/admin-list-handlers.js';
import type { LicenseCounts } from './overview/daily-counts.js';
import type { LicenseEvents } from './events.js';
import { entitlementHandlers } from './entitlements/entitlement-handlers.js';
import { importHandlers } from './imports/import-handlers.js';
import { lifecycleHandlers } from './lifecycle/lifecycle-handlers.js';
import { overviewHandlers } from './overview/overview-handlers.js';
import { planHandlers } from './plans/plan-handlers.js';
import { portalHandlers } from './portal/portal-handlers.js';
import { storeLicenseHandlers } from './store-licenses/store-license-handlers.js';
import { trialHandlers } from './trials/trial-handlers.js';
import type { ScheduleSettings } from './lifecycle/scheduled-tasks.js';
import type { LicenseStores } from './stores.js';
import { claimActivation } from './use-cases/claim-activation.js';
import { endTrial } from './use-cases/end-trial.js';
import { licenseDetail } from './use-cases/license-detail.js';
import { licenseReads, type ProductLookup } from './use-cases/license-reads.js';
import { licenseToIssue } from './use-cases/license-to-issue.js';
import { planAndEntitlements } from './use-cases/live-entitlements.js';
import { planLookup } from './use-cases/plan-lookup.js';
import { releaseActivation } from './use-cases/release-activation.js';
import { usageHandlers } from './usage/usage-handlers.js';
import { validationHandlers } from './activations/validation-handlers.js';

/** What the license service's handlers are made with. */
export interface LicenseHandlerDeps {
  stores: LicenseStores;
  products: ProductLookup;
  clock: () => Date;
  /** This process's schedule of the tasks, as listed by `license.listTasks`. */
  schedule: ScheduleSettings;
  /** Where the service's domain events go. */
  events: LicenseEvents;
  /** The daily counts of the admin overview (validations; the events count themselves). */
  counts: LicenseCounts;
  /** PLAN_CACHE_TTL_MS: how long a plan read is kept (default 30 s). */
  planCacheTtlMs?: number;
}

/**
 * RPC handlers of the license service: plans, licenses, activations, rejected attempts. They
 * read through the stores, decide with the pure rules (rules.ts, activations/activation-rules.ts,
 * lifecycle/lifecycle-rules.ts), and call `context.beforeWrite()` immediately before each store
 * method that writes. Each use has its file in its feature folder (activations/, portal/, plans/,
 * entitlements/, admin/, store-licenses/, imports/, lifecycle/, overview/, usage/, trials/: each its
 * `*-handlers.ts`), each asking for what it runs on; the use cases they share (use-cases/) are
 * made here once, so that one plan cache serves them all. The compiler checks that together they
 * answer every method.
 */
export function createLicenseHandlers(deps: LicenseHandlerDeps): ServedHandlers<'license'> {
  const { stores, products, clock, events } = deps;
  const knownPlans = planLookup(stores.plans, deps.planCacheTtlMs);
  const reads = licenseReads({ licenses: stores.licenses, products, events, plans: knownPlans });
  const made = {
    ...deps,
    ...stores,
    knownPlans,
    reads,
    planAndEntitlements: planAndEntitlements({ knownPlans, entitlements: stores.entitlements }),
    claimActivation: claimActivation({ ...stores, events, reads, clock }),
    releaseActivation: releaseActivation({ licenses: stores.licenses, events, clock }),
    detail: licenseDetail({ ...stores, products, knownPlans, clock }),
    toIssue: licenseToIssue({ knownPlans, products }),
    endTrial: endTrial({ ...stores, events, clock }),
  };
  return {
    ...activationHandlers(made),
    ...validationHandlers(made),
    ...portalHandlers(made),
    ...planHandlers(made),
    ...entitlementHandlers(made),
    ...adminHandlers(made),
    ...storeLicenseHandlers(made),
    ...importHandlers(made),
    ...adminListHandlers(made),
    ...lifecycleHandlers(made),
    ...overviewHandlers(made),
    ...usageHandlers(made),
    ...trialHandlers(made),
  };
}
