import { randomBytes } from 'node:crypto';
import {
  LicensingError,
  internalError,
  refusal,
  taskNames,
  type CallContext,
  type Refusal,
} from '../../libs/contracts/index.js';
import { CachedLookup } from '../../libs/cache/index.js';
import { metrics } from '../../libs/observability/index.js';
import type { ServedHandlers } from '../../libs/transport/index.js';
import { decideActivation, decideDeactivation, decideValidation } from './activation-rules.js';
import { decideRenewal } from './lifecycle-rules.js';
import {
  activationNotFound,
  identifierKeysByType,
  isIdentifierActivated,
  limitBelowActivations,
  searchText,
  unknownKey,
  type LicensedProduct,
} from './rules.js';
import { runScheduledTask, scheduledTasks, type ScheduleSettings } from './scheduled-tasks.js';
import type { LicenseChanges, LicenseRecord, LicenseStores, PlanRecord } from './stores.js';
import {
  activationResultView,
  coverageView,
  licenseDetailView,
  licenseSummaryView,
  planView,
  portalLicenseView,
  scheduledTaskView,
  unknownKeyCoverageView,
  unknownKeyView,
  validationView,
} from './views.js';

/**
 * How often an activation or a renewal is decided again when the license changed between the
 * read and the conditional write.
 */
const MAX_DECISION_ROUNDS = 5;

/** 128 random bits: license keys are credentials (spec 5.1) and must not be guessable. */
function generateLicenseKey(): string {
  return randomBytes(16).toString('hex');
}

const unknownLicense = () => refusal('NOT_FOUND', 'There is no license with this key.');
const unknownPlan = (id: number) => refusal('NOT_FOUND', `Plan ${id} does not exist.`);

const dateOrNull = (timestamp: string | null) => (timestamp === null ? null : new Date(timestamp));

/** Where the license service learns a product's title and bundle items (spec 2.2). */
export interface ProductLookup {
  /** The product, or null when the catalog says it does not exist. */
  find(id: number): Promise<LicensedProduct | null>;
}

/**
 * RPC handlers of the license service: plans, licenses, activations, rejected attempts. They
 * read through the stores, decide with the pure rules of rules.ts, and call
 * `context.beforeWrite()` immediately before each store method that writes.
 */
