import { randomBytes } from 'node:crypto';
import {
  LicensingError,
  internalError,
  orderOf,
  refusal,
  type ActivationType,
  type HandlersOf,
  type LicenseSummary,
} from '../../libs/contracts/index.js';
import { exemptPatternProblem } from './exempt-rules.js';
import { unknownLicense, unknownPlan, type LicenseHandlerKit } from './handler-kit.js';
import { extendedExpiry, licenseChanges } from './lifecycle-rules.js';
import {
  isRefusal,
  limitBelowActivations,
  normaliseOrRefuse,
  planNameTaken,
  searchText,
  storedCustomer,
} from './rules.js';
import type { CustomerRecord, LicenseChanges, LicenseRecord, LicenseUpdate } from './stores.js';
import { activationView, licenseSummaryView, planView } from './views.js';

/**
 * Exempt identifiers: a pattern that can never match an identifier of the plan's activation type
 * is refused, rather than stored to silently do nothing.
 */
function refuseUnmatchablePatterns(type: ActivationType, patterns: readonly string[]): void {
  for (const pattern of patterns) {
    const problem = exemptPatternProblem(type, pattern);
    if (problem !== null) {
      throw LicensingError.from(refusal('INVALID_REQUEST', `exempt_identifiers: ${problem}`));
    }
  }
}

/** A customer as stored, its address normalised; refused (INVALID_REQUEST) when it cannot be. */
function customerOrRefuse(
  customer: { email: string; name: string | null } | null,
): CustomerRecord | null {
  if (customer === null) return null;
  const stored = storedCustomer(customer);
  if (isRefusal(stored)) throw LicensingError.from(stored);
  return stored;
}

/**
 * How many times an extension of the expiry is decided again when the expiry moved between its
 * read and its write (a renewal meanwhile): more would mean something keeps changing it.
 */
const EXTENSION_ROUNDS = 3;

/** 128 random bits: license keys are credentials (spec 5.1) and must not be guessable. */
function generateLicenseKey(): string {
  return randomBytes(16).toString('hex');
}

/**
 * What an admin does with plans and licenses: creates, reads, changes and searches them, and
 * adds and removes activations (spec 3.2, Add and Remove).
 */
export function adminHandlers(
  kit: LicenseHandlerKit,
): Pick<
  HandlersOf<'license'>,
  | 'license.createPlan'
  | 'license.getPlan'
  | 'license.listPlans'
  | 'license.updatePlan'
  | 'license.createLicense'
  | 'license.getLicense'
  | 'license.updateLicense'
  | 'license.addActivation'
  | 'license.listActivations'
  | 'license.removeActivation'
  | 'license.searchLicenses'
  | 'license.exportLicenses'
