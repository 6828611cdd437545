import {
  BSON,
  ObjectId,
  type Abortable,
  type Collection,
  type Filter,
  type FindOneAndUpdateOptions,
} from 'mongodb';
import type { Connection } from 'mongoose';
import {
  DEFAULT_EXEMPT_LIMIT,
  activationTypes,
  internalError,
  type LicenseSortField,
  type LicenseStatus,
  type ListCursor,
} from '../../libs/contracts/index.js';
import {
  Sequences,
  afterCursor,
  cursorAt,
  isDuplicateKey,
  setOf,
  sortOf,
  type StoredOrder,
} from '../../libs/database/index.js';
import { identifierKey } from '../../libs/identifier/index.js';
import type { Logger } from '../../libs/logging/index.js';
import {
  SCHEDULED_TASKS_COLLECTION,
  licenseCollection,
  licenseModels,
  type LicenseDocument,
  type LicenseModels,
  type MetadataEntry,
  type RejectedAttemptDocument,
  type ScheduledJobDocument,
  type TaskRunDocument,
} from './models.js';
import { COUNT_STORED_ACTIVATIONS, runOnce } from './migrations.js';
import { MongoPlanStore, keepPlanNamesUnique } from './mongo-plan-store.js';
import {
  MAX_ACTIVATION_BYTES,
  RECENT_CHECKS,
  type ActivationPage,
  type ActivationRecord,
  type BeforeEachWrite,
  type MatchingCheck,
  type LicenseChanges,
  type LicenseFigures,
  type LicenseFilters,
  type LicenseOrder,
  type LicenseRecord,
  type LicenseRenewal,
  type LicenseStore,
  type LicenseStores,
  type LapsedRelease,
  type LicenseBatch,
  type LicenseScan,
  type LicenseUpdate,
  type NewActivation,
  type NewLicense,
  type PlanTerms,
  type RejectedAttemptRecord,
  type RejectedAttemptStore,
  type RenewalBasis,
  type TaskRunRecord,
  type TaskRunStore,
} from './stores.js';

/**
 * The stores on the service's own database: its models are created, their indexes built, plans
 * stored under one name before names were unique renamed (and said in `logger`) before the
 * index that keeps them unique is built, and licenses stored before their activations were
 * counted get their counts, at the first start only (migrations.ts).
 */
export async function openMongoStores(db: Connection, logger: Logger): Promise<LicenseStores> {
  const models = licenseModels(db);
  await Promise.all(Object.values(models).map((model) => model.init()));
  await keepPlanNamesUnique(models.Plan, logger);
  const licenses = licenseCollection(models.License);
  await runOnce(db, COUNT_STORED_ACTIVATIONS, () => countStoredActivations(licenses));
  return {
    licenses: new MongoLicenseStore(licenses),
    plans: new MongoPlanStore(models.Plan, new Sequences(db)),
    rejectedAttempts: new MongoRejectedAttemptStore(models.RejectedAttempt),
    taskRuns: new MongoTaskRunStore(
      models.TaskRun,
      db.collection<ScheduledJobDocument>(SCHEDULED_TASKS_COLLECTION),
    ),
  };
}

const noWriteCheck: BeforeEachWrite = () => {};

/**
 * What an activation takes of its license's record at most: its BSON size as an element of the
 * activations array, with every date it may later be given already set, so that what is counted
 * when it is claimed still holds once it is changed.
 */
export function activationBytes(
  activation: Omit<ActivationRecord, 'last_checkout_at' | 'lease_expires_at' | 'exempt'>,
): number {
  const element = {
    ...activation,
    last_checkout_at: new Date(0),
    lease_expires_at: new Date(0),
    exempt: false,
  };
  // An array element is its type byte, its index as a key (at most 9 digits) and the document.
  return BSON.calculateObjectSize(element) + 11;
}

/**
 * Licenses stored before their activations were counted get `activations_used` and
 * `activations_bytes`. Safe to run again and by several replicas at once: each license is
 * counted from its own activations, and only while it still has no count.
 */
export async function countStoredActivations(
  licenses: Collection<LicenseDocument>,
): Promise<number> {
  const uncounted = await licenses
    .find(
      {
        $or: [{ activations_used: { $exists: false } }, { activations_bytes: { $exists: false } }],
      },
      { projection: { activations: 1 } },
    )
    .toArray();
  for (const { _id, activations = [] } of uncounted) {
    await licenses.updateOne(
      {
        _id,
        $or: [{ activations_used: { $exists: false } }, { activations_bytes: { $exists: false } }],
      },
      {
        $set: {
          activations_used: activations.filter((a) => a.exempt !== true).length,
          exempt_used: activations.filter((a) => a.exempt === true).length,
          activations_bytes: activations.reduce((sum, a) => sum + activationBytes(a), 0),
        },
      },
    );
  }
  return uncounted.length;
}

