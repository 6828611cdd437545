import { randomBytes } from 'node:crypto';
import {
  LicensingError,
  internalError,
  type CallContext,
  type HandlersOf,
} from '../../libs/contracts/index.js';
import { isDuplicateKey, type Sequences } from '../../libs/database/index.js';
import { identifierKey, normaliseIdentifier } from '../../libs/identifier/index.js';
import type { ActivationRecord, LicenseDocument, LicenseModels } from './models.js';
import type { ProductDirectory } from './product-directory.js';
import {
  coversProduct,
  decideActivation,
  effectiveStatus,
  findActivation,
  normaliseOrRefuse,
  productMismatch,
  type NormalisedIdentifier,
} from './rules.js';
import {
  activationResultView,
  licenseDetailView,
  planView,
  unknownKeyView,
  validationView,
} from './views.js';

/** How often an activation is decided again when the license changed between read and write. */
const MAX_CLAIM_ROUNDS = 5;

/** 128 random bits: license keys are credentials (spec 5.1) and must not be guessable. */
function generateLicenseKey(): string {
  return randomBytes(16).toString('hex');
}

export interface LicenseServiceDeps {
  models: LicenseModels;
  sequences: Sequences;
  products: ProductDirectory;
  startedAt: number;
  clock?: () => Date;
}

