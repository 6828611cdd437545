import { identifierKey } from '../../libs/identifier/index.js';
import {
  internalError,
  type LicenseSortField,
  type LicenseStatus,
} from '../../libs/contracts/index.js';
import type {
  ActivationRecord,
  ActivationPage,
  BeforeEachWrite,
  MatchingCheck,
  LicenseChanges,
  LicenseFigures,
  LicenseFilters,
  LicenseOrder,
  LicenseRecord,
  LicenseRenewal,
  LicenseStore,
  LicenseStores,
  LapsedRelease,
  LicenseBatch,
  LicenseScan,
  LicenseUpdate,
  NewActivation,
  NewLicense,
  PlanChanges,
  PlanNameTakenOutcome,
  PlanRecord,
  PlanStore,
  PlanTerms,
  RejectedAttemptRecord,
  RejectedAttemptStore,
  RenewalBasis,
  TaskRunRecord,
  TaskRunStore,
} from '../../services/license/stores.js';
import { activationBytes } from '../../services/license/mongo-stores.js';
import { planNameKey } from '../../services/license/rules.js';
import { MAX_ACTIVATION_BYTES, RECENT_CHECKS } from '../../services/license/stores.js';
import { deepCopy as copy } from './deep-copy.js';
import { batchAfter, sortedBy, type Place } from './memory-lists.js';

/**
 * The license service's stores in memory, with the semantics of the MongoDB ones (the store
 * contract test runs both): keys unique as under a unique index, identifiers matched through
 * their lower-cased key, records and their dates copied in and out, and every conditional write
 * checked and applied in one synchronous step, with no `await` between the check and the write,
 * so concurrent calls cannot interleave inside it, as a single-document update in MongoDB.
 *
 * Each method first yields to the event loop, so concurrent calls do interleave between methods,
 * as requests do between database round trips.
 */
export function memoryLicenseStores(): Omit<LicenseStores, 'licenses'> & {
  licenses: MemoryLicenseStore;
  writes(): number;
  scheduleJob(jobName: string, nextRunAt: Date | null): void;
} {
  const counter = { writes: 0 };
  const taskRuns = new MemoryTaskRunStore(counter);
  return {
    licenses: new MemoryLicenseStore(counter),
    plans: new MemoryPlanStore(counter),
    rejectedAttempts: new MemoryRejectedAttemptStore(counter),
    taskRuns,
    /** How many writes changed something: lets a test see that nothing was written. */
    writes: () => counter.writes,
    /** Stands for the scheduler's job record of a recurring task (services/license/scheduler.ts). */
    scheduleJob: (jobName, nextRunAt) => taskRuns.scheduleJob(jobName, nextRunAt),
  };
}

const roundTrip = () => new Promise<void>((resolve) => setImmediate(resolve));
const noWriteCheck: BeforeEachWrite = () => {};

/** Mirrors the MongoDB filter `{ lease_expires_at: { $not: { $lte: now } } }`: not lapsed. */
const liveAt = (activation: ActivationRecord, now: Date) =>
  activation.lease_expires_at === null || activation.lease_expires_at.getTime() > now.getTime();

/** Mirrors the MongoDB filter `{ expires_at: null } or { expires_at: { $gt: now } }`. */
const unexpiredAt = (license: LicenseRecord, now: Date) =>
  license.expires_at === null || license.expires_at.getTime() > now.getTime();

/** Mirrors the MongoDB filter of a reported status (mongo-stores.ts `reportedStatusFilter`). */
function hasReportedStatus(license: LicenseRecord, status: LicenseStatus, now: Date): boolean {
  switch (status) {
    case 'active':
      return license.status === 'active' && unexpiredAt(license, now);
    case 'expired':
      return (
        license.status === 'expired' || (license.status === 'active' && !unexpiredAt(license, now))
      );
    default:
      return license.status === status;
  }
}

