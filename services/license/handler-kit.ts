import {
  DETAIL_ACTIVATIONS,
  LicensingError,
  internalError,
  refusal,
  type CallContext,
  type Refusal,
} from '../../libs/contracts/index.js';
import { CachedLookup } from '../../libs/cache/index.js';
import { identifierKey } from '../../libs/identifier/index.js';
import { decideActivation, decideDeactivation } from './activation-rules.js';
import type { LicenseCounts } from './daily-counts.js';
import {
  announceLapsed,
  type ActivationRemovalSource,
  type ActivationSource,
  type LicenseEvents,
} from './events.js';
import {
  activationNotFound,
  findActivation,
  identifierKeysByType,
  type LicensedProduct,
} from './rules.js';
import type { ScheduleSettings } from './scheduled-tasks.js';
import type {
  ActivationRecord,
  LapsedRelease,
  LicenseRecord,
  LicenseStores,
  PlanRecord,
} from './stores.js';
import { licenseDetailView } from './views.js';

/**
 * How often an activation or a renewal is decided again when the license changed between the
 * read and the conditional write.
 */
export const MAX_DECISION_ROUNDS = 5;

export const unknownLicense = () => refusal('NOT_FOUND', 'There is no license with this key.');
export const unknownPlan = (id: number) => refusal('NOT_FOUND', `Plan ${id} does not exist.`);

/** Where the license service learns a product's title and bundle items (spec 2.2). */
export interface ProductLookup {
  /** The product, or null when the catalog says it does not exist. */
  find(id: number): Promise<LicensedProduct | null>;
}

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
}

/**
 * How long a replica keeps a plan: an admin's change of a plan (its name, lease or exemptions)
 * reaches the other replicas within this, and at once the replica that made it.
 */
export const PLAN_CACHE_TTL_MS = 30_000;

/** When an activation made or renewed `now` lapses under a lease of `seconds`; null without one. */
export function leaseEnd(seconds: number | null, now: Date): Date | null {
  return seconds === null ? null : new Date(now.getTime() + seconds * 1000);
}

/** A license with the activations a decision is about (rules.ts `LicenseState`). */
export type LicenseView = LicenseRecord & { activations: ActivationRecord[] };

/** What the handlers of every use share: see `licenseHandlerKit`. */
export type LicenseHandlerKit = ReturnType<typeof licenseHandlerKit>;

/**
 * What the license service's handlers share, made once for all of them: their dependencies, the
 * reads of a license, its product and its plan (plans kept for good), the admin's view of a
 * license, and the decision rounds that claim and release an activation (the client's activate
 * and deactivate, an admin's Add and Remove).
 */