export function createLicenseHandlers({
  stores,
  products,
  clock,
  schedule,
}: {
  stores: LicenseStores;
  products: ProductLookup;
  clock: () => Date;
  /** This process's schedule of the tasks, as listed by `license.listTasks`. */
  schedule: ScheduleSettings;
}): ServedHandlers<'license'> {
  const { licenses, plans, rejectedAttempts, taskRuns } = stores;

  async function requireLicense(licenseKey: string): Promise<LicenseRecord> {
    const license = await licenses.findByKey(licenseKey);
    if (!license) throw LicensingError.from(unknownLicense());
    return license;
  }

  /** The product a license belongs to: it must exist, so its absence is a server fault. */
  async function productOf(license: LicenseRecord): Promise<LicensedProduct> {
    const product = await products.find(license.product_id);
    if (product) return product;
    throw internalError(`The product ${license.product_id} of this license is missing.`);
  }

  // Plans never change once created (no RPC method edits or removes one): kept for good.
  const knownPlans = new CachedLookup((id: number) => plans.find(id), {
    ttlMs: Number.POSITIVE_INFINITY,
  });

  /** A plan a license is on, or is to change to: it must exist, so its absence is a fault. */
  async function planOf(planId: number): Promise<PlanRecord> {
    const plan = await knownPlans.find(planId);
    if (!plan) throw internalError(`The plan ${planId} of this license is missing.`);
    return plan;
  }

  async function planName(planId: number): Promise<string> {
    return (await planOf(planId)).name;
  }

  /**
   * Decides and, when allowed, claims a slot; decides again when the license changed between the
   * read and the atomic claim. Refusals are recorded when spec 2.5 says so and `recordRefusals`.
   */
  async function activate({
    licenseKey,
    request,
    recordRefusals,
    context,
  }: {
    licenseKey: string;
    request: { identifier: string; product_id: number | null; name: string | null; ip: string };
    recordRefusals: boolean;
    context: CallContext;
  }): Promise<
    | {
        outcome: 'claimed' | 'already-active';
        license: LicenseRecord;
        product: LicensedProduct;
        identifier: string;
      }
    | { outcome: 'refused'; refusal: Refusal }
  > {
    for (let round = 0; round < MAX_DECISION_ROUNDS; round++) {
      const now = clock();
      const license = await licenses.findByKey(licenseKey);
      const product = license && (await productOf(license));
      const decision = decideActivation(license, product, request, now);
      if (decision.outcome === 'refuse') {
        if (recordRefusals && license && decision.recordAttempt) {
          await rejectedAttempts.record({
            licenseKey,
            identifier: decision.recordAttempt.identifier,
            at: now,
            beforeEachWrite: () => context.beforeWrite(),
          });
        }
        return { outcome: 'refused', refusal: decision.refusal };
      }
      if (decision.outcome === 'already-active') {
        return {
          outcome: 'already-active',
          license: license!,
          product: product!,
          identifier: decision.identifier,
        };
      }
      context.beforeWrite();
      const claimed = await licenses.claimSlot({
        licenseKey,
        activation: {
          identifier: decision.identifier.identifier,
          name: request.name,
          ip: request.ip,
          activated_at: now,
        },
        now,
      });
      if (claimed) {
        return {
          outcome: 'claimed',
          license: claimed,
          product: product!,
          identifier: decision.identifier.identifier,
        };
      }
    }
    throw internalError('The license changed too often during this activation; try again.');
  }

  /** Frees a slot (spec 3.2: deactivate, and Remove in admin). */
  async function deactivate({
    license,
    product,
    request,
    context,
  }: {
    license: LicenseRecord | null;
    product: LicensedProduct | null;
    request: { identifier: string; product_id: number | null };
    context: CallContext;
  }): Promise<{ license: LicenseRecord; identifier: string }> {
    const decision = decideDeactivation({ license, product, request });
    if (decision.outcome === 'refuse') throw LicensingError.from(decision.refusal);
    context.beforeWrite();
    const released = await licenses.releaseSlot({
      licenseKey: license!.license_key,
      identifier: decision.identifier.identifier,
    });
    // Removed by a concurrent call since the read.
    if (!released) throw LicensingError.from(activationNotFound());
    return { license: released.license, identifier: released.released.identifier };
  }

  async function detail(license: LicenseRecord) {
    const [product, plan, pendingPlan, attempts] = await Promise.all([
      products.find(license.product_id),
      knownPlans.find(license.plan_id),
      license.pending_plan_id === null ? null : knownPlans.find(license.pending_plan_id),
      rejectedAttempts.listForLicense(license.license_key),
    ]);
    return licenseDetailView({
      license,
      product,
      planName: plan?.name ?? null,
      pendingPlanName: pendingPlan?.name ?? null,
      rejectedAttempts: attempts,
      now: clock(),
    });
  }

  return {
    // ---- Spec 4.1 ----
    'license.activate': async (request, context) => {
      const result = await activate({
        licenseKey: request.license_key,
        request,
        recordRefusals: true,
        context,
      });
      metrics.activationOutcomes.inc({
        outcome:
          result.outcome === 'refused'
            ? result.refusal.code
            : result.outcome === 'claimed'
              ? 'activated'
              : 'already_active',
      });
      if (result.outcome === 'refused') throw LicensingError.from(result.refusal);
      const { license, product, identifier } = result;
      const plan = await planName(license.plan_id);
      return activationResultView({ license, product, planName: plan, identifier, now: clock() });
    },

    // ---- Spec 4.2 ----
    'license.validate': async (request, context) => {
      const now = clock();
      // The common case in one round trip: the license matches, so the check counts (rule 3).
      // Otherwise nothing was written, and the license is read and decided on below; so it is
      // when the caller stopped waiting (a validate that counts nothing still answers).
      if (!context.passed) {
        context.beforeWrite();
        const counted = await licenses.touchCheckIfMatching({
          licenseKey: request.license_key,
          productId: request.product_id,
          identifierKeys:
            request.identifier === null ? null : identifierKeysByType(request.identifier),
          at: now,
          ip: request.ip,
        });
        if (counted) {
          const product = await productOf(counted);
          const decision = decideValidation({ license: counted, product, request, now });
          if (decision.outcome === 'report' && decision.countsAsCheck) {
            return validationView({
              license: counted,
              product,
              planName: await planName(counted.plan_id),
              report: decision,
            });
          }
          throw internalError('A counted check did not decide as one.');
        }
      }
      const license = await licenses.findByKey(request.license_key);
      const product = license && (await productOf(license));
      const decision = decideValidation({ license, product, request, now });
      if (decision.outcome === 'refuse') throw LicensingError.from(decision.refusal);
      if (decision.outcome === 'unknown-key' || !license || !product) {
        return unknownKeyView(request.license_key);
      }
      if (decision.countsAsCheck) {
        context.beforeWrite();
        // The license was read and decided on as it is: a plain count on its key.
        await licenses.touchCheckIfMatching({
          licenseKey: license.license_key,
          productId: null,
          identifierKeys: null,
          at: now,
          ip: request.ip,
        });
      }
      return validationView({
        license,
        product,
        planName: await planName(license.plan_id),
        report: decision,
      });
    },

    // ---- Spec 4.3 (completed in docs/api-decisions.md) ----
    'license.deactivate': async (request, context) => {
      const license = await licenses.findByKey(request.license_key);
      const product = license && (await productOf(license));
      const removed = await deactivate({ license, product, request, context });
      return activationResultView({
        license: removed.license,
        product: product!,
        planName: await planName(removed.license.plan_id),
        identifier: removed.identifier,
        now: clock(),
      });
    },

    // ---- Spec 4.4 and 4.5: what the update check and downloads need to know of a key ----
    'license.coverage': async ({ license_key, product_id, identifier }) => {
      const license = await licenses.findByKey(license_key);
      if (!license) return unknownKeyCoverageView(identifier !== null);
      return coverageView({
        license,
        product: await productOf(license),
        productId: product_id,
        identifierActivated:
          identifier === null ? null : isIdentifierActivated(license, identifier),
        now: clock(),
      });
    },

    // ---- Plans ----
    'license.createPlan': async ({ id, ...plan }, context) => {
      const created = await plans.create({
        plan,
        id,
        // The store writes the sequence counter, then the plan, perhaps more than once.
        beforeEachWrite: () => context.beforeWrite(),
      });
      if (created.outcome === 'id-taken') {
        throw LicensingError.from(refusal('ALREADY_EXISTS', `Plan ${id} already exists.`));
      }
      return planView(created.plan);
    },

    'license.getPlan': async ({ id }) => {
      const plan = await knownPlans.find(id);
      if (!plan) throw LicensingError.from(unknownPlan(id));
      return planView(plan);
    },

    'license.listPlans': async () => ({ plans: (await plans.list()).map(planView) }),

    // ---- Licenses (admin) ----
    'license.createLicense': async (request, context) => {
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
      context.beforeWrite();
      const issued = await licenses.issue({
        license_key: request.license_key ?? generateLicenseKey(),
        product_id: request.product_id,
        plan_id: plan.id,
        status: request.status,
        expires_at: request.expires_at === null ? null : new Date(request.expires_at),
        auto_renew: request.auto_renew,
        next_payment_at:
          request.next_payment_at === null ? null : new Date(request.next_payment_at),
        // Spec 2.1: the license copies the plan's limit (and type) when it is issued.
        activation_type: plan.activation_type,
        activation_limit: plan.activation_limit,
      });
      if (issued.outcome === 'key-taken') {
        throw LicensingError.from(
          refusal('ALREADY_EXISTS', 'A license with this key already exists.'),
        );
      }
      return detail(issued.license);
    },

    'license.getLicense': async ({ license_key }) => detail(await requireLicense(license_key)),

    'license.updateLicense': async (
      { license_key, status, expires_at, activation_limit },
      context,
    ) => {
      const changes: LicenseChanges = { status, activation_limit };
      if (expires_at !== undefined) {
        changes.expires_at = expires_at === null ? null : new Date(expires_at);
      }
      // Spec 3.3: a limit below the activations in use is refused, atomically, with the rest.
      context.beforeWrite();
      const updated = await licenses.update({ licenseKey: license_key, changes });
      switch (updated.outcome) {
        case 'updated':
          return detail(updated.license);
        case 'unknown-license':
          throw LicensingError.from(unknownLicense());
        case 'limit-below-activations':
          throw LicensingError.from(limitBelowActivations(updated));
      }
    },

    // ---- Spec 3.2: Add and Remove in admin ----
    'license.addActivation': async ({ license_key, identifier, name }, context) => {
      await requireLicense(license_key);
      // Spec 2.5 records refusals of the activate call; an admin's refused Add is not recorded.
      const result = await activate({
        licenseKey: license_key,
        request: { identifier, name, product_id: null, ip: '' },
        recordRefusals: false,
        context,
      });
      if (result.outcome === 'refused') throw LicensingError.from(result.refusal);
      if (result.outcome === 'already-active') {
        throw LicensingError.from(
          refusal('ACTIVATION_EXISTS', 'This identifier is already activated on this license.'),
        );
      }
      return detail(result.license);
    },

    'license.removeActivation': async ({ license_key, identifier }, context) => {
      const removed = await deactivate({
        license: await requireLicense(license_key),
        product: null,
        request: { identifier, product_id: null },
        context,
      });
      return detail(removed.license);
    },

    // ---- Admin search ----
    'license.searchLicenses': async ({ product_id, plan_id, status, q, page, per_page }) => {
      // One instant for the filter and the view: a license found as active is shown active.
      const now = clock();
      const found = await licenses.search({
        filters: { product_id, plan_id, status, text: q === null ? null : searchText(q) },
        now,
        page,
        perPage: per_page,
      });
      const productIds = [...new Set(found.licenses.map((license) => license.product_id))];
      const [planList, productList] = await Promise.all([
        found.licenses.length === 0 ? [] : plans.list(),
        Promise.all(productIds.map((id) => products.find(id))),
      ]);
      const planNames = new Map(planList.map((plan) => [plan.id, plan.name]));
      const productsById = new Map(productList.flatMap((p) => (p ? [[p.id, p] as const] : [])));
      const nameOf = (id: number | null) => (id === null ? null : (planNames.get(id) ?? null));
      return {
        licenses: found.licenses.map((license) =>
          licenseSummaryView({
            license,
            product: productsById.get(license.product_id) ?? null,
            planName: nameOf(license.plan_id),
            pendingPlanName: nameOf(license.pending_plan_id),
            now,
          }),
        ),
        page,
        per_page,
        total: found.total,
      };
    },

    // ---- Spec 3.3: plan changes and renewals ----
    'license.changePlan': async ({ license_key, plan_id, when }, context) => {
      await requireLicense(license_key);
      const plan = await knownPlans.find(plan_id);
      if (!plan) throw LicensingError.from(unknownPlan(plan_id));
      context.beforeWrite();
      // A limit left below the activations in use is allowed: they stay, and claimSlot refuses
      // new ones until the count is under the limit.
      const changed =
        when === 'now'
          ? await licenses.changePlan({ licenseKey: license_key, plan })
          : await licenses.schedulePlanChange({ licenseKey: license_key, planId: plan.id });
      if (!changed) throw LicensingError.from(unknownLicense());
      return detail(changed);
    },

    'license.renewLicense': async (
      { license_key, expires_at, source, next_payment_at },
      context,
    ) => {
      const request = { source, expires_at: new Date(expires_at) };
      for (let round = 0; round < MAX_DECISION_ROUNDS; round++) {
        const license = await requireLicense(license_key);
        const decision = decideRenewal({ license, request, now: clock() });
        if (decision.outcome === 'refuse') throw LicensingError.from(decision.refusal);
        const plan = decision.planId === null ? undefined : await planOf(decision.planId);
        context.beforeWrite();
        const renewed = await licenses.renew({
          licenseKey: license_key,
          basis: {
            status: license.status,
            plan_id: license.plan_id,
            pending_plan_id: license.pending_plan_id,
          },
          renewal: {
            status: decision.status,
            expires_at: request.expires_at,
            next_payment_at:
              next_payment_at === undefined ? undefined : dateOrNull(next_payment_at),
            plan,
          },
        });
        if (renewed) return detail(renewed);
      }
      throw internalError('The license changed too often during this renewal; try again.');
    },

    // ---- Spec 1 and 2.3: the customer portal (read-only) ----
    'license.portalLicense': async ({ license_key }) => {
      const license = await licenses.findByKey(license_key);
      if (!license) throw LicensingError.from(unknownKey());
      const [product, plan] = await Promise.all([productOf(license), planName(license.plan_id)]);
      // Spec 2.2: a bundle key is used with the bundle's products; a bundle item the catalog no
      // longer has cannot be used, so it is not shown.
      const usable =
        product.bundle_items.length === 0
          ? [product]
          : (await Promise.all(product.bundle_items.map((id) => products.find(id)))).filter(
              (item): item is LicensedProduct => item !== null,
            );
      return portalLicenseView({
        license,
        product,
        planName: plan,
        products: usable,
        now: clock(),
      });
    },

    // ---- Spec 2.5 and 3.1: the scheduled tasks, run on demand and listed ----
    'license.runTask': async ({ name }, context) => {
      const ranAt = clock();
      const affected = await runScheduledTask({
        name,
        stores,
        trigger: 'on-demand',
        now: ranAt,
        beforeEachWrite: () => context.beforeWrite(),
      });
      return { name, ran_at: ranAt.toISOString(), affected };
    },

    'license.listTasks': async () => {
      const [lastRuns, nextRuns] = await Promise.all([
        taskRuns.lastRuns(),
        Promise.all(
          taskNames.map((name) =>
            taskRuns.nextScheduledRun({ jobName: scheduledTasks[name].jobName }),
          ),
        ),
      ]);
      return {
        tasks: taskNames.map((name, i) =>
          scheduledTaskView({
            name,
            interval: scheduledTasks[name].interval(schedule),
            lastRun: lastRuns.find((run) => run.name === name) ?? null,
            nextRunAt: nextRuns[i] ?? null,
          }),
        ),
      };
    },
  };
}