/** Mirrors mongo-stores.ts `licenseSearchFilter`. */
function matchesFilters(
  license: LicenseRecord,
  activations: readonly ActivationRecord[],
  filters: LicenseFilters,
  now: Date,
): boolean {
  if (filters.productId !== null && license.product_id !== filters.productId) return false;
  if (filters.planId !== null && license.plan_id !== filters.planId) return false;
  if (filters.status !== null && !hasReportedStatus(license, filters.status, now)) return false;
  if (filters.text === null) return true;
  const { keyPrefix, identifierKeys, customerEmail, metadataValues } = filters.text;
  return (
    (keyPrefix !== null && license.license_key.startsWith(keyPrefix)) ||
    activations.some((a) => identifierKeys.includes(a.identifier_key)) ||
    (customerEmail !== null && license.customer?.email === customerEmail) ||
    Object.values(license.metadata).some((value) => metadataValues.includes(value))
  );
}

/** A license's sort value in an order of the list, as mongo-stores.ts `licenseListOrders` reads it. */
function sortValue(license: LicenseRecord, field: LicenseSortField): Date | string | null {
  switch (field) {
    case 'created_at':
      return license.created_at;
    case 'expires_at':
      return license.expires_at;
    case 'license_key':
      return license.license_key;
    case 'customer_email':
      return license.customer?.email ?? null;
  }
}

/** Spec 3.3: a plan applied to a license sets its plan, limit and type. */
function applyPlan(license: LicenseRecord, activations: ActivationRecord[], plan: PlanTerms): void {
  license.plan_id = plan.id;
  license.activation_type = plan.activation_type;
  license.activation_limit = plan.activation_limit;
  license.lease_seconds = plan.lease_seconds;
  license.exempt_identifiers = [...plan.exempt_identifiers];
  license.exempt_limit = plan.exempt_limit;
  license.pending_plan_id = null;
  // A plan without a lease leaves no activation that lapses.
  if (plan.lease_seconds === null) {
    for (const activation of activations) activation.lease_expires_at = null;
  }
}

class MemoryLicenseStore implements LicenseStore {
  private readonly byKey = new Map<string, LicenseRecord>();
  /** Each license's activations in the order they were made, as the activations collection. */
  private readonly activationsOf = new Map<string, ActivationRecord[]>();
  /** The order licenses were issued in: what MongoDB's `_id` breaks ties of `created_at` with. */
  private readonly issueOrder = new Map<string, number>();
  /** Each license's last counted checks' ids, as its `recent_checks`. */
  private readonly recentChecks = new Map<string, string[]>();

  constructor(private readonly counter: { writes: number }) {}

