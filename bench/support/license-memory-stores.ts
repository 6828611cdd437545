import { identifierKey } from '../../libs/identifier/index.js';
import type {
  NewPlan,
  PlanRecord,
  RejectedAttemptRecord,
  TaskRunRecord,
} from '../../services/license/records.js';
import { planNameKey } from '../../services/license/rules.js';
import type {
  BeforeEachWrite,
  LicenseStores,
  PlanChanges,
  PlanNameTakenOutcome,
  PlanStore,
  RejectedAttemptStore,
  TaskRunStore,
} from '../../services/license/stores.js';
import { deepCopy as copy } from './deep-copy.js';
import { MemoryEntitlementStore } from './memory-entitlement-store.js';
import { MemoryImportStore } from './memory-import-store.js';
import { MemoryLicenseReadModel } from './memory-license-read-model.js';
import { MemoryLicenseStore } from './memory-license-store.js';
import { MemoryLicenseTable, roundTrip } from './memory-license-table.js';
import { MemoryUsageStore } from './memory-usage-store.js';
import { MemoryTrialStore } from './memory-trial-store.js';

/**
 * The license service's stores in memory, with the semantics of the MongoDB ones (the store
 * contract test runs both): keys unique as under a unique index, identifiers matched through
 * their lower-cased key, records and their dates copied in and out, and every conditional write
 * checked and applied in one synchronous step, with no `await` between the check and the write,
 * so concurrent calls cannot interleave inside it, as a single-document update in MongoDB.
 *
 * Each method first yields to the event loop, so concurrent calls do interleave between methods,
 * as requests do between database round trips. The licenses' store and read model are in
 * memory-license-store.ts (with memory-activation-store.ts) and memory-license-read-model.ts.
 */
export function memoryLicenseStores(): Omit<LicenseStores, 'licenses'> & {
  licenses: MemoryLicenseStore;
  writes(): number;
  scheduleJob(jobName: string, nextRunAt: Date | null): void;
} {
  const counter = { writes: 0 };
  const taskRuns = new MemoryTaskRunStore(counter);
  // The store and the read model of licenses on the same licenses, as on one collection.
  const table = new MemoryLicenseTable();
  return {
    licenses: new MemoryLicenseStore(table, counter),
    licenseReads: new MemoryLicenseReadModel(table),
    plans: new MemoryPlanStore(counter),
    rejectedAttempts: new MemoryRejectedAttemptStore(counter),
    taskRuns,
    usage: new MemoryUsageStore(table, counter),
    trials: new MemoryTrialStore(counter),
    entitlements: new MemoryEntitlementStore(counter, table),
    imports: new MemoryImportStore(table, counter),
    /** How many writes changed something: lets a test see that nothing was written. */
    writes: () => counter.writes,
    /** Stands for the scheduler's job record of a recurring task (services/license/lifecycle/scheduler.ts). */
    scheduleJob: (jobName, nextRunAt) => taskRuns.scheduleJob(jobName, nextRunAt),
  };
}

const noWriteCheck: BeforeEachWrite = () => {};

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
    plan: NewPlan;
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
    const created: PlanRecord = {
      ...copy(plan),
      trial_days: plan.trial_days ?? null,
      id: chosen,
      created_at: copy(now),
    };
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