/** The activation of an identifier key that has not lapsed at `now` (no lease, or a later end). */
const liveActivation = (key: string, now: Date) => ({
  identifier_key: key,
  lease_expires_at: { $not: { $lte: now } },
});

/**
 * The update that removes an activation and frees what it held, in one: its slot (an exempt
 * one, or one of the limit) and its room in the record.
 */
const removal = (activation: ActivationRecord, now: Date) => ({
  $pull: { activations: { identifier_key: activation.identifier_key } },
  $inc: {
    [activation.exempt ? 'exempt_used' : 'activations_used']: -1,
    activations_bytes: -activationBytes(activation),
  },
  $set: { updated_at: now },
});

/** An activation with a lease, as an aggregation condition on `$$this`. */
const LEASED = { $ne: [{ $ifNull: ['$$this.lease_expires_at', null] }, null] };

/**
 * Every field of a license but its activations and the ids of its last checks: what the hot
 * paths read and answer with.
 */
const WITHOUT_ACTIVATIONS = { activations: 0, recent_checks: 0 } as const;

/**
 * The options of validate's count. The driver gives up an operation whose signal aborts while it
 * waits for a server or a connection; its types offer `signal` on reads and commands only, so it
 * travels in a variable, which the options type of the write accepts
 * (test/integration/rpc-deadlines.test.ts checks that it is honoured).
 */
function countOptions(
  signal: AbortSignal,
): FindOneAndUpdateOptions & Abortable & { includeResultMetadata: false } {
  return {
    returnDocument: 'after',
    projection: WITHOUT_ACTIVATIONS,
    includeResultMetadata: false,
    signal,
  };
}

/**
 * Runs `write` with a signal that aborts at `deadline` (epoch milliseconds): a write still
 * waiting for a connection then is never sent (one already sent may still take effect), and the
 * caller is told INTERNAL_ERROR, as `CallContext.beforeWrite` tells it.
 */