  async findByKey(licenseKey: string): Promise<LicenseRecord | null> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    return license ? copy(license) : null;
  }

  async findWithActivations({
    licenseKey,
    identifierKeys,
  }: {
    licenseKey: string;
    identifierKeys: readonly string[];
  }): Promise<{ license: LicenseRecord; activations: ActivationRecord[] } | null> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    if (!license) return null;
    const activations = (this.activationsOf.get(licenseKey) ?? []).filter((a) =>
      identifierKeys.includes(a.identifier_key),
    );
    return { license: copy(license), activations: activations.map(copy) };
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
    await roundTrip();
    const all = (this.activationsOf.get(licenseKey) ?? []).filter(
      (a) => identifierKeys === null || identifierKeys.includes(a.identifier_key),
    );
    const start = (page - 1) * perPage;
    return { activations: all.slice(start, start + perPage).map(copy), total: all.length };
  }

  /** Test setup: activations recorded as they are, slots counted, no rule checked. */
  seedActivations(licenseKey: string, activations: readonly NewActivation[]): void {
    const license = this.byKey.get(licenseKey);
    if (!license) throw new Error(`No license ${licenseKey}.`);
    const list = this.activationsOf.get(licenseKey) ?? [];
    for (const activation of activations) {
      list.push({
        ...copy(activation),
        identifier_key: identifierKey(activation.identifier),
        last_checkout_at: null,
      });
    }
    this.activationsOf.set(licenseKey, list);
    license.activations_used = list.filter((a) => !a.exempt).length;
    license.exempt_used = list.filter((a) => a.exempt).length;
    license.activations_bytes = list.reduce((sum, a) => sum + activationBytes(a), 0);
  }

  /** Test setup: the record as full as `bytes` says, as if activations took that much of it. */
  fillRecord(licenseKey: string, bytes: number): void {
    const license = this.byKey.get(licenseKey);
    if (!license) throw new Error(`No license ${licenseKey}.`);
    license.activations_bytes = bytes;
  }

  async issue({
    license,
    now,
  }: {
    license: NewLicense;
    now: Date;
  }): Promise<{ outcome: 'issued'; license: LicenseRecord } | { outcome: 'key-taken' }> {
    await roundTrip();
    if (this.byKey.has(license.license_key)) return { outcome: 'key-taken' };
    const issued: LicenseRecord = {
      ...copy(license),
      customer: copy(license.customer ?? null),
      metadata: { ...license.metadata },
      activations_used: 0,
      exempt_used: 0,
      activations_bytes: 0,
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      created_at: copy(now),
      pending_plan_id: null,
    };
    this.byKey.set(issued.license_key, issued);
    this.activationsOf.set(issued.license_key, []);
    this.issueOrder.set(issued.license_key, this.issueOrder.size);
    this.counter.writes++;
    return { outcome: 'issued', license: copy(issued) };
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
    await roundTrip();
    // From here to the return: one synchronous check-and-write, like the conditional update.
    const license = this.byKey.get(licenseKey);
    const list = this.activationsOf.get(licenseKey);
    const key = identifierKey(activation.identifier);
    const recorded: ActivationRecord = {
      ...copy(activation),
      identifier_key: key,
      last_checkout_at: null,
    };
    const bytes = activationBytes(recorded);
    const slotFree = activation.exempt
      ? license !== undefined && license.exempt_used < license.exempt_limit
      : license !== undefined &&
        (license.activation_limit === 0 || license.activations_used < license.activation_limit);
    if (
      !license ||
      !list ||
      license.status !== 'active' ||
      !unexpiredAt(license, now) ||
      list.some((a) => a.identifier_key === key) ||
      license.activations_bytes > MAX_ACTIVATION_BYTES - bytes ||
      !slotFree
    ) {
      return null;
    }
    list.push(recorded);
    if (activation.exempt) license.exempt_used++;
    else license.activations_used++;
    license.activations_bytes += bytes;
    this.counter.writes++;
    return { license: copy(license), activation: copy(recorded) };
  }

  async releaseSlot({
    licenseKey,
    activation,
  }: {
    licenseKey: string;
    activation: ActivationRecord;
    now: Date;
  }): Promise<{ license: LicenseRecord; released: ActivationRecord } | null> {
    await roundTrip();
    // This very activation, as read, like the conditional update.
    const license = this.byKey.get(licenseKey);
    const list = this.activationsOf.get(licenseKey);
    const at =
      list?.findIndex(
        (a) =>
          a.identifier_key === activation.identifier_key &&
          a.identifier === activation.identifier &&
          a.activated_at.getTime() === activation.activated_at.getTime(),
      ) ?? -1;
    if (!license || !list || at === -1) return null;
    const [released] = list.splice(at, 1);
    this.freeSlot(license, released!);
    this.counter.writes++;
    return { license: copy(license), released: copy(released!) };
  }

  private freeSlot(license: LicenseRecord, activation: ActivationRecord): void {
    if (activation.exempt) license.exempt_used--;
    else license.activations_used--;
    license.activations_bytes -= activationBytes(activation);
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
    await roundTrip();
    const activation = this.activationsOf
      .get(licenseKey)
      ?.find((a) => a.identifier_key === key && liveAt(a, now));
    if (!activation) return false;
    activation.lease_expires_at = copy(until);
    this.counter.writes++;
    return true;
  }

  async releaseLapsed({
    licenseKey,
    now,
  }: {
    licenseKey: string;
    now: Date;
  }): Promise<LapsedRelease | null> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    const list = this.activationsOf.get(licenseKey);
    if (!license || !list) return null;
    const lapsed = list.filter((a) => !liveAt(a, now)).map(copy);
    const released: ActivationRecord[] = [];
    for (const activation of lapsed) {
      await roundTrip();
      // Each removed in its own step, only while still lapsed, like the conditional update.
      const at = list.findIndex(
        (a) => a.identifier_key === activation.identifier_key && !liveAt(a, now),
      );
      if (at === -1) continue;
      const [removed] = list.splice(at, 1);
      this.freeSlot(license, removed!);
      this.counter.writes++;
      released.push(copy(removed!));
    }
    return { license: copy(license), released };
  }

  async withLapsedActivations({ now, limit }: { now: Date; limit: number }): Promise<string[]> {
    await roundTrip();
    return [...this.activationsOf]
      .filter(([, list]) => list.some((a) => !liveAt(a, now)))
      .map(([key]) => key)
      .slice(0, limit);
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
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    if (!license || license.status !== 'active' || !unexpiredAt(license, at)) return false;
    if (license.lease_seconds !== leaseSeconds) return false;
    const key = identifierKey(identifier);
    const activation = this.activationsOf
      .get(licenseKey)
      ?.find((a) => a.identifier_key === key && liveAt(a, at));
    if (!activation) return false;
    activation.last_checkout_at = copy(at);
    if (leaseExpiresAt !== null) activation.lease_expires_at = copy(leaseExpiresAt);
    this.counter.writes++;
    return true;
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
    await roundTrip();
    // The write reaches the database only now: past the deadline, it is not sent.
    if (Date.now() >= deadline) {
      throw internalError('The caller stopped waiting for this write; it was given up.');
    }
    const license = this.byKey.get(licenseKey);
    if (!license || (productId !== null && license.product_id !== productId)) return null;
    const recent = this.recentChecks.get(licenseKey) ?? [];
    if (recent.includes(checkId)) return null;
    if (identifierKeys !== null) {
      const key = identifierKeys[license.activation_type];
      const activations = this.activationsOf.get(licenseKey) ?? [];
      if (
        key === undefined ||
        !activations.some((a) => a.identifier_key === key && liveAt(a, at))
      ) {
        return null;
      }
    }
    license.last_check_at = copy(at);
    license.last_check_ip = ip;
    license.check_count++;
    this.recentChecks.set(licenseKey, [...recent, checkId].slice(-RECENT_CHECKS));
    this.counter.writes++;
    return copy(license);
  }

  async update({
    licenseKey,
    changes,
    expected,
  }: {
    licenseKey: string;
    changes: LicenseChanges;
    now: Date;
    expected?: Pick<LicenseRecord, 'expires_at'>;
  }): Promise<LicenseUpdate> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    if (!license) return { outcome: 'unknown-license' };
    if (expected && license.expires_at?.getTime() !== expected.expires_at?.getTime()) {
      return { outcome: 'changed-meanwhile' };
    }
    const limit = changes.activation_limit;
    if (limit !== undefined && limit !== 0 && license.activations_used > limit) {
      return {
        outcome: 'limit-below-activations',
        activation_limit: limit,
        activations_used: license.activations_used,
      };
    }
    const previous = copy(license);
    if (changes.status !== undefined) license.status = changes.status;
    if (changes.expires_at !== undefined) license.expires_at = copy(changes.expires_at);
    if (limit !== undefined) license.activation_limit = limit;
    if (changes.customer !== undefined) license.customer = copy(changes.customer);
    if (changes.metadata !== undefined) license.metadata = { ...changes.metadata };
    this.counter.writes++;
    return { outcome: 'updated', license: copy(license), previous };
  }

  async changePlan({
    licenseKey,
    plan,
  }: {
    licenseKey: string;
    plan: PlanTerms;
    now: Date;
  }): Promise<{ license: LicenseRecord; previous: LicenseRecord } | null> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    if (!license) return null;
    const previous = copy(license);
    applyPlan(license, this.activationsOf.get(licenseKey) ?? [], plan);
    this.counter.writes++;
    return { license: copy(license), previous };
  }

  async schedulePlanChange({
    licenseKey,
    planId,
  }: {
    licenseKey: string;
    planId: number;
    now: Date;
  }): Promise<LicenseRecord | null> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    if (!license) return null;
    license.pending_plan_id = planId;
    this.counter.writes++;
    return copy(license);
  }

  async renew({
    licenseKey,
    basis,
    renewal,
  }: {
    licenseKey: string;
    basis: RenewalBasis;
    renewal: LicenseRenewal;
    now: Date;
  }): Promise<LicenseRecord | null> {
    await roundTrip();
    // From here to the return: one synchronous check-and-write, like the conditional update.
    const license = this.byKey.get(licenseKey);
    if (
      !license ||
      license.status !== basis.status ||
      license.plan_id !== basis.plan_id ||
      license.pending_plan_id !== basis.pending_plan_id ||
      license.expires_at?.getTime() !== basis.expires_at?.getTime()
    ) {
      return null;
    }
    license.status = renewal.status;
    license.expires_at = copy(renewal.expires_at);
    if (renewal.next_payment_at !== undefined) {
      license.next_payment_at = copy(renewal.next_payment_at);
    }
    if (renewal.plan) applyPlan(license, this.activationsOf.get(licenseKey) ?? [], renewal.plan);
    this.counter.writes++;
    return copy(license);
  }

  /** The licenses matching the filters, in `order`; ties by the order they were issued in. */
  private listed(filters: LicenseFilters, now: Date, order: LicenseOrder): LicenseRecord[] {
    const found = [...this.byKey.values()].filter((license) =>
      matchesFilters(license, this.activationsOf.get(license.license_key) ?? [], filters, now),
    );
    return sortedBy(found, (license) => this.placeOf(license, order.field), order.descending);
  }

  /** Where a license stands in an order: its sort value, and its issue order as its id. */
  private placeOf(license: LicenseRecord, field: LicenseSortField): Place {
    const issued = this.issueOrder.get(license.license_key) ?? 0;
    return { value: sortValue(license, field), id: issued.toString(16).padStart(24, '0') };
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
    await roundTrip();
    const found = this.listed(filters, now, order);
    const start = (page - 1) * perPage;
    return { licenses: found.slice(start, start + perPage).map(copy), total: found.length };
  }

  async scan({ filters, now, order, after, limit }: LicenseScan): Promise<LicenseBatch> {
    await roundTrip();
    const { records, next } = batchAfter({
      sorted: this.listed(filters, now, order),
      place: (license) => this.placeOf(license, order.field),
      after,
      dates: order.field === 'created_at' || order.field === 'expires_at',
      descending: order.descending,
      limit,
    });
    return { licenses: records.map(copy), next };
  }

  async pastDue({ now, limit }: { now: Date; limit: number }): Promise<LicenseRecord[]> {
    await roundTrip();
    return [...this.byKey.values()]
      .filter(
        (license) =>
          license.status === 'active' &&
          license.expires_at !== null &&
          license.expires_at.getTime() <= now.getTime(),
      )
      .slice(0, limit)
      .map(copy);
  }

  async expirePastDue({
    licenses,
    now,
  }: {
    licenses: LicenseRecord[];
    now: Date;
  }): Promise<LicenseRecord[]> {
    await roundTrip();
    const expired: LicenseRecord[] = [];
    for (const read of licenses) {
      const license = this.byKey.get(read.license_key);
      const readExpiry = read.expires_at?.getTime() ?? null;
      if (
        license?.status !== 'active' ||
        readExpiry === null ||
        readExpiry > now.getTime() ||
        license.expires_at?.getTime() !== readExpiry
      ) {
        continue;
      }
      license.status = 'expired';
      expired.push(copy(license));
    }
    // One write, however many licenses it expires.
    if (expired.length > 0) this.counter.writes++;
    return expired;
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
    await roundTrip();
    const active = [...this.byKey.values()].filter(
      (license) =>
        (productId === null || license.product_id === productId) &&
        hasReportedStatus(license, 'active', now),
    );
    return {
      active: active.length,
      activationsInUse: active.reduce((sum, license) => sum + license.activations_used, 0),
      expiring: active.filter(
        ({ expires_at }) =>
          expires_at !== null &&
          expires_at.getTime() > now.getTime() &&
          expires_at.getTime() <= expiringBy.getTime(),
      ).length,
    };
  }
}

