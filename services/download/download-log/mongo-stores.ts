import type { Collection, Filter } from 'mongodb';
import { Types, type Connection } from 'mongoose';
import type { DownloadLogSortField, ListCursor } from '../../../libs/contracts/index.js';
import { afterCursor, cursorAt, sortOf, type StoredOrder } from '../../../libs/database/index.js';
import type { DownloadLogFilters, DownloadLogOrder, DownloadLogStore } from './stores.js';
import { downloadModels, type DownloadLogDocument, type DownloadModels } from './models.js';

/** The download log in the service's own database; creates the indexes of `models.ts`. */
export async function openMongoDownloadLog(connection: Connection): Promise<DownloadLogStore> {
  const models = downloadModels(connection);
  await Promise.all(Object.values(models).map((model) => model.init()));
  return mongoDownloadLog(models);
}

const entryOf = ({ _id, license_status, ...rest }: DownloadLogDocument) => ({
  id: _id.toHexString(),
  ...rest,
  license_status: license_status ?? null,
});

/** An entry id as MongoDB keeps it; null for a string that names no ObjectId. */
function objectIdOf(id: string): Types.ObjectId | null {
  return /^[0-9a-f]{24}$/i.test(id) ? new Types.ObjectId(id) : null;
}

/**
 * The stored order of each order of the log (libs/database `StoredOrder`): each has an index in
 * models.ts `downloadLogIndexes` on exactly its fields, or them reversed (a test checks).
 */
export const downloadLogOrders: Record<DownloadLogSortField, Omit<StoredOrder, 'descending'>> = {
  at: { path: 'at', unique: false },
  license_key: { path: 'license_key', unique: false },
};

export function storedLogOrder({ field, descending }: DownloadLogOrder): StoredOrder {
  return { ...downloadLogOrders[field], descending };
}

type LogFilter = Filter<DownloadLogDocument>;

/**
 * The MongoDB filter of an admin's view of the log: every condition is on the first field of an
 * index, or on `at`, which follows it in the product's and the outcome's (a test checks).
 */
export function downloadLogFilter({
  product_id,
  refused,
  from,
  to,
}: DownloadLogFilters): LogFilter {
  const filter: LogFilter = {};
  if (product_id !== null) filter.product_id = product_id;
  if (refused !== null) filter.outcome = refused ? 'refused' : 'served';
  if (from !== null || to !== null) {
    filter.at = { ...(from === null ? {} : { $gte: from }), ...(to === null ? {} : { $lt: to }) };
  }
  return filter;
}

/** A cursor's value as stored: the time of an entry is a date. */
function storedSortValue(field: DownloadLogSortField, value: ListCursor['value']) {
  if (value === null) return null;
  return field === 'at' ? new Date(String(value)) : String(value);
}

function mongoDownloadLog({ DownloadLog }: DownloadModels): DownloadLogStore {
  // The driver's collection: what the admin lists send is already of the schema's types.
  const entries = DownloadLog.collection as unknown as Collection<DownloadLogDocument>;

  /**
   * Entries go straight to the driver, since a mongoose document (built, validated, saved) cost
   * more CPU than the rest of the decision (docs/performance.md); typed here, so every field is
   * given, of the schema's type. Their ids, in order.
   */
  async function insert(entries: Array<Omit<DownloadLogDocument, '_id'>>): Promise<string[]> {
    const docs: DownloadLogDocument[] = entries.map((entry) => ({
      _id: new Types.ObjectId(),
      ...entry,
    }));
    if (docs.length === 1) await DownloadLog.collection.insertOne(docs[0]!);
    else if (docs.length > 1) await DownloadLog.collection.insertMany(docs);
    return docs.map(({ _id }) => _id.toHexString());
  }

  return {
    recordServed: async (entry) =>
      (await insert([{ ...entry, outcome: 'served', reason: null, license_status: null }]))[0]!,

    recordRefusals: (entries) =>
      insert(
        entries.map((entry) => ({ ...entry, outcome: 'refused', file_id: null, version: null })),
      ),

    async markServedAsRefused({ id, reason }) {
      const _id = objectIdOf(id);
      if (!_id) return null;
      const doc = await DownloadLog.findOneAndUpdate(
        { _id, outcome: 'served' },
        { $set: { outcome: 'refused', reason } },
        { returnDocument: 'after' },
      ).lean<DownloadLogDocument>();
      return doc && entryOf(doc);
    },

    async list({ order, page, per_page, ...filters }) {
      const filter = downloadLogFilter(filters);
      const [docs, total] = await Promise.all([
        entries
          .find(filter)
          .sort(sortOf(storedLogOrder(order)))
          .skip((page - 1) * per_page)
          .limit(per_page)
          .toArray(),
        entries.countDocuments(filter),
      ]);
      return { entries: docs.map(entryOf), total };
    },

    async scan({ order, after, limit, ...filters }) {
      const stored = storedLogOrder(order);
      const filter = downloadLogFilter(filters);
      const from: LogFilter =
        after === null
          ? filter
          : {
              $and: [
                filter,
                afterCursor(
                  stored,
                  storedSortValue(order.field, after.value),
                  after.id,
                ) as LogFilter,
              ],
            };
      const docs = await entries.find(from).sort(sortOf(stored)).limit(limit).toArray();
      const last = docs.at(-1);
      return {
        entries: docs.map(entryOf),
        next:
          last && docs.length === limit
            ? cursorAt(order.field === 'at' ? last.at : last.license_key, last._id)
            : null,
      };
    },
  };
}