async function beforeDeadline<T>(
  deadline: number,
  write: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const left = deadline - Date.now();
  if (left <= 0) controller.abort();
  const timer = left > 0 ? setTimeout(() => controller.abort(), left) : undefined;
  try {
    return await write(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      throw internalError('The caller stopped waiting for this write; it was given up.');
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function activationRecord(a: ActivationRecord): ActivationRecord {
  return {
    identifier: a.identifier,
    identifier_key: a.identifier_key,
    name: a.name ?? null,
    ip: a.ip ?? '',
    activated_at: a.activated_at,
    // Activations stored before license files, leases or exemptions existed have no such field.
    last_checkout_at: a.last_checkout_at ?? null,
    lease_expires_at: a.lease_expires_at ?? null,
    exempt: a.exempt ?? false,
  };
}

function licenseRecord(doc: LicenseDocument): LicenseRecord {
  return {
    license_key: doc.license_key,
    product_id: doc.product_id,
    plan_id: doc.plan_id,
    status: doc.status,
    expires_at: doc.expires_at ?? null,
    auto_renew: doc.auto_renew,
    next_payment_at: doc.next_payment_at ?? null,
    activation_type: doc.activation_type,
    activation_limit: doc.activation_limit,
    // Licenses stored before leases and exemptions existed have no such fields.
    lease_seconds: doc.lease_seconds ?? null,
    exempt_identifiers: doc.exempt_identifiers ?? [],
    exempt_limit: doc.exempt_limit ?? DEFAULT_EXEMPT_LIMIT,
    activations_used: doc.activations_used ?? 0,
    exempt_used: doc.exempt_used ?? 0,
    activations_bytes: doc.activations_bytes ?? 0,
    last_check_at: doc.last_check_at ?? null,
    last_check_ip: doc.last_check_ip ?? null,
    check_count: doc.check_count,
    created_at: doc.created_at,
    // Licenses stored before plan changes existed have no such field.
    pending_plan_id: doc.pending_plan_id ?? null,
    // Nor, before customers and metadata, these.
    customer: doc.customer ? { email: doc.customer.email, name: doc.customer.name ?? null } : null,
    metadata: Object.fromEntries((doc.metadata ?? []).map(({ key, value }) => [key, value])),
  };
}

/** Metadata as stored: its entries in the order given (models.ts `MetadataEntry`). */
function metadataEntries(metadata: Record<string, string>): MetadataEntry[] {
  return Object.entries(metadata).map(([key, value]) => ({ key, value }));
}

function rejectedAttemptRecord(doc: RejectedAttemptDocument): RejectedAttemptRecord {
  return {
    license_key: doc.license_key,
    identifier: doc.identifier,
    identifier_key: doc.identifier_key,
    name: doc.name ?? null,
    reason: doc.reason ?? null,
    source: doc.source ?? null,
    tries: doc.tries,
    last_attempt_at: doc.last_attempt_at,
  };
}

type LicenseFilter = Filter<LicenseDocument>;

/**
 * The stored order of each order of the license list (libs/database `StoredOrder`): each has an
 * index in models.ts `licenseIndexes` on exactly its fields, or them reversed (a test checks).
 */
export const licenseListOrders: Record<LicenseSortField, Omit<StoredOrder, 'descending'>> = {
  created_at: { path: 'created_at', unique: false },
  expires_at: { path: 'expires_at', unique: false },
  license_key: { path: 'license_key', unique: true },
  customer_email: { path: 'customer.email', unique: false },
};

export function storedLicenseOrder({ field, descending }: LicenseOrder): StoredOrder {
  return { ...licenseListOrders[field], descending };
}

/** A cursor's value as stored: the dates of the list's date fields are dates. */
function storedSortValue(
  field: LicenseSortField,
  value: ListCursor['value'],
): Date | string | null {
  if (value === null) return null;
  const text = String(value);
  return field === 'created_at' || field === 'expires_at' ? new Date(text) : text;
}

/** The sort value of a license as stored, for the cursor after it. */
function sortValueOf(doc: LicenseDocument, field: LicenseSortField): Date | string | null {
  switch (field) {
    case 'created_at':
      return doc.created_at;
    case 'expires_at':
      return doc.expires_at ?? null;
    case 'license_key':
      return doc.license_key;
    case 'customer_email':
      return doc.customer?.email ?? null;
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Spec 3.1: the licenses whose reported status is `status`, through the status index. */
function reportedStatusFilter(status: LicenseStatus, now: Date): LicenseFilter {
  switch (status) {
    case 'active':
      return { status: 'active', $or: [{ expires_at: null }, { expires_at: { $gt: now } }] };
    case 'expired':
      // An active license past its date reports `expired` before the scheduled task marks it.
      return {
        $or: [{ status: 'expired' }, { status: 'active', expires_at: { $ne: null, $lte: now } }],
      };
    default:
      return { status };
  }
}

/**
 * The MongoDB filter of an admin search, or null when it can match nothing. Every branch of it
 * starts with the first field of an index in models.ts `licenseIndexes` (a test checks each
 * combination of filters); one without any filter is served in order by the index of its order.
 */
export function licenseSearchFilter(filters: LicenseFilters, now: Date): LicenseFilter | null {
  const conditions: LicenseFilter[] = [];
  if (filters.productId !== null) conditions.push({ product_id: filters.productId });
  if (filters.planId !== null) conditions.push({ plan_id: filters.planId });
  if (filters.status !== null) conditions.push(reportedStatusFilter(filters.status, now));
  if (filters.text !== null) {
    const { keyPrefix, identifierKeys, customerEmail, metadataValues } = filters.text;
    const alternatives: LicenseFilter[] = [];
    // Anchored and case-sensitive, so it is a range of the unique key index.
    if (keyPrefix !== null) {
      alternatives.push({ license_key: { $regex: `^${escapeRegExp(keyPrefix)}` } });
    }
    if (identifierKeys.length > 0) {
      alternatives.push({ 'activations.identifier_key': { $in: identifierKeys } });
    }
    if (customerEmail !== null) alternatives.push({ 'customer.email': customerEmail });
    if (metadataValues.length > 0) {
      alternatives.push({ 'metadata.value': { $in: metadataValues } });
    }
    if (alternatives.length === 0) return null;
    conditions.push(alternatives.length === 1 ? alternatives[0]! : { $or: alternatives });
  }
  if (conditions.length === 0) return {};
  return conditions.length === 1 ? conditions[0]! : { $and: conditions };
}

/**
 * Activations are embedded in the license document, so each rule is one single-document update.
 * The store speaks to the collection through the driver: its calls skip mongoose's query building
 * and casting, which the hot paths cannot afford (docs/performance.md), so what they send is
 * already of the schema's types (models.ts), and they set `created_at` and `updated_at`
 * themselves, from the caller's time.
 */
export class MongoLicenseStore implements LicenseStore {
  constructor(private readonly licenses: Collection<LicenseDocument>) {}

  async findByKey(licenseKey: string): Promise<LicenseRecord | null> {
    const doc = await this.licenses.findOne(
      { license_key: licenseKey },
      { projection: WITHOUT_ACTIVATIONS },
    );
    return doc && licenseRecord(doc);
  }

  /**
   * The license with only its activations that meet `cond` (an aggregation expression on
   * `$$this`): the database filters the list, so only those travel. Null for an unknown key.
   */
  private async withActivationsWhere(
    licenseKey: string,
    cond: object,
  ): Promise<{ license: LicenseRecord; activations: ActivationRecord[] } | null> {
    const [doc] = await this.licenses
      .aggregate<LicenseDocument>([
        { $match: { license_key: licenseKey } },
        { $addFields: { activations: { $filter: { input: '$activations', cond } } } },
      ])
      .toArray();
    return doc
      ? { license: licenseRecord(doc), activations: doc.activations.map(activationRecord) }
      : null;
  }

  async findWithActivations({
    licenseKey,
    identifierKeys,
  }: {
    licenseKey: string;
    identifierKeys: readonly string[];
  }): Promise<{ license: LicenseRecord; activations: ActivationRecord[] } | null> {
    if (identifierKeys.length === 0) {
      const license = await this.findByKey(licenseKey);
      return license && { license, activations: [] };
    }
    return this.withActivationsWhere(licenseKey, {
      $in: ['$$this.identifier_key', [...new Set(identifierKeys)]],
    });
  }

  async listActivations({
    licenseKey,
    identifierKeys,
    page,
    perPage,
  }: {
    licenseKey: string;
    identifierKeys: readonly string[] | null;
    page: number;
    perPage: number;
  }): Promise<ActivationPage> {
    const listed =
      identifierKeys === null
        ? '$activations'
        : {
            $filter: {
              input: '$activations',
              cond: { $in: ['$$this.identifier_key', [...new Set(identifierKeys)]] },
            },
          };
    // The page is cut by the database: only it travels, however many activations there are.
    const [found] = await this.licenses
      .aggregate<{ total: number; activations: ActivationRecord[] }>([
        { $match: { license_key: licenseKey } },
        { $project: { _id: 0, listed } },
        {
          $project: {
            total: { $size: '$listed' },
            activations: { $slice: ['$listed', (page - 1) * perPage, perPage] },
          },
        },
      ])
      .toArray();
    if (!found) return { activations: [], total: 0 };
    return { activations: found.activations.map(activationRecord), total: found.total };
  }

  async issue({
    license,
    now,
  }: {
    license: NewLicense;
    now: Date;
  }): Promise<{ outcome: 'issued'; license: LicenseRecord } | { outcome: 'key-taken' }> {
    // In the schema's field order, with its defaults, as mongoose would have stored it.
    const doc: Omit<LicenseDocument, '_id'> = {
      license_key: license.license_key,
      product_id: license.product_id,
      plan_id: license.plan_id,
      status: license.status,
      expires_at: license.expires_at,
      auto_renew: license.auto_renew,
      next_payment_at: license.next_payment_at,
      activation_type: license.activation_type,
      activation_limit: license.activation_limit,
      lease_seconds: license.lease_seconds,
      exempt_identifiers: license.exempt_identifiers,
      exempt_limit: license.exempt_limit,
      activations: [],
      activations_used: 0,
      exempt_used: 0,
      activations_bytes: 0,
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      recent_checks: [],
      pending_plan_id: null,
      ...(license.customer ? { customer: license.customer } : {}),
      metadata: metadataEntries(license.metadata ?? {}),
      created_at: now,
      updated_at: now,
    };
    try {
      const { insertedId } = await this.licenses.insertOne(doc as LicenseDocument);
      return { outcome: 'issued', license: licenseRecord({ ...doc, _id: insertedId }) };
    } catch (error) {
      if (isDuplicateKey(error)) return { outcome: 'key-taken' };
      throw error;
    }
  }

  async claimSlot({
    licenseKey,
    activation,
    now,
  }: {
    licenseKey: string;
    activation: NewActivation;
    now: Date;
  }): Promise<{ license: LicenseRecord; activation: ActivationRecord } | null> {
    const key = identifierKey(activation.identifier);
    // In the schema's field order, as mongoose would have stored it.
    const pushed: ActivationRecord = {
      identifier: activation.identifier,
      identifier_key: key,
      name: activation.name,
      ip: activation.ip,
      activated_at: activation.activated_at,
      last_checkout_at: null,
      lease_expires_at: activation.lease_expires_at,
      exempt: activation.exempt,
    };
    const bytes = activationBytes(pushed);
    // An exempt activation takes one of the exempt slots; any other, one of the limit's.
    const slots = activation.exempt
      ? { $lt: ['$exempt_used', '$exempt_limit'] }
      : {
          $or: [
            { $eq: ['$activation_limit', 0] },
            { $lt: ['$activations_used', '$activation_limit'] },
          ],
        };
    const doc = await this.licenses.findOneAndUpdate(
      {
        license_key: licenseKey,
        status: 'active',
        $or: [{ expires_at: null }, { expires_at: { $gt: now } }],
        'activations.identifier_key': { $ne: key },
        activations_bytes: { $lte: MAX_ACTIVATION_BYTES - bytes },
        $expr: slots,
      },
      {
        $push: { activations: pushed },
        $inc: {
          [activation.exempt ? 'exempt_used' : 'activations_used']: 1,
          activations_bytes: bytes,
        },
        $set: { updated_at: now },
      },
      { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    return doc && { license: licenseRecord(doc), activation: pushed };
  }

  async releaseSlot({
    licenseKey,
    activation,
    now,
  }: {
    licenseKey: string;
    activation: ActivationRecord;
    now: Date;
  }): Promise<{ license: LicenseRecord; released: ActivationRecord } | null> {
    // This very activation, as read: what its removal gives back of the record is then known.
    const doc = await this.licenses.findOneAndUpdate(
      {
        license_key: licenseKey,
        activations: {
          $elemMatch: {
            identifier_key: activation.identifier_key,
            identifier: activation.identifier,
            activated_at: activation.activated_at,
          },
        },
      },
      removal(activation, now),
      { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    return doc && { license: licenseRecord(doc), released: activation };
  }

  async renewLease({
    licenseKey,
    identifierKey: key,
    now,
    until,
  }: {
    licenseKey: string;
    identifierKey: string;
    now: Date;
    until: Date;
  }): Promise<boolean> {
    const { matchedCount } = await this.licenses.updateOne(
      { license_key: licenseKey, activations: { $elemMatch: liveActivation(key, now) } },
      { $set: { 'activations.$.lease_expires_at': until } },
    );
    return matchedCount === 1;
  }

  async releaseLapsed({
    licenseKey,
    now,
  }: {
    licenseKey: string;
    now: Date;
  }): Promise<LapsedRelease | null> {
    // The lapsed ones, picked out by the database; then each removed while still lapsed.
    const found = await this.withActivationsWhere(licenseKey, {
      $and: [LEASED, { $lte: ['$$this.lease_expires_at', now] }],
    });
    if (!found) return null;
    const released: ActivationRecord[] = [];
    let after: LicenseDocument | null = null;
    for (const activation of found.activations) {
      const doc = await this.licenses.findOneAndUpdate(
        {
          license_key: licenseKey,
          activations: {
            $elemMatch: {
              identifier_key: activation.identifier_key,
              lease_expires_at: { $lte: now },
            },
          },
        },
        removal(activation, now),
        { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
      );
      if (doc) {
        released.push(activation);
        after = doc;
      }
    }
    return { license: after ? licenseRecord(after) : found.license, released };
  }

  async withLapsedActivations({ now, limit }: { now: Date; limit: number }): Promise<string[]> {
    const found = await this.licenses
      .find({ 'activations.lease_expires_at': { $lte: now } }, { projection: { license_key: 1 } })
      .limit(limit)
      .toArray();
    return found.map((doc) => doc.license_key);
  }

  /** Spec 3.3 with leases: a plan without one leaves no activation that lapses. */
  private async clearLeases(licenseKey: string): Promise<void> {
    const found = await this.withActivationsWhere(licenseKey, LEASED);
    for (const activation of found?.activations ?? []) {
      await this.licenses.updateOne(
        {
          license_key: licenseKey,
          lease_seconds: null,
          'activations.identifier_key': activation.identifier_key,
        },
        { $set: { 'activations.$.lease_expires_at': null } },
      );
    }
  }

  async recordCheckout({
    licenseKey,
    identifier,
    at,
    leaseSeconds,
    leaseExpiresAt,
  }: {
    licenseKey: string;
    identifier: string;
    at: Date;
    leaseSeconds: number | null;
    leaseExpiresAt: Date | null;
  }): Promise<boolean> {
    // `$` is the activation the filter matched: one document, one update, as a claim is.
    const { matchedCount } = await this.licenses.updateOne(
      {
        license_key: licenseKey,
        status: 'active',
        lease_seconds: leaseSeconds,
        $or: [{ expires_at: null }, { expires_at: { $gt: at } }],
        activations: { $elemMatch: liveActivation(identifierKey(identifier), at) },
      },
      {
        $set: {
          'activations.$.last_checkout_at': at,
          ...(leaseExpiresAt === null ? {} : { 'activations.$.lease_expires_at': leaseExpiresAt }),
          updated_at: at,
        },
      },
    );
    return matchedCount === 1;
  }

  async touchCheckIfMatching({
    licenseKey,
    productId,
    identifierKeys,
    at,
    ip,
    checkId,
    deadline,
  }: MatchingCheck): Promise<LicenseRecord | null> {
    // An identifier valid under no activation type is activated on no license.
    if (identifierKeys !== null && Object.keys(identifierKeys).length === 0) return null;
    const filter: LicenseFilter = { license_key: licenseKey, recent_checks: { $ne: checkId } };
    if (productId !== null) filter.product_id = productId;
    if (identifierKeys !== null) {
      filter.$or = activationTypes.flatMap((type) => {
        const key = identifierKeys[type];
        return key === undefined
          ? []
          : [{ activation_type: type, activations: { $elemMatch: liveActivation(key, at) } }];
      });
    }
    const doc = await beforeDeadline(deadline, (signal) =>
      this.licenses.findOneAndUpdate(
        filter,
        {
          $set: { last_check_at: at, last_check_ip: ip, updated_at: at },
          $inc: { check_count: 1 },
          $push: { recent_checks: { $each: [checkId], $slice: -RECENT_CHECKS } },
        },
        countOptions(signal),
      ),
    );
    return doc && licenseRecord(doc);
  }

  async update({
    licenseKey,
    changes,
    now,
    expected,
  }: {
    licenseKey: string;
    changes: LicenseChanges;
    now: Date;
    expected?: Pick<LicenseRecord, 'expires_at'>;
  }): Promise<LicenseUpdate> {
    const limit = changes.activation_limit;
    const limitFits: LicenseFilter =
      limit === undefined || limit === 0 ? {} : { activations_used: { $lte: limit } };
    const expiryAsRead: LicenseFilter = expected ? { expires_at: expected.expires_at } : {};
    const { metadata, customer } = changes;
    const set = setOf({
      status: changes.status,
      expires_at: changes.expires_at,
      activation_limit: limit,
    });
    const stored = {
      ...(metadata === undefined ? {} : { metadata: metadataEntries(metadata) }),
      ...(customer ? { customer } : {}),
    };
    // A license without a customer has no `customer` field (models.ts).
    const unset = customer === null ? { $unset: { customer: '' as const } } : {};
    // The license as it was: the change is exactly `set`, so the license after is it with `set`.
    const before = await this.licenses.findOneAndUpdate(
      { license_key: licenseKey, ...limitFits, ...expiryAsRead },
      { $set: { ...set, ...stored, updated_at: now }, ...unset },
      { returnDocument: 'before', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    if (before) {
      const previous = licenseRecord(before);
      const license = {
        ...previous,
        ...set,
        ...(metadata === undefined ? {} : { metadata }),
        ...(customer === undefined ? {} : { customer }),
      };
      return { outcome: 'updated', license: structuredClone(license), previous };
    }
    if ((limit === undefined || limit === 0) && !expected) return { outcome: 'unknown-license' };
    // The filter did not match: there is no such license, its expiry moved, or the limit did not fit.
    const current = await this.findByKey(licenseKey);
    if (!current) return { outcome: 'unknown-license' };
    if (expected && current.expires_at?.getTime() !== expected.expires_at?.getTime()) {
      return { outcome: 'changed-meanwhile' };
    }
    return {
      outcome: 'limit-below-activations',
      activation_limit: limit ?? 0,
      activations_used: current.activations_used,
    };
  }

  async changePlan({
    licenseKey,
    plan,
    now,
  }: {
    licenseKey: string;
    plan: PlanTerms;
    now: Date;
  }): Promise<{ license: LicenseRecord; previous: LicenseRecord } | null> {
    const set = { ...planFields(plan), pending_plan_id: null };
    // The license as it was: the change is exactly `set`, so the license after is it with `set`.
    const before = await this.licenses.findOneAndUpdate(
      { license_key: licenseKey },
      { $set: { ...set, updated_at: now } },
      { returnDocument: 'before', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    if (!before) return null;
    if (plan.lease_seconds === null) await this.clearLeases(licenseKey);
    const previous = licenseRecord(before);
    return {
      license: { ...previous, ...set, exempt_identifiers: [...set.exempt_identifiers] },
      previous,
    };
  }

  async schedulePlanChange({
    licenseKey,
    planId,
    now,
  }: {
    licenseKey: string;
    planId: number;
    now: Date;
  }): Promise<LicenseRecord | null> {
    const doc = await this.licenses.findOneAndUpdate(
      { license_key: licenseKey },
      { $set: { pending_plan_id: planId, updated_at: now } },
      { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    return doc && licenseRecord(doc);
  }

  async renew({
    licenseKey,
    basis,
    renewal,
    now,
  }: {
    licenseKey: string;
    basis: RenewalBasis;
    renewal: LicenseRenewal;
    now: Date;
  }): Promise<LicenseRecord | null> {
    const { plan, ...dates } = renewal;
    const set = {
      ...setOf(dates),
      ...(plan ? { ...planFields(plan), pending_plan_id: null } : {}),
      updated_at: now,
    };
    // `pending_plan_id: null` also matches a license stored before the field existed.
    const doc = await this.licenses.findOneAndUpdate(
      {
        license_key: licenseKey,
        status: basis.status,
        plan_id: basis.plan_id,
        pending_plan_id: basis.pending_plan_id,
        expires_at: basis.expires_at,
      },
      { $set: set },
      { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    if (doc && plan?.lease_seconds === null) await this.clearLeases(licenseKey);
    return doc && licenseRecord(doc);
  }

  async search({
    filters,
    now,
    order,
    page,
    perPage,
  }: {
    filters: LicenseFilters;
    now: Date;
    order: LicenseOrder;
    page: number;
    perPage: number;
  }): Promise<{ licenses: LicenseRecord[]; total: number }> {
    const filter = licenseSearchFilter(filters, now);
    if (filter === null) return { licenses: [], total: 0 };
    const [docs, total] = await Promise.all([
      this.licenses
        .find(filter, { projection: WITHOUT_ACTIVATIONS })
        .sort(sortOf(storedLicenseOrder(order)))
        .skip((page - 1) * perPage)
        .limit(perPage)
        .toArray(),
      this.licenses.countDocuments(filter),
    ]);
    return { licenses: docs.map(licenseRecord), total };
  }

  async scan({ filters, now, order, after, limit }: LicenseScan): Promise<LicenseBatch> {
    const filter = licenseSearchFilter(filters, now);
    if (filter === null) return { licenses: [], next: null };
    const stored = storedLicenseOrder(order);
    const from =
      after === null
        ? filter
        : {
            $and: [
              filter,
              afterCursor(stored, storedSortValue(order.field, after.value), after.id),
            ],
          };
    const docs = await this.licenses
      .find(from as LicenseFilter, { projection: WITHOUT_ACTIVATIONS })
      .sort(sortOf(stored))
      .limit(limit)
      .toArray();
    const last = docs.at(-1);
    return {
      licenses: docs.map(licenseRecord),
      next:
        last && docs.length === limit ? cursorAt(sortValueOf(last, order.field), last._id) : null,
    };
  }

  async pastDue({ now, limit }: { now: Date; limit: number }): Promise<LicenseRecord[]> {
    const docs = await this.licenses
      .find(
        { status: 'active', expires_at: { $ne: null, $lte: now } },
        { projection: WITHOUT_ACTIVATIONS },
      )
      .limit(limit)
      .toArray();
    return docs.map(licenseRecord);
  }

  async expirePastDue({
    licenses,
    now,
  }: {
    licenses: LicenseRecord[];
    now: Date;
  }): Promise<LicenseRecord[]> {
    const due = licenses.filter((l) => l.expires_at !== null && l.expires_at <= now);
    if (due.length === 0) return [];
    // Marks what this write changed, for when another write changed some of them first.
    const batch = new ObjectId();
    const { modifiedCount } = await this.licenses.bulkWrite(
      due.map(({ license_key, expires_at }) => ({
        updateOne: {
          // The rule as read: a license renewed meanwhile is left alone.
          filter: { license_key, status: 'active' as const, expires_at },
          update: { $set: { status: 'expired' as const, updated_at: now, expiry_batch: batch } },
        },
      })),
      { ordered: false },
    );
    let expired = due;
    if (modifiedCount < due.length) {
      const written = await this.licenses
        .find(
          { license_key: { $in: due.map((l) => l.license_key) }, expiry_batch: batch },
          { projection: { license_key: 1 } },
        )
        .toArray();
      const keys = new Set(written.map((doc) => doc.license_key));
      expired = due.filter((license) => keys.has(license.license_key));
    }
    return expired.map((license) => ({ ...license, status: 'expired' }));
  }

  async currentFigures({
    productId,
    now,
    expiringBy,
  }: {
    productId: number | null;
    now: Date;
    expiringBy: Date;
  }): Promise<LicenseFigures> {
    // One pass over the active licenses, found through the status index (or the product's).
    const [figures] = await this.licenses
      .aggregate<LicenseFigures>([
        {
          $match:
            productId === null
              ? reportedStatusFilter('active', now)
              : { product_id: productId, ...reportedStatusFilter('active', now) },
        },
        {
          $group: {
            _id: null,
            active: { $sum: 1 },
            activationsInUse: { $sum: '$activations_used' },
            // A license without an expiry date (null) is neither after now nor before a date.
            expiring: {
              $sum: {
                $cond: [
                  { $and: [{ $gt: ['$expires_at', now] }, { $lte: ['$expires_at', expiringBy] }] },
                  1,
                  0,
                ],
              },
            },
          },
        },
        { $project: { _id: 0 } },
      ])
      .toArray();
    return figures ?? { active: 0, activationsInUse: 0, expiring: 0 };
  }
}

/** Spec 3.3: a plan applied to a license sets its plan, limit and type. */
function planFields(plan: PlanTerms) {
  return {
    plan_id: plan.id,
    activation_type: plan.activation_type,
    activation_limit: plan.activation_limit,
    lease_seconds: plan.lease_seconds,
    exempt_identifiers: plan.exempt_identifiers,
    exempt_limit: plan.exempt_limit,
  };
}

export class MongoRejectedAttemptStore implements RejectedAttemptStore {
  constructor(private readonly RejectedAttempt: LicenseModels['RejectedAttempt']) {}

  async record({
    licenseKey,
    identifier,
    name,
    reason,
    source,
    at,
    beforeEachWrite = noWriteCheck,
  }: Parameters<RejectedAttemptStore['record']>[0]): Promise<void> {
    const filter = { license_key: licenseKey, identifier_key: identifierKey(identifier) };
    const update = {
      $inc: { tries: 1 },
      $set: { identifier, name, reason, source, last_attempt_at: at },
    };
    beforeEachWrite();
    try {
      await this.RejectedAttempt.updateOne(filter, update, { upsert: true });
    } catch (error) {
      // Two first refusals raced to insert the row: the loser increments the winner's row.
      if (!isDuplicateKey(error)) throw error;
      beforeEachWrite();
      await this.RejectedAttempt.updateOne(filter, update);
    }
  }

  async listForLicense(licenseKey: string): Promise<RejectedAttemptRecord[]> {
    const docs = await this.RejectedAttempt.find({ license_key: licenseKey })
      .sort({ last_attempt_at: -1 })
      .lean<RejectedAttemptDocument[]>();
    return docs.map(rejectedAttemptRecord);
  }

  async pruneUntouchedSince(date: Date): Promise<number> {
    const result = await this.RejectedAttempt.deleteMany({ last_attempt_at: { $lte: date } });
    return result.deletedCount;
  }
}

function taskRunRecord(doc: TaskRunDocument): TaskRunRecord {
  return {
    name: doc._id,
    ran_at: doc.ran_at,
    trigger: doc.trigger,
    affected: doc.affected ?? null,
    error: doc.error ?? null,
  };
}

class MongoTaskRunStore implements TaskRunStore {
  constructor(
    private readonly TaskRun: LicenseModels['TaskRun'],
    /** The scheduler's job records (Agenda's collection, indexed by job name). */
    private readonly jobs: Pick<Collection<ScheduledJobDocument>, 'findOne'>,
  ) {}

  async recordRun(run: TaskRunRecord): Promise<void> {
    const { name, ...fields } = run;
    try {
      // Replaces the record of a run that started no later; creates it for a first run.
      await this.TaskRun.updateOne(
        { _id: name, ran_at: { $lte: run.ran_at } },
        { $set: fields },
        { upsert: true },
      );
    } catch (error) {
      // The record holds a run that started later: the upsert collided with it, which is kept.
      if (!isDuplicateKey(error)) throw error;
    }
  }

  async lastRuns(): Promise<TaskRunRecord[]> {
    return (await this.TaskRun.find().sort({ _id: 1 }).lean<TaskRunDocument[]>()).map(
      taskRunRecord,
    );
  }

  async nextScheduledRun({ jobName }: { jobName: string }): Promise<Date | null> {
    const job = await this.jobs.findOne({ name: jobName }, { projection: { nextRunAt: 1 } });
    return job?.nextRunAt instanceof Date ? job.nextRunAt : null;
  }
}
