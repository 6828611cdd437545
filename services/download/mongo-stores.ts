import { Types, type Connection, type QueryFilter } from 'mongoose';
import type { DownloadLogStore } from './stores.js';
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

function mongoDownloadLog({ DownloadLog }: DownloadModels): DownloadLogStore {
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

    async list({ product_id, refused, page, per_page }) {
      const filter: QueryFilter<DownloadLogDocument> = {};
      if (product_id !== null) filter.product_id = product_id;
      if (refused !== null) filter.outcome = refused ? 'refused' : 'served';
      const [docs, total] = await Promise.all([
        DownloadLog.find(filter)
          .sort({ at: -1, _id: -1 })
          .skip((page - 1) * per_page)
          .limit(per_page)
          .lean<DownloadLogDocument[]>(),
        DownloadLog.countDocuments(filter),
      ]);
      return { entries: docs.map(entryOf), total };
    },
  };
}