/** RPC handlers of the license service: plans, licenses, activations, rejected attempts. */
export function licenseHandlers(deps: LicenseServiceDeps): HandlersOf<'license'> {
  const { License, Plan, RejectedAttempt } = deps.models;
  const { products } = deps;
  const clock = deps.clock ?? (() => new Date());

  const findLicense = (licenseKey: string) =>
    License.findOne({ license_key: licenseKey }).lean<LicenseDocument>();

  async function requireLicense(licenseKey: string): Promise<LicenseDocument> {
    const license = await findLicense(licenseKey);
    if (!license) throw new LicensingError('NOT_FOUND', 'There is no license with this key.');
    return license;
  }

  async function planName(planId: number): Promise<string> {
    const plan = await Plan.findById(planId, { name: 1 }).lean();
    if (!plan) throw internalError(`The plan ${planId} of this license is missing.`);
    return plan.name;
  }

  /** Spec 2.5: one row per identifier, its try count increased on every refusal. */
  async function recordRejectedAttempt(
    licenseKey: string,
    identifier: NormalisedIdentifier,
    now: Date,
    context: CallContext,
  ): Promise<void> {
    const filter = { license_key: licenseKey, identifier_key: identifier.key };
    const update = {
      $inc: { tries: 1 },
      $set: { identifier: identifier.identifier, last_attempt_at: now },
    };
    context.beforeWrite();
    try {
      await RejectedAttempt.updateOne(filter, update, { upsert: true });
    } catch (error) {
      // Two first refusals raced to insert the row: the loser increments the winner's row.
      if (!isDuplicateKey(error)) throw error;
      context.beforeWrite();
      await RejectedAttempt.updateOne(filter, update);
    }
  }

  /**
   * Takes a slot in one atomic update of the license document. The filter re-checks every
   * condition of spec 3.2 (active, unexpired, identifier not yet active, below the limit), so
   * concurrent requests on any number of replicas can never exceed the limit.
   */
  function claimSlot(
    license: LicenseDocument,
    activation: ActivationRecord,
    now: Date,
    context: CallContext,
  ): Promise<LicenseDocument | null> {
    context.beforeWrite();
    return License.findOneAndUpdate(
      {
        _id: license._id,
        status: 'active',
        $or: [{ expires_at: null }, { expires_at: { $gt: now } }],
        'activations.identifier_key': { $ne: activation.identifier_key },
        $expr: {
          $or: [
            { $eq: ['$activation_limit', 0] },
            { $lt: [{ $size: '$activations' }, '$activation_limit'] },
          ],
        },
      },
      { $push: { activations: activation } },
      { returnDocument: 'after' },
    ).lean<LicenseDocument>();
  }

  /**
   * Decides and, when allowed, claims a slot; decides again when the license changed between the
   * read and the atomic write. `refuse` returns the refusal, recorded when spec 2.5 says so.
   */
  async function activate(
    licenseKey: string,
    request: { identifier: string; product_id: number | null; name: string | null; ip: string },
    recordRefusals: boolean,
    context: CallContext,
  ): Promise<
    { license: LicenseDocument; identifier: string; created: boolean } | { refusal: LicensingError }
  > {
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const now = clock();
      const license = await findLicense(licenseKey);
      const product = license ? await products.get(license.product_id) : null;
      const decision = decideActivation(license, product, request, now);
      if (decision.outcome === 'refuse') {
        if (recordRefusals && license && decision.recordAttempt) {
          await recordRejectedAttempt(license.license_key, decision.recordAttempt, now, context);
        }
        return { refusal: decision.error };
      }
      if (decision.outcome === 'already-active') {
        return { license: license!, identifier: decision.identifier, created: false };
      }
      const updated = await claimSlot(
        license!,
        {
          identifier: decision.identifier.identifier,
          identifier_key: decision.identifier.key,
          name: request.name,
          ip: request.ip,
          activated_at: now,
        },
        now,
        context,
      );
      if (updated)
        return { license: updated, identifier: decision.identifier.identifier, created: true };
    }
    throw internalError('The license changed too often during this activation; try again.');
  }

  /** Frees a slot (spec 3.2: deactivate, and Remove in admin). */
  async function removeActivation(
    license: LicenseDocument,
    rawIdentifier: string,
    context: CallContext,
  ): Promise<{ license: LicenseDocument; identifier: string }> {
    const { key } = normaliseOrRefuse(license.activation_type, rawIdentifier);
    // The document as it was just before the atomic removal names the activation removed.
    context.beforeWrite();
    const before = await License.findOneAndUpdate(
      { _id: license._id, 'activations.identifier_key': key },
      { $pull: { activations: { identifier_key: key } } },
      { returnDocument: 'before' },
    ).lean<LicenseDocument>();
    const removed = before && findActivation(before.activations, key);
    if (!before || !removed) {
      throw new LicensingError(
        'ACTIVATION_NOT_FOUND',
        'This identifier is not activated on this license.',
      );
    }
    const activations = before.activations.filter((a) => a.identifier_key !== key);
    return { license: { ...before, activations }, identifier: removed.identifier };
  }

  /** Whether an identifier, normalised as in 2.4, is activated; one that cannot be is not. */
  function isActivated(license: LicenseDocument, rawIdentifier: string): boolean {
    const identifier = normaliseIdentifier(license.activation_type, rawIdentifier);
    return (
      identifier !== null &&
      findActivation(license.activations, identifierKey(identifier)) !== undefined
    );
  }

  async function detail(license: LicenseDocument) {
    const [product, plan, attempts] = await Promise.all([
      products.find(license.product_id),
      Plan.findById(license.plan_id, { name: 1 }).lean(),
      RejectedAttempt.find({ license_key: license.license_key })
        .sort({ last_attempt_at: -1 })
        .lean(),
    ]);
    return licenseDetailView(license, product, plan?.name ?? null, attempts, clock());
  }

  return {
    'license.health': async () => ({
      service: 'license',
      status: 'ok',
      uptime_seconds: Math.round((Date.now() - deps.startedAt) / 1000),
    }),

    // ---- Spec 4.1 ----
    'license.activate': async (request, context) => {
      const result = await activate(request.license_key, request, true, context);
      if ('refusal' in result) throw result.refusal;
      const { license, identifier } = result;
      const [product, plan] = await Promise.all([
        products.get(license.product_id),
        planName(license.plan_id),
      ]);
      return activationResultView(license, product, plan, identifier, clock());
    },

    // ---- Spec 4.2 ----
    'license.validate': async (request, context) => {
      const now = clock();
      const license = await findLicense(request.license_key);
      if (!license) return unknownKeyView(request.license_key);
      const product = await products.get(license.product_id);
      if (request.product_id !== null && !coversProduct(product, request.product_id)) {
        throw productMismatch();
      }
      const identifierActivated =
        request.identifier === null || isActivated(license, request.identifier);
      // Rule 3: only a check without identifier, or with an activated one, counts as a check.
      if (identifierActivated) {
        context.beforeWrite();
        await License.updateOne(
          { _id: license._id },
          { $set: { last_check_at: now, last_check_ip: request.ip }, $inc: { check_count: 1 } },
        );
      }
      return validationView(
        license,
        product,
        await planName(license.plan_id),
        identifierActivated,
        now,
      );
    },

    // ---- Spec 4.3 (completed in docs/api-decisions.md) ----
    'license.deactivate': async (request, context) => {
      const license = await findLicense(request.license_key);
      if (!license) throw new LicensingError('LICENSE_INVALID', 'This license key is not valid.');
      normaliseOrRefuse(license.activation_type, request.identifier);
      const product = await products.get(license.product_id);
      if (request.product_id !== null && !coversProduct(product, request.product_id)) {
        throw productMismatch();
      }
      const removed = await removeActivation(license, request.identifier, context);
      return activationResultView(
        removed.license,
        product,
        await planName(license.plan_id),
        removed.identifier,
        clock(),
      );
    },

    // ---- Spec 4.4 and 4.5: what the update check and downloads need to know of a key ----
    'license.coverage': async ({ license_key, product_id, identifier }) => {
      const license = await findLicense(license_key);
      if (!license) {
        return {
          found: false,
          covers: false,
          status: null,
          plan_id: null,
          expires_at: null,
          auto_renew: false,
          next_payment_at: null,
          identifier_activated: identifier === null ? null : false,
        };
      }
      const product = await products.get(license.product_id);
      const covers = coversProduct(product, product_id);
      return {
        found: true,
        covers,
        status: effectiveStatus(license, clock()),
        // A bundle key sees only all-plans files of the bundle's products (spec 4.4 rule 5).
        plan_id: covers && license.product_id === product_id ? license.plan_id : null,
        expires_at: license.expires_at?.toISOString() ?? null,
        auto_renew: license.auto_renew,
        next_payment_at: license.next_payment_at?.toISOString() ?? null,
        identifier_activated: identifier === null ? null : isActivated(license, identifier),
      };
    },

    // ---- Plans ----
    'license.createPlan': async (request, context) => {
      const fields = {
        name: request.name,
        activation_type: request.activation_type,
        activation_limit: request.activation_limit,
      };
      // Checked before the sequence counter is incremented too, and again before each insert.
      context.beforeWrite();
      return deps.sequences.insert(
        'plan',
        request.id,
        async (id) => {
          context.beforeWrite();
          return planView((await Plan.create({ _id: id, ...fields })).toObject());
        },
        () => new LicensingError('ALREADY_EXISTS', `Plan ${request.id} already exists.`),
      );
    },

    'license.getPlan': async ({ id }) => {
      const plan = await Plan.findById(id).lean();
      if (!plan) throw new LicensingError('NOT_FOUND', `Plan ${id} does not exist.`);
      return planView(plan);
    },

    'license.listPlans': async () => ({
      plans: (await Plan.find().sort({ _id: 1 }).lean()).map(planView),
    }),

    // ---- Licenses (admin) ----
    'license.createLicense': async (request, context) => {
      const plan = await Plan.findById(request.plan_id).lean();
      if (!plan) {
        throw new LicensingError('INVALID_REQUEST', `Plan ${request.plan_id} does not exist.`);
      }
      if (!(await products.find(request.product_id))) {
        throw new LicensingError(
          'INVALID_REQUEST',
          `Product ${request.product_id} does not exist.`,
        );
      }
      try {
        context.beforeWrite();
        const created = await License.create({
          license_key: request.license_key ?? generateLicenseKey(),
          product_id: request.product_id,
          plan_id: plan._id,
          status: request.status,
          expires_at: request.expires_at === null ? null : new Date(request.expires_at),
          auto_renew: request.auto_renew,
          next_payment_at:
            request.next_payment_at === null ? null : new Date(request.next_payment_at),
          // Spec 2.1: the license copies the plan's limit (and type) when it is issued.
          activation_type: plan.activation_type,
          activation_limit: plan.activation_limit,
        });
        return await detail(created.toObject());
      } catch (error) {
        if (isDuplicateKey(error)) {
          throw new LicensingError('ALREADY_EXISTS', 'A license with this key already exists.');
        }
        throw error;
      }
    },

    'license.getLicense': async ({ license_key }) => detail(await requireLicense(license_key)),

    'license.updateLicense': async (
      { license_key, status, expires_at, activation_limit },
      context,
    ) => {
      const set: Partial<Pick<LicenseDocument, 'status' | 'expires_at' | 'activation_limit'>> = {};
      if (status !== undefined) set.status = status;
      if (expires_at !== undefined)
        set.expires_at = expires_at === null ? null : new Date(expires_at);
      if (activation_limit !== undefined) set.activation_limit = activation_limit;
      // Spec 3.3: a limit below the activations in use is refused, atomically.
      const limitFits =
        activation_limit === undefined || activation_limit === 0
          ? {}
          : { $expr: { $lte: [{ $size: '$activations' }, activation_limit] } };
      context.beforeWrite();
      const updated = await License.findOneAndUpdate(
        { license_key, ...limitFits },
        { $set: set },
        { returnDocument: 'after' },
      ).lean<LicenseDocument>();
      if (updated) return detail(updated);
      const license = await requireLicense(license_key);
      throw new LicensingError(
        'ACTIVATION_LIMIT_TOO_LOW',
        'The activation limit cannot be lower than the number of activations in use.',
        {
          details: {
            activation_limit: activation_limit ?? license.activation_limit,
            activations_used: license.activations.length,
          },
        },
      );
    },

    // ---- Spec 3.2: Add and Remove in admin ----
    'license.addActivation': async ({ license_key, identifier, name }, context) => {
      await requireLicense(license_key);
      // Spec 2.5 records refusals of the activate call; an admin's refused Add is not recorded.
      const result = await activate(
        license_key,
        { identifier, name, product_id: null, ip: '' },
        false,
        context,
      );
      if ('refusal' in result) throw result.refusal;
      if (!result.created) {
        throw new LicensingError(
          'ACTIVATION_EXISTS',
          'This identifier is already activated on this license.',
        );
      }
      return detail(result.license);
    },

    'license.removeActivation': async ({ license_key, identifier }, context) => {
      const removed = await removeActivation(
        await requireLicense(license_key),
        identifier,
        context,
      );
      return detail(removed.license);
    },
  };
}
