import type { RejectionReason } from '../../libs/contracts/index.js';
import type {
  ActivationSource,
  NewPlan,
  PlanRecord,
  RejectedAttemptRecord,
  TaskRunRecord,
} from './records.js';
import type { LicenseReadModel } from './admin/license-read-model.js';
import type { LicenseStore } from './licenses/license-store.js';
import type { UsageStore } from './usage/usage-store.js';
import type { TrialStore } from './trials/trial-store.js';
import type { EntitlementStore } from './entitlements/entitlement-store.js';
import type { ImportStore } from './imports/import-store.js';

/**
 * The license service's persistence, in the spec's words: plans (2.1), licenses with their
 * activations (2.2, 2.3) and rejected activation attempts (2.5). Identifiers reach a store
 * normalised (2.4); the store matches them case-insensitively through their key. Every record a
 * store returns is a copy: changing it changes nothing stored.
 *
 * A method given more than one value takes them as one object, named in camelCase (a record's
 * own fields keep their stored names). The time of what a store writes comes from its caller
 * (`now`, `at`), whose clock also decides the rules: the stores never read a clock.
 *
 * The records they keep are in records.ts. Licenses have a write store (licenses/license-store.ts,
 * with activations/activation-store.ts) for what the rules decide on and change, and a read model
 * (admin/license-read-model.ts) for the admin's lists, exports and figures.
 */

/** What an admin may change of a plan. */
export type PlanChanges = Partial<
  Pick<
    PlanRecord,
    | 'name'
    | 'lease_seconds'
    | 'exempt_identifiers'
    | 'exempt_limit'
    | 'max_uses'
    | 'uses_reset'
    | 'trial_days'
    | 'entitlements'
    | 'expiry_strategy'
    | 'grace_days'
    | 'renewal_basis'
  >
>;

/**
 * A store method that makes more than one write calls this immediately before each of them, so
 * a caller can stop it between two (the RPC deadline, libs/contracts/rpc.ts `CallContext`).
 */
export type BeforeEachWrite = () => void;

/**
 * Plan names are unique (docs/api-decisions.md, "Plan names", compared as rules.ts `planNameKey`
 * compares them), kept so by the write itself: of creations or renames to one name at the same
 * time, one is written, and the others are told the plan that has it.
 */
export interface PlanNameTakenOutcome {
  outcome: 'name-taken';
  holder: PlanRecord;
}

export interface PlanStore {
  /**
   * Under the id an admin chose, or under the next id of the plan sequence (skipping ids admins
   * chose). A chosen id already taken, or a name another plan has, creates nothing. Created at
   * `now`.
   */
  create(creation: {
    plan: NewPlan;
    id?: number;
    now: Date;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<
    { outcome: 'created'; plan: PlanRecord } | { outcome: 'id-taken' } | PlanNameTakenOutcome
  >;

  find(id: number): Promise<PlanRecord | null>;

  /**
   * Changes what an admin may change of a plan. The plan after, or null when unknown; a name that
   * another plan has changes nothing.
   */
  update(update: {
    id: number;
    changes: PlanChanges;
  }): Promise<{ outcome: 'updated'; plan: PlanRecord } | PlanNameTakenOutcome | null>;

  /** Every plan, by id. */
  list(): Promise<PlanRecord[]>;
}

export interface RejectedAttemptStore {
  /**
   * Spec 2.5: creates the row of this license and identifier with one try, or adds a try to it.
   * Two first refusals racing to create the row count as two tries of one row.
   */
  record(attempt: {
    licenseKey: string;
    identifier: string;
    /** The last try's name, reason and source replace those of the ones before. */
    name: string | null;
    reason: RejectionReason;
    source: ActivationSource;
    at: Date;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<void>;

  /** The rows of a license, the latest try first. */
  listForLicense(licenseKey: string): Promise<RejectedAttemptRecord[]>;

  /** Spec 2.5: removes the rows whose last try is at `date` or earlier. */
  pruneUntouchedSince(date: Date): Promise<number>;
}

export interface TaskRunStore {
  /**
   * Keeps a run as its task's last run: one record per task. A run that started before the one
   * already kept is not kept (replicas may finish runs out of order).
   */
  recordRun(run: TaskRunRecord): Promise<void>;

  /** The last run of every task that has run. */
  lastRuns(): Promise<TaskRunRecord[]>;

  /**
   * When the scheduler runs a recurring task next: the `nextRunAt` of the scheduler's own record
   * of the job (services/license/lifecycle/scheduler.ts). Null when no replica schedules it.
   */
  nextScheduledRun(job: { jobName: string }): Promise<Date | null>;
}

export interface LicenseStores {
  licenses: LicenseStore;
  licenseReads: LicenseReadModel;
  plans: PlanStore;
  rejectedAttempts: RejectedAttemptStore;
  taskRuns: TaskRunStore;
  /** The licenses' usage counters (usage-store.ts). */
  usage: UsageStore;
  trials: TrialStore;
  entitlements: EntitlementStore;
  /** Licenses imported from other systems (imports/import-store.ts). */
  imports: ImportStore;
}
