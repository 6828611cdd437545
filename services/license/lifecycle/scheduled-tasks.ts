import type { TaskName } from '../../../libs/contracts/index.js';
import { metrics } from '../../../libs/observability/index.js';
import { announceLapsed, type LicenseEvents } from '../events.js';
import type { TaskRunRecord } from '../records.js';
import type { BeforeEachWrite, LicenseStores } from '../stores.js';

/** Spec 2.5 and 8: rejected-attempt rows untouched for 90 days are removed. */
export const REJECTED_ATTEMPT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/** The stores the tasks work on. */
export type TaskStores = Pick<LicenseStores, 'licenses' | 'rejectedAttempts' | 'plans'>;

/** What a task works with: the stores, and where its domain events go. */
export interface TaskDeps {
  stores: TaskStores;
  events: LicenseEvents;
}

/** How many licenses the lease task takes at a time. */
const LAPSED_BATCH = 200;

/** How many licenses the expiry task expires in one write. */
export const EXPIRY_BATCH = 500;

/**
 * Spec 3.1: an active license whose expiry date has passed becomes `expired`, each a
 * `license.expired` event. Until this runs, validate and the update check already report
 * `expired` (services/license/rules.ts `effectiveStatus`). A batch of licenses selected by the rule
 * is expired in one write whose every update's condition is the rule as read, so a license renewed
 * meanwhile is left alone, replicas running it at once expire each once, and a run cut short is
 * simply done again. A license of a plan with grace days expires, and is announced, once its grace
 * has ended (docs/api-decisions.md, "Expiry strategies"): the plans' grace days as they are now.
 */
export async function expireLicenses(
  { stores, events }: TaskDeps,
  now: Date,
  batchSize = EXPIRY_BATCH,
): Promise<number> {
  let expired = 0;
  const graceDays = new Map(
    (await stores.plans.list()).filter((p) => p.grace_days > 0).map((p) => [p.id, p.grace_days]),
  );
  await announceGraceStarted({ stores, events }, now, graceDays, batchSize);
  for (;;) {
    const due = await stores.licenses.pastDue({ now, limit: batchSize, graceDays });
    const written =
      due.length === 0 ? [] : await stores.licenses.expirePastDue({ licenses: due, now });
    for (const license of written) events.licenseExpired({ license, at: now });
    expired += written.length;
    // A short batch was the last; one that expired nothing cannot make progress.
    if (due.length < batchSize || written.length === 0) return expired;
  }
}

/**
 * Expiry strategies (docs/api-decisions.md): a license past its expiry on a plan with grace days
 * is announced once per expiry date as `license.grace_started` by the expiry task's run that
 * first finds it so (each license marked by one conditional update). It is not counted as
 * changed: its status stays `active` until its grace ends.
 */
async function announceGraceStarted(
  { stores, events }: TaskDeps,
  now: Date,
  graceDays: ReadonlyMap<number, number>,
  batchSize: number,
): Promise<void> {
  for (;;) {
    const marked = await stores.licenses.startGrace({ now, limit: batchSize, graceDays });
    for (const license of marked) {
      const days = graceDays.get(license.plan_id)!;
      const graceEndsAt = new Date(license.expires_at!.getTime() + days * 86_400_000);
      events.licenseGraceStarted({ license, graceEndsAt, at: now });
    }
    if (marked.length < batchSize) return;
  }
}

/**
 * Leases (docs/api-decisions.md): removes the activations whose lease ran out at `now`, each an
 * `activation.deleted` event with the source `lease`. They already count for nothing (every
 * rule and answer leaves a lapsed activation out); this takes them off the record. Each removal
 * is conditional on the activation still being lapsed, so a renewal meanwhile keeps it and
 * replicas running it at once remove each once.
 */
export async function releaseLapsedActivations(
  { stores, events }: TaskDeps,
  now: Date,
): Promise<number> {
  let removed = 0;
  for (;;) {
    const keys = await stores.licenses.withLapsedActivations({ now, limit: LAPSED_BATCH });
    let batch = 0;
    for (const licenseKey of keys) {
      const lapsed = await stores.licenses.releaseLapsed({ licenseKey, now });
      announceLapsed(events, lapsed, now);
      batch += lapsed?.released.length ?? 0;
    }
    removed += batch;
    // A short batch was the last; one that removed nothing cannot make progress.
    if (keys.length < LAPSED_BATCH || batch === 0) return removed;
  }
}