class MemoryPlanStore implements PlanStore {
  private readonly byId = new Map<number, PlanRecord>();
  private sequence = 0;

  constructor(private readonly counter: { writes: number }) {}

  async create({
    plan,
    id,
    now,
    beforeEachWrite = noWriteCheck,
  }: {
    plan: Omit<PlanRecord, 'id' | 'created_at'>;
    id?: number;
    now: Date;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<
    { outcome: 'created'; plan: PlanRecord } | { outcome: 'id-taken' } | PlanNameTakenOutcome
  > {
    await roundTrip();
    let chosen = id;
    if (chosen === undefined) {
      // The sequence skips ids an admin chose, as the MongoDB store does on a duplicate key.
      do {
        beforeEachWrite();
        chosen = ++this.sequence;
      } while (this.byId.has(chosen));
    }
    beforeEachWrite();
    if (this.byId.has(chosen)) return { outcome: 'id-taken' };
    const taken = this.nameTaken(plan.name, chosen);
    if (taken) return taken;
    const created: PlanRecord = { ...copy(plan), id: chosen, created_at: copy(now) };
    this.byId.set(chosen, created);
    this.counter.writes++;
    return { outcome: 'created', plan: copy(created) };
  }

  async find(id: number): Promise<PlanRecord | null> {
    await roundTrip();
    const plan = this.byId.get(id);
    return plan ? copy(plan) : null;
  }

  async list(): Promise<PlanRecord[]> {
    await roundTrip();
    return [...this.byId.values()].sort((a, b) => a.id - b.id).map(copy);
  }

  async update({
    id,
    changes,
  }: {
    id: number;
    changes: PlanChanges;
  }): Promise<{ outcome: 'updated'; plan: PlanRecord } | PlanNameTakenOutcome | null> {
    await roundTrip();
    const plan = this.byId.get(id);
    if (!plan) return null;
    const taken = changes.name === undefined ? null : this.nameTaken(changes.name, id);
    if (taken) return taken;
    for (const [field, value] of Object.entries(copy(changes))) {
      if (value !== undefined) Object.assign(plan, { [field]: value });
    }
    this.counter.writes++;
    return { outcome: 'updated', plan: copy(plan) };
  }

  /** The unique index of the MongoDB store on the name's key (rules.ts `planNameKey`). */
  private nameTaken(name: string, id: number): PlanNameTakenOutcome | null {
    const key = planNameKey(name);
    const holder = [...this.byId.values()].find((p) => p.id !== id && planNameKey(p.name) === key);
    return holder ? { outcome: 'name-taken', holder: copy(holder) } : null;
  }
}

class MemoryRejectedAttemptStore implements RejectedAttemptStore {
  /** Keyed by license key and identifier key, as the unique index of the MongoDB store. */
  private readonly rows = new Map<string, RejectedAttemptRecord>();

  constructor(private readonly counter: { writes: number }) {}

  async record({
    licenseKey,
    identifier,
    name,
    reason,
    source,
    at,
    beforeEachWrite = noWriteCheck,
  }: Parameters<RejectedAttemptStore['record']>[0]): Promise<void> {
    await roundTrip();
    const key = identifierKey(identifier);
    const row = `${licenseKey}\u0000${key}`;
    beforeEachWrite();
    const existing = this.rows.get(row);
    this.rows.set(row, {
      license_key: licenseKey,
      identifier,
      identifier_key: key,
      name,
      reason,
      source,
      tries: (existing?.tries ?? 0) + 1,
      last_attempt_at: copy(at),
    });
    this.counter.writes++;
  }

  async listForLicense(licenseKey: string): Promise<RejectedAttemptRecord[]> {
    await roundTrip();
    return [...this.rows.values()]
      .filter((r) => r.license_key === licenseKey)
      .sort((a, b) => b.last_attempt_at.getTime() - a.last_attempt_at.getTime())
      .map(copy);
  }

  async pruneUntouchedSince(date: Date): Promise<number> {
    await roundTrip();
    let removed = 0;
    for (const [row, attempt] of this.rows) {
      if (attempt.last_attempt_at.getTime() <= date.getTime()) {
        this.rows.delete(row);
        removed++;
      }
    }
    this.counter.writes += removed;
    return removed;
  }
}

class MemoryTaskRunStore implements TaskRunStore {
  private readonly runs = new Map<string, TaskRunRecord>();
  private readonly jobs = new Map<string, Date | null>();

  constructor(private readonly counter: { writes: number }) {}

  async recordRun(run: TaskRunRecord): Promise<void> {
    await roundTrip();
    const kept = this.runs.get(run.name);
    if (kept && kept.ran_at.getTime() > run.ran_at.getTime()) return;
    this.runs.set(run.name, copy(run));
    this.counter.writes++;
  }

  async lastRuns(): Promise<TaskRunRecord[]> {
    await roundTrip();
    return [...this.runs.values()].sort((a, b) => a.name.localeCompare(b.name)).map(copy);
  }

  async nextScheduledRun({ jobName }: { jobName: string }): Promise<Date | null> {
    await roundTrip();
    return copy(this.jobs.get(jobName) ?? null);
  }

  scheduleJob(jobName: string, nextRunAt: Date | null): void {
    this.jobs.set(jobName, copy(nextRunAt));
  }
}
