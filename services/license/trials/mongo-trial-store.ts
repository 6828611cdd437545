import type { Collection, Filter } from 'mongodb';
import type { Connection } from 'mongoose';
import { isDuplicateKey } from '../../../libs/database/index.js';
import { KEY_STORED_TRIALS, runOnce } from '../migrations.js';
import type { TrialRecord } from '../records.js';
import type { TrialStore } from './trial-store.js';
import { trialKey } from './trial-rules.js';

/** The trials' collection (docs/api-decisions.md, "Trials"). */
export const TRIALS_COLLECTION = 'trials';

/**
 * A trial as stored: one stored before trial keys, and left without one because an earlier trial
 * of its product already held its key (`keyStoredTrials`), has none.
 */
export type TrialDocument = Omit<TrialRecord, 'trial_key'> & { trial_key?: string };

const trialRecord = ({ _id, ...trial }: TrialDocument & { _id?: unknown }): TrialRecord => ({
  ...trial,
  trial_key: trial.trial_key ?? trialKey(trial.product_id, trial.identifier_key),
});

/**
 * The trials in MongoDB, through the driver: the unique index on the trial key (the product and
 * the identifier as the one-trial rule compares them) makes "one trial per identifier and
 * product, ever" hold under any number of requests and replicas at once, whatever the spelling.
 * The unique index on the product and the identifier's key keeps one trial per conversion lookup
 * (which goes by that key, as activations do); the others serve the admin's list. Trials stored
 * before trial keys get theirs at the first start (`keyStoredTrials`).
 */
export async function openMongoTrialStore(db: Connection): Promise<MongoTrialStore> {
  const trials = db.collection<TrialDocument>(
    TRIALS_COLLECTION,
  ) as unknown as Collection<TrialDocument>;
  await trials.createIndexes([
    // Sparse: a trial stored before trial keys is not in it until it gets one.
    {
      key: { trial_key: 1 },
      unique: true,
      sparse: true,
      name: 'one_trial_per_identifier_spelling',
    },
    { key: { product_id: 1, identifier_key: 1 }, unique: true, name: 'one_trial_per_identifier' },
    { key: { identifier_key: 1, converted_at: 1 }, name: 'open_by_identifier' },
    { key: { license_key: 1 }, name: 'by_license' },
    { key: { product_id: 1, started_at: -1 }, name: 'by_product_newest' },
    { key: { started_at: -1 }, name: 'newest' },
    { key: { converted_at: 1, started_at: -1 }, name: 'by_conversion_newest' },
  ]);
  await runOnce(db, KEY_STORED_TRIALS, () => keyStoredTrials(trials));
  return new MongoTrialStore(trials);
}

/**
 * Trials stored before trial keys get theirs, oldest first, so that they block a trial of the
 * same identifier written another way. Where trials of one product already share a key (two
 * spellings that each got a trial before), the oldest takes it and the others stay as they are,
 * without one. Safe to run again and by several replicas at once: each trial is keyed only while
 * it has no key, and the unique index refuses a second holder. Answers how many were keyed.
 */
export async function keyStoredTrials(trials: Collection<TrialDocument>): Promise<number> {
  const unkeyed = await trials
    .find(
      { trial_key: { $exists: false } },
      { projection: { product_id: 1, identifier_key: 1 }, sort: { started_at: 1, _id: 1 } },
    )
    .toArray();
  let keyed = 0;
  for (const { _id, product_id, identifier_key } of unkeyed) {
    try {
      const result = await trials.updateOne(
        { _id, trial_key: { $exists: false } },
        { $set: { trial_key: trialKey(product_id, identifier_key) } },
      );
      keyed += result.modifiedCount;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  return keyed;
}

export class MongoTrialStore implements TrialStore {
  constructor(private readonly trials: Collection<TrialDocument>) {}

  async record(
    trial: TrialRecord,
  ): Promise<
    { outcome: 'recorded'; trial: TrialRecord } | { outcome: 'taken'; trial: TrialRecord }
  > {
    try {
      await this.trials.insertOne({ ...trial });
      return { outcome: 'recorded', trial };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // The trial holding its key, or a trial stored before trial keys with its identifier key.
      const held = await this.trials.findOne({
        $or: [
          { trial_key: trial.trial_key },
          { product_id: trial.product_id, identifier_key: trial.identifier_key },
        ],
      });
      if (!held) throw error;
      return { outcome: 'taken', trial: trialRecord(held) };
    }
  }

  async findOpen({
    productIds,
    identifierKey,
  }: {
    productIds: readonly number[];
    identifierKey: string;
  }): Promise<TrialRecord | null> {
    const found = await this.trials.findOne({
      identifier_key: identifierKey,
      converted_at: null,
      product_id: { $in: [...productIds] },
    });
    return found && trialRecord(found);
  }

  async isTrialLicense(licenseKey: string): Promise<boolean> {
    return (await this.trials.countDocuments({ license_key: licenseKey }, { limit: 1 })) > 0;
  }

  async convert({
    productId,
    identifierKey,
    licenseKey,
    at,
  }: {
    productId: number;
    identifierKey: string;
    licenseKey: string;
    at: Date;
  }): Promise<TrialRecord | null> {
    const converted = await this.trials.findOneAndUpdate(
      { product_id: productId, identifier_key: identifierKey, converted_at: null },
      { $set: { converted_at: at, converted_license_key: licenseKey } },
      { returnDocument: 'after' },
    );
    return converted && trialRecord(converted);
  }

  private filter(productId: number | null, converted: boolean | null): Filter<TrialDocument> {
    return {
      ...(productId === null ? {} : { product_id: productId }),
      ...(converted === null ? {} : { converted_at: converted ? { $ne: null } : null }),
    };
  }

  async list({
    productId,
    converted,
    page,
    perPage,
  }: {
    productId: number | null;
    converted: boolean | null;
    page: number;
    perPage: number;
  }): Promise<{ trials: TrialRecord[]; total: number }> {
    const filter = this.filter(productId, converted);
    const [docs, total] = await Promise.all([
      this.trials
        .find(filter)
        .sort({ started_at: -1, _id: -1 })
        .skip((page - 1) * perPage)
        .limit(perPage)
        .toArray(),
      this.trials.countDocuments(filter),
    ]);
    return { trials: docs.map(trialRecord), total };
  }

  async counts({ productId }: { productId: number | null }) {
    // Of every product: the collection's count, which reads no document.
    const [started, converted] = await Promise.all([
      productId === null
        ? this.trials.estimatedDocumentCount()
        : this.trials.countDocuments(this.filter(productId, null)),
      this.trials.countDocuments(this.filter(productId, true)),
    ]);
    return { started, converted };
  }
}
