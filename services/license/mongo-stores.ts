import type { Collection } from 'mongodb';
import type { Connection } from 'mongoose';
import { Sequences, isDuplicateKey } from '../../libs/database/index.js';
import { identifierKey } from '../../libs/identifier/index.js';
import type { Logger } from '../../libs/logging/index.js';
import {
  SCHEDULED_TASKS_COLLECTION,
  licenseCollection,
  licenseModels,
  type LicenseDocument,
  type LicenseModels,
  type RejectedAttemptDocument,
  type ScheduledJobDocument,
  type TaskRunDocument,
} from './models.js';
import { COUNT_STORED_ACTIVATIONS, runOnce } from './migrations.js';
import { activationBytes } from './licenses/mongo-license-documents.js';
import { MongoLicenseReadModel } from './admin/mongo-license-read-model.js';
import { MongoLicenseStore } from './licenses/mongo-license-store.js';
import { MongoImportStore } from './imports/mongo-import-store.js';
import { MongoPlanStore, keepPlanNamesUnique } from './plans/mongo-plan-store.js';
import { MongoUsageStore } from './usage/mongo-usage-store.js';
import { openMongoTrialStore } from './trials/mongo-trial-store.js';
import { openEntitlementStore } from './entitlements/mongo-entitlement-store.js';
import type { RejectedAttemptRecord, TaskRunRecord } from './records.js';
import type {
  BeforeEachWrite,
  LicenseStores,
  RejectedAttemptStore,
  TaskRunStore,
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
    licenseReads: new MongoLicenseReadModel(licenses),
    plans: new MongoPlanStore(models.Plan, new Sequences(db)),
    rejectedAttempts: new MongoRejectedAttemptStore(models.RejectedAttempt),
    taskRuns: new MongoTaskRunStore(
      models.TaskRun,
      db.collection<ScheduledJobDocument>(SCHEDULED_TASKS_COLLECTION),
    ),
    usage: new MongoUsageStore(licenses),
    trials: await openMongoTrialStore(db),
    entitlements: await openEntitlementStore(db),
    imports: new MongoImportStore(licenses),
  };
}

const noWriteCheck: BeforeEachWrite = () => {};

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
