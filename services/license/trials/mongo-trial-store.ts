import type { Collection, Filter } from 'mongodb';
import type { Connection } from 'mongoose';
import { isDuplicateKey } from '../../../libs/database/index.js';
import type { TrialRecord } from '../records.js';
import type { TrialStore } from './trial-store.js';

/** The trials' collection (docs/api-decisions.md, "Trials"). */
export const TRIALS_COLLECTION = 'trials';

type TrialDocument = TrialRecord;

const trialRecord = ({ _id, ...trial }: TrialDocument & { _id?: unknown }): TrialRecord => trial;

/**
 * The trials in MongoDB, through the driver: the unique index on the product and the identifier's
 * key makes "one trial per identifier and product, ever" hold under any number of requests and
 * replicas at once; the others serve the conversion's lookups and the admin's list.
 */
export async function openMongoTrialStore(db: Connection): Promise<MongoTrialStore> {
  const trials = db.collection<TrialDocument>(
    TRIALS_COLLECTION,
  ) as unknown as Collection<TrialDocument>;
  await trials.createIndexes([
    { key: { product_id: 1, identifier_key: 1 }, unique: true, name: 'one_trial_per_identifier' },
    { key: { identifier_key: 1, converted_at: 1 }, name: 'open_by_identifier' },
    { key: { license_key: 1 }, name: 'by_license' },
    { key: { product_id: 1, started_at: -1 }, name: 'by_product_newest' },
    { key: { started_at: -1 }, name: 'newest' },
    { key: { converted_at: 1, started_at: -1 }, name: 'by_conversion_newest' },
  ]);
  return new MongoTrialStore(trials);
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
      const held = await this.trials.findOne({
        product_id: trial.product_id,
        identifier_key: trial.identifier_key,
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
