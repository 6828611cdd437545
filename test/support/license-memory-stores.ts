import { identifierKey } from '../../libs/identifier/index.js';
import type {
  ActivationRecord,
  BeforeEachWrite,
  LicenseChanges,
  LicenseRecord,
  LicenseStore,
  LicenseStores,
  LicenseUpdate,
  NewActivation,
  NewLicense,
  PlanRecord,
  PlanStore,
  RejectedAttemptRecord,
  RejectedAttemptStore,
} from '../../services/license/stores.js';

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
export function memoryLicenseStores(
  options: { clock?: () => Date } = {},
): LicenseStores & { writes(): number } {
  const clock = options.clock ?? (() => new Date());
  const counter = { writes: 0 };
  return {
    licenses: new MemoryLicenseStore(clock, counter),
    plans: new MemoryPlanStore(clock, counter),
    rejectedAttempts: new MemoryRejectedAttemptStore(counter),
    /** How many writes changed something: lets a test see that nothing was written. */
    writes: () => counter.writes,
  };
}

/**
 * A deep copy of a record: plain objects, arrays and dates. (Not `structuredClone`, whose dates
 * come from another realm than the test's under Jest's module sandbox.)
 */
function copy<T>(value: T): T {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)])) as T;
  }
  return value;
}
const roundTrip = () => new Promise<void>((resolve) => setImmediate(resolve));
const noWriteCheck: BeforeEachWrite = () => {};

/** Mirrors the MongoDB filter `{ expires_at: null } or { expires_at: { $gt: now } }`. */
const unexpiredAt = (license: LicenseRecord, now: Date) =>
  license.expires_at === null || license.expires_at.getTime() > now.getTime();

class MemoryLicenseStore implements LicenseStore {
  private readonly byKey = new Map<string, LicenseRecord>();

  constructor(
    private readonly clock: () => Date,
    private readonly counter: { writes: number },
  ) {}

  async findByKey(licenseKey: string): Promise<LicenseRecord | null> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    return license ? copy(license) : null;
  }

  async issue(
    license: NewLicense,
  ): Promise<{ outcome: 'issued'; license: LicenseRecord } | { outcome: 'key-taken' }> {
    await roundTrip();
    if (this.byKey.has(license.license_key)) return { outcome: 'key-taken' };
    const issued: LicenseRecord = {
      ...copy(license),
      activations: [],
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      created_at: copy(this.clock()),
    };
    this.byKey.set(issued.license_key, issued);
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
  }): Promise<LicenseRecord | null> {
    await roundTrip();
    // From here to the return: one synchronous check-and-write, like the conditional update.
    const license = this.byKey.get(licenseKey);
    const key = identifierKey(activation.identifier);
    if (
      !license ||
      license.status !== 'active' ||
      !unexpiredAt(license, now) ||
      license.activations.some((a) => a.identifier_key === key) ||
      (license.activation_limit !== 0 && license.activations.length >= license.activation_limit)
    ) {
      return null;
    }
    license.activations.push({ ...copy(activation), identifier_key: key });
    this.counter.writes++;
    return copy(license);
  }

  async releaseSlot({
    licenseKey,
    identifier,
  }: {
    licenseKey: string;
    identifier: string;
  }): Promise<{ license: LicenseRecord; released: ActivationRecord } | null> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    const key = identifierKey(identifier);
    const released = license?.activations.find((a) => a.identifier_key === key);
    if (!license || !released) return null;
    license.activations = license.activations.filter((a) => a.identifier_key !== key);
    this.counter.writes++;
    return { license: copy(license), released: copy(released) };
  }

  async touchCheck({
    licenseKey,
    at,
    ip,
  }: {
    licenseKey: string;
    at: Date;
    ip: string;
  }): Promise<void> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    if (!license) return;
    license.last_check_at = copy(at);
    license.last_check_ip = ip;
    license.check_count++;
    this.counter.writes++;
  }

  async update({
    licenseKey,
    changes,
  }: {
    licenseKey: string;
    changes: LicenseChanges;
  }): Promise<LicenseUpdate> {
    await roundTrip();
    const license = this.byKey.get(licenseKey);
    if (!license) return { outcome: 'unknown-license' };
    const limit = changes.activation_limit;
    if (limit !== undefined && limit !== 0 && license.activations.length > limit) {
      return {
        outcome: 'limit-below-activations',
        activation_limit: limit,
        activations_used: license.activations.length,
      };
    }
    if (changes.status !== undefined) license.status = changes.status;
    if (changes.expires_at !== undefined) license.expires_at = copy(changes.expires_at);
    if (limit !== undefined) license.activation_limit = limit;
    this.counter.writes++;
    return { outcome: 'updated', license: copy(license) };
  }

  async expirePastDue(now: Date): Promise<number> {
    await roundTrip();
    let expired = 0;
    for (const license of this.byKey.values()) {
      if (
        license.status === 'active' &&
        license.expires_at !== null &&
        license.expires_at.getTime() <= now.getTime()
      ) {
        license.status = 'expired';
        expired++;
      }
    }
    this.counter.writes += expired;
    return expired;
  }
}

class MemoryPlanStore implements PlanStore {
  private readonly byId = new Map<number, PlanRecord>();
  private sequence = 0;

  constructor(
    private readonly clock: () => Date,
    private readonly counter: { writes: number },
  ) {}

  async create({
    plan,
    id,
    beforeEachWrite = noWriteCheck,
  }: {
    plan: Omit<PlanRecord, 'id' | 'created_at'>;
    id?: number;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<{ outcome: 'created'; plan: PlanRecord } | { outcome: 'id-taken' }> {
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
    const created: PlanRecord = { ...copy(plan), id: chosen, created_at: copy(this.clock()) };
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
}

class MemoryRejectedAttemptStore implements RejectedAttemptStore {
  /** Keyed by license key and identifier key, as the unique index of the MongoDB store. */
  private readonly rows = new Map<string, RejectedAttemptRecord>();

  constructor(private readonly counter: { writes: number }) {}

  async record({
    licenseKey,
    identifier,
    at,
    beforeEachWrite = noWriteCheck,
  }: {
    licenseKey: string;
    identifier: string;
    at: Date;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<void> {
    await roundTrip();
    const key = identifierKey(identifier);
    const row = `${licenseKey}\u0000${key}`;
    beforeEachWrite();
    const existing = this.rows.get(row);
    this.rows.set(row, {
      license_key: licenseKey,
      identifier,
      identifier_key: key,
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