export function licenseHandlerKit(deps: LicenseHandlerDeps) {
  const { stores, products, clock, events } = deps;
  const { licenses, plans, rejectedAttempts } = stores;

  /**
   * Removes the activations of a license whose lease ran out at `now`: gone for every rule at
   * once (docs/api-decisions.md, "Leases"), each an `activation.deleted` event. The license after,
   * or null when unknown.
   */
  async function releaseLapsed(licenseKey: string, now: Date): Promise<LapsedRelease | null> {
    const lapsed = await licenses.releaseLapsed({ licenseKey, now });
    announceLapsed(events, lapsed, now);
    return lapsed;
  }

  /**
   * A license as the rules decide on it at `now`: with its activations under the keys an
   * identifier has (rules.ts `identifierKeysByType`), read together with it; on a license with a
   * lease, after its lapsed activations are removed. A caller that stopped waiting writes
   * nothing: a lapsed activation is then left out of the view instead.
   */
  async function licenseWithActivations(
    licenseKey: string,
    identifier: string | null,
    now: Date,
    context?: CallContext,
  ): Promise<LicenseView | null> {
    const found = await licenses.findWithActivations({
      licenseKey,
      identifierKeys: identifier === null ? [] : Object.values(identifierKeysByType(identifier)),
    });
    if (!found) return null;
    const lapses = (a: ActivationRecord) =>
      a.lease_expires_at !== null && a.lease_expires_at.getTime() <= now.getTime();
    if (found.license.lease_seconds === null && !found.activations.some(lapses)) {
      return { ...found.license, activations: found.activations };
    }
    if (context?.passed) {
      return { ...found.license, activations: found.activations.filter((a) => !lapses(a)) };
    }
    // The license after the removal; of the activations read, those it did not remove.
    const lapsed = await releaseLapsed(licenseKey, now);
    const removed = new Set(lapsed?.released.map((a) => a.identifier_key));
    return {
      ...(lapsed?.license ?? found.license),
      activations: found.activations.filter((a) => !removed.has(a.identifier_key)),
    };
  }

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

  const knownPlans = new CachedLookup((id: number) => plans.find(id), {
    ttlMs: PLAN_CACHE_TTL_MS,
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
   * read and the atomic claim. Each round that writes returns, so each outcome is announced once:
   * a claimed slot as `activation.created`; a client's refusal, when spec 2.5 records it as a
   * rejected attempt, as `activation.rejected`. An admin's refused Add is not recorded (2.5
   * records the refusals of the activate call).
   */
  async function claimActivation({
    licenseKey,
    request,
    source,
    context,
  }: {
    licenseKey: string;
    request: { identifier: string; product_id: number | null; name: string | null; ip: string };
    /** `api`: a client's activate; `admin`: an admin's Add. */
    source: ActivationSource;
    context: CallContext;
  }): Promise<
    | {
        outcome: 'claimed';
        license: LicenseRecord;
        product: LicensedProduct;
        identifier: string;
        activation: ActivationRecord;
        leaseExpiresAt: Date | null;
      }
    | {
        outcome: 'already-active';
        license: LicenseRecord;
        product: LicensedProduct;
        identifier: string;
        /** Renewed by this activate when the license has a lease. */
        leaseExpiresAt: Date | null;
      }
    | { outcome: 'refused'; refusal: Refusal }
  > {
    for (let round = 0; round < MAX_DECISION_ROUNDS; round++) {
      const now = clock();
      const license = await licenseWithActivations(licenseKey, request.identifier, now, context);
      const product = license && (await productOf(license));
      const decision = decideActivation(license, product, request, now);
      if (decision.outcome === 'refuse') {
        if (source === 'api' && license && decision.recordAttempt) {
          await rejectedAttempts.record({
            licenseKey,
            identifier: decision.recordAttempt.identifier,
            at: now,
            beforeEachWrite: () => context.beforeWrite(),
          });
          events.activationRejected({
            license,
            identifier: decision.recordAttempt.identifier,
            ip: request.ip,
            reason: decision.refusal.code,
            at: now,
          });
        }
        return { outcome: 'refused', refusal: decision.refusal };
      }
      if (decision.outcome === 'already-active') {
        // Spec 3.2 with a lease: activating it again renews it.
        const until = leaseEnd(license!.lease_seconds, now);
        let leaseExpiresAt: Date | null = null;
        if (until !== null) {
          context.beforeWrite();
          const renewed = await licenses.renewLease({
            licenseKey,
            identifierKey: identifierKey(decision.identifier),
            now,
            until,
          });
          // Lapsed since the read: decided again, as a new activation.
          if (!renewed) continue;
          leaseExpiresAt = until;
        }
        return {
          outcome: 'already-active',
          license: license!,
          product: product!,
          identifier: decision.identifier,
          leaseExpiresAt,
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
          lease_expires_at: leaseEnd(license!.lease_seconds, now),
          exempt: decision.exempt,
        },
        now,
      });
      if (claimed) {
        events.activationCreated({
          license: claimed.license,
          activation: claimed.activation,
          source,
          at: now,
        });
        return {
          outcome: 'claimed',
          license: claimed.license,
          product: product!,
          identifier: decision.identifier.identifier,
          activation: claimed.activation,
          leaseExpiresAt: claimed.activation.lease_expires_at,
        };
      }
    }
    throw internalError('The license changed too often during this activation; try again.');
  }

  /** Frees a slot (spec 3.2: deactivate, and Remove in admin). */
  async function releaseActivation({
    license,
    product,
    request,
    context,
    source,
  }: {
    license: LicenseView | null;
    product: LicensedProduct | null;
    request: { identifier: string; product_id: number | null };
    context: CallContext;
    /** Who removes it: the client's deactivate or an admin's Remove. */
    source: Exclude<ActivationRemovalSource, 'lease'>;
  }): Promise<{ license: LicenseRecord; identifier: string }> {
    const decision = decideDeactivation({ license, product, request });
    if (decision.outcome === 'refuse') throw LicensingError.from(decision.refusal);
    const activation = findActivation(license!.activations, decision.identifier.key)!;
    const now = clock();
    context.beforeWrite();
    const released = await licenses.releaseSlot({
      now,
      licenseKey: license!.license_key,
      activation,
    });
    // Removed by a concurrent call since the read.
    if (!released) throw LicensingError.from(activationNotFound());
    events.activationDeleted({
      license: released.license,
      activation: released.released,
      source,
      at: now,
    });
    return { license: released.license, identifier: released.released.identifier };
  }

  /** The first of a license's activations, as its detail and the portal show them. */
  async function firstActivations(license: LicenseRecord): Promise<ActivationRecord[]> {
    const { activations } = await licenses.listActivations({
      licenseKey: license.license_key,
      identifierKeys: null,
      page: 1,
      perPage: DETAIL_ACTIVATIONS,
    });
    return activations;
  }

  /** A license as the admin API shows it, with its product, plans and rejected attempts. */
  async function detail(license: LicenseRecord) {
    const [product, plan, pendingPlan, attempts, activations] = await Promise.all([
      products.find(license.product_id),
      knownPlans.find(license.plan_id),
      license.pending_plan_id === null ? null : knownPlans.find(license.pending_plan_id),
      rejectedAttempts.listForLicense(license.license_key),
      firstActivations(license),
    ]);
    return licenseDetailView({
      license,
      activations,
      product,
      planName: plan?.name ?? null,
      pendingPlanName: pendingPlan?.name ?? null,
      rejectedAttempts: attempts,
      now: clock(),
    });
  }

  return {
    ...deps,
    knownPlans,
    releaseLapsed,
    licenseWithActivations,
    requireLicense,
    productOf,
    planOf,
    planName,
    claimActivation,
    releaseActivation,
    firstActivations,
    detail,
  };
}