/** Spec 2.5: removes the rejected-attempt rows whose last try is 90 days old or older. */
export async function pruneRejectedAttempts({ stores }: TaskDeps, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - REJECTED_ATTEMPT_RETENTION_MS);
  return stores.rejectedAttempts.pruneUntouchedSince(cutoff);
}

/** How this process schedules the tasks (configuration: `scheduleSettings`). */
export interface ScheduleSettings {
  /** Off: this replica runs no scheduled tasks (others do; Agenda shares the work anyway). */
  enabled: boolean;
  /** How often the expiry task runs (Agenda interval: `1 minute`, `15 minutes`, ...). */
  expiryEvery: string;
  /** How often lapsed activations are removed. */
  leaseEvery: string;
  /** How often stale rejected attempts are pruned. */
  pruneEvery: string;
  /** How often each replica looks for due tasks. */
  pollEvery: string;
  /**
   * How long a run may hold its task's lock; past it another replica may run the task (the tasks
   * are idempotent). Agenda also keeps a timer of half this after every run, even once stopped.
   */
  taskTimeoutMs: number;
}

/** The scheduler's (Agenda's) names of the recurring jobs. */
export const TASK_EXPIRE_LICENSES = 'license.expire-licenses';
export const TASK_PRUNE_REJECTED_ATTEMPTS = 'license.prune-rejected-attempts';
export const TASK_RELEASE_LAPSED_ACTIVATIONS = 'license.release-lapsed-activations';

export interface ScheduledTaskDefinition {
  /** The name of its recurring job in the scheduler. */
  jobName: string;
  /** How often it runs, as configured for this process. */
  interval(settings: ScheduleSettings): string;
  /** One run at `now`: how many records it changed. */
  run(deps: TaskDeps, now: Date): Promise<number>;
  /** What the log says after a run that changed something. */
  done: string;
}

/**
 * The tasks of spec "Reminders & Expiration" under their API names: the one table the scheduler
 * and the runs an admin asks for share.
 */
export const scheduledTasks: Readonly<Record<TaskName, ScheduledTaskDefinition>> = {
  'license-expiry': {
    jobName: TASK_EXPIRE_LICENSES,
    interval: (settings) => settings.expiryEvery,
    run: expireLicenses,
    done: 'licenses past their expiry date expired',
  },
  'rejected-attempt-pruning': {
    jobName: TASK_PRUNE_REJECTED_ATTEMPTS,
    interval: (settings) => settings.pruneEvery,
    run: pruneRejectedAttempts,
    done: 'stale rejected attempts removed',
  },
  'activation-lease-release': {
    jobName: TASK_RELEASE_LAPSED_ACTIVATIONS,
    interval: (settings) => settings.leaseEvery,
    run: releaseLapsedActivations,
    done: 'lapsed activations removed',
  },
};

/**
 * Runs a task at `now` and keeps the run as its last one: a success with the records it changed,
 * or a failure with its message, which is then thrown again. `beforeEachWrite` is called
 * immediately before each write (the task's, and keeping its run); when it throws before the
 * task's write, nothing ran and nothing is kept.
 */
export async function runScheduledTask({
  name,
  stores,
  events,
  trigger,
  now,
  beforeEachWrite = () => {},
}: {
  name: TaskName;
  stores: TaskStores & Pick<LicenseStores, 'taskRuns'>;
  events: LicenseEvents;
  trigger: TaskRunRecord['trigger'];
  now: Date;
  beforeEachWrite?: BeforeEachWrite;
}): Promise<number> {
  let affected: number;
  try {
    beforeEachWrite();
    affected = await scheduledTasks[name].run({ stores, events }, now);
  } catch (error) {
    try {
      beforeEachWrite();
      await stores.taskRuns.recordRun({
        name,
        ran_at: now,
        trigger,
        affected: null,
        error: error instanceof Error ? error.message : String(error),
      });
    } catch {
      // The task's own failure is what the caller must learn, not the failure to keep it.
    }
    metrics.scheduledTaskRuns.inc({ task: name, trigger, outcome: 'failed' });
    throw error;
  }
  beforeEachWrite();
  await stores.taskRuns.recordRun({ name, ran_at: now, trigger, affected, error: null });
  metrics.scheduledTaskRuns.inc({ task: name, trigger, outcome: 'ok' });
  return affected;
}