> {
  const {
    stores: { licenses, plans },
    products,
    clock,
    knownPlans,
    requireLicense,
    licenseWithActivations,
    claimActivation,
    releaseActivation,
    detail,
    events,
  } = kit;

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
    // ---- Plans ----
    'license.createPlan': async ({ id, ...plan }, context) => {
      refuseUnmatchablePatterns(plan.activation_type, plan.exempt_identifiers);
      const created = await plans.create({
        plan,
        id,
        now: clock(),
        // The store writes the sequence counter, then the plan, perhaps more than once.
        beforeEachWrite: () => context.beforeWrite(),
      });
      if (created.outcome === 'id-taken') {
        throw LicensingError.from(refusal('ALREADY_EXISTS', `Plan ${id} already exists.`));
      }
      if (created.outcome === 'name-taken')
        throw LicensingError.from(planNameTaken(created.holder));
      return planView(created.plan);
    },

    'license.getPlan': async ({ id }) => {
      const plan = await knownPlans.find(id);
      if (!plan) throw LicensingError.from(unknownPlan(id));
      return planView(plan);
    },

    'license.listPlans': async () => ({ plans: (await plans.list()).map(planView) }),

    'license.updatePlan': async ({ id, ...changes }, context) => {
      const current = await plans.find(id);
      if (!current) throw LicensingError.from(unknownPlan(id));
      if (changes.exempt_identifiers !== undefined) {
        refuseUnmatchablePatterns(current.activation_type, changes.exempt_identifiers);
      }
      context.beforeWrite();
      const updated = await plans.update({ id, changes });
      if (!updated) throw LicensingError.from(unknownPlan(id));
      if (updated.outcome === 'name-taken')
        throw LicensingError.from(planNameTaken(updated.holder));
      knownPlans.invalidate(id);
      return planView(updated.plan);
    },

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
      const customer = customerOrRefuse(request.customer);
      context.beforeWrite();
      const now = clock();
      const issued = await licenses.issue({
        now,
        license: {
          license_key: request.license_key ?? generateLicenseKey(),
          product_id: request.product_id,
          plan_id: plan.id,
          status: request.status,
          expires_at: request.expires_at === null ? null : new Date(request.expires_at),
          auto_renew: request.auto_renew,
          next_payment_at:
            request.next_payment_at === null ? null : new Date(request.next_payment_at),
          // Spec 2.1: the license copies the plan's limit (and type) when it is issued, and
          // its lease and exemptions with them.
          activation_type: plan.activation_type,
          activation_limit: plan.activation_limit,
          lease_seconds: plan.lease_seconds,
          exempt_identifiers: plan.exempt_identifiers,
          exempt_limit: plan.exempt_limit,
          customer,
          metadata: request.metadata,
        },
      });
      if (issued.outcome === 'key-taken') {
        throw LicensingError.from(
          refusal('ALREADY_EXISTS', 'A license with this key already exists.'),
        );
      }
      events.licenseCreated({ license: issued.license, at: now });
      return detail(issued.license);
    },

    'license.getLicense': async ({ license_key }) => detail(await requireLicense(license_key)),

    'license.updateLicense': async (
      {
        license_key,
        status,
        expires_at,
        activation_limit,
        customer,
        metadata,
        extend_expiry_days: days,
      },
      context,
    ) => {
      const changes: LicenseChanges = { status, activation_limit, metadata };
      if (expires_at !== undefined) {
        changes.expires_at = expires_at === null ? null : new Date(expires_at);
      }
      if (customer !== undefined) changes.customer = customerOrRefuse(customer);
      if (days !== undefined && expires_at !== undefined) {
        throw LicensingError.from(
          refusal('INVALID_REQUEST', 'Send expires_at or extend_expiry_days, not both.'),
        );
      }
      let updated: LicenseUpdate = { outcome: 'changed-meanwhile' };
      let now = clock();
      for (
        let round = 0;
        round < EXTENSION_ROUNDS && updated.outcome === 'changed-meanwhile';
        round++
      ) {
        // An extension is decided on the expiry read, and written only while it is still that.
        let expected: Pick<LicenseRecord, 'expires_at'> | undefined;
        if (days !== undefined) {
          const current = await requireLicense(license_key);
          const extended = extendedExpiry(current.expires_at, days);
          if (isRefusal(extended)) throw LicensingError.from(extended);
          changes.expires_at = extended;
          expected = { expires_at: current.expires_at };
        }
        // Spec 3.3: a limit below the activations in use is refused, atomically, with the rest.
        context.beforeWrite();
        now = clock();
        updated = await licenses.update({ licenseKey: license_key, changes, now, expected });
      }
      switch (updated.outcome) {
        case 'updated': {
          // An update that leaves every field as it was is no change, and no event; nor is a
          // change of the customer or metadata, which events never carry (spec 2.2).
          const changed = licenseChanges(updated.previous, updated.license);
          if (changed) {
            events.licenseUpdated({ license: updated.license, changes: changed, at: now });
          }
          return detail(updated.license);
        }
        case 'unknown-license':
          throw LicensingError.from(unknownLicense());
        case 'limit-below-activations':
          throw LicensingError.from(limitBelowActivations(updated));
        case 'changed-meanwhile':
          throw internalError('The expiry kept changing while it was extended; try again.');
      }
    },

    // ---- Spec 3.2: Add and Remove in admin ----
    'license.addActivation': async ({ license_key, identifier, name }, context) => {
      await requireLicense(license_key);
      // Refused for a full or expired license, it is recorded as the activate call's refusal is.
      const result = await claimActivation({
        licenseKey: license_key,
        request: { identifier, name, product_id: null, ip: '' },
        source: 'admin',
        context,
      });
      if (result.outcome === 'refused') throw LicensingError.from(result.refusal);
      if (result.outcome === 'already-active') {
        throw LicensingError.from(
          refusal('ACTIVATION_EXISTS', 'This identifier is already activated on this license.'),
        );
      }
      return {
        license: await detail(result.license),
        activation: activationView(result.activation),
      };
    },

    'license.listActivations': async ({ license_key, q, page, per_page }) => {
      const license = await requireLicense(license_key);
      // Spec 2.4: the identifier searched for, as the license's type normalises it; one that
      // type cannot take is activated on no license.
      let identifierKeys: string[] | null = null;
      if (q !== null) {
        const identifier = normaliseOrRefuse(license.activation_type, q);
        identifierKeys = isRefusal(identifier) ? [] : [identifier.key];
      }
      const found = await licenses.listActivations({
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

    'license.removeActivation': async ({ license_key, identifier }, context) => {
      const license = await licenseWithActivations(license_key, identifier, clock(), context);
      if (!license) throw LicensingError.from(unknownLicense());
      const removed = await releaseActivation({
        license,
        product: null,
        request: { identifier, product_id: null },
        context,
        source: 'admin',
      });
      return detail(removed.license);
    },

    // ---- Admin search ----
    'license.searchLicenses': async ({ product_id, plan_id, status, q, sort, page, per_page }) => {
      // One instant for the filter and the view: a license found as active is shown active.
      const now = clock();
      const found = await licenses.search({
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
      const found = await licenses.scan({
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
