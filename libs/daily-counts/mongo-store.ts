import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection } from 'mongodb';
import { Schema, type Connection } from 'mongoose';
import { DAILY_COUNT_RETENTION_DAYS, type DailyCountRange, type DailyCountStore } from './store.js';
import type { DailyIncrement, DayTotals } from './tally.js';

/** The collection of the daily counts, in the database of the service that keeps them. */
export const DAILY_COUNTS_COLLECTION = 'daily_counts';

/** One day of one product: `counts` holds a number per metric. */
export interface DailyCountDocument {
  day: string;
  product_id: number | null;
  counts: Record<string, number>;
  /** The start of the day plus the retention: the TTL index removes the record then. */
  expires_at: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The daily counts on a service's own connection: the collection's indexes are built, then the
 * store speaks to it through the driver.
 */
export async function openMongoDailyCounts<M extends string>(
  connection: Connection,
  metrics: readonly M[],
): Promise<DailyCountStore<M>> {
  const schema = new Schema<DailyCountDocument>(
    {
      day: { type: String, required: true },
      product_id: { type: Number, default: null },
      counts: { type: Schema.Types.Mixed, default: {} },
      expires_at: { type: Date, required: true },
    },
    { collection: DAILY_COUNTS_COLLECTION, versionKey: false },
  );
  // One record per day and product: the upserts' filter, and every read (a range of days).
  schema.index({ day: 1, product_id: 1 }, { unique: true });
  // Retention: a record goes once its day is DAILY_COUNT_RETENTION_DAYS old.
  schema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });
  const model = connection.model<DailyCountDocument>('DailyCount', schema);
  await model.init();
  return new MongoDailyCountStore(
    model.collection as unknown as Collection<DailyCountDocument>,
    metrics,
  );
}

export class MongoDailyCountStore<M extends string> implements DailyCountStore<M> {
  constructor(
    private readonly collection: Collection<DailyCountDocument>,
    private readonly metrics: readonly M[],
  ) {}

  async add(increments: readonly DailyIncrement<M>[]): Promise<DailyIncrement<M>[]> {
    if (increments.length === 0) return [];
    const operations: AnyBulkWriteOperation<DailyCountDocument>[] = increments.map(
      ({ day, product_id, counts }) => ({
        updateOne: {
          filter: { day, product_id },
          update: {
            $inc: Object.fromEntries(
              (Object.entries(counts) as Array<[string, number]>).map(([metric, by]) => [
                `counts.${metric}`,
                by,
              ]),
            ),
            $setOnInsert: {
              expires_at: new Date(
                Date.parse(`${day}T00:00:00.000Z`) + DAILY_COUNT_RETENTION_DAYS * DAY_MS,
              ),
            },
          },
          upsert: true,
        },
      }),
    );
    try {
      // Unordered: one refused upsert (two replicas creating a day's record at once) leaves the
      // others written, and is known by its index.
      await this.collection.bulkWrite(operations, { ordered: false });
      return [];
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError)) throw error;
      const refused = new Set(
        (Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]).map(
          (writeError) => writeError.index,
        ),
      );
      return increments.filter((_increment, index) => refused.has(index));
    }
  }

  async totals({ from, to, productId }: DailyCountRange): Promise<DayTotals<M>[]> {
    const sums = Object.fromEntries(
      this.metrics.map((metric) => [metric, { $sum: `$counts.${metric}` }]),
    );
    const rows = await this.collection
      .aggregate<{ _id: string } & Record<M, number>>([
        {
          $match: {
            day: { $gte: from, $lte: to },
            ...(productId === null ? {} : { product_id: productId }),
          },
        },
        { $group: { _id: '$day', ...sums } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    return rows.map(({ _id, ...totals }) => ({ day: _id, ...totals }) as DayTotals<M>);
  }
}
