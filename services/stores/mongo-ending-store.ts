import { isDuplicateKey } from '../../libs/database/index.js';
import type { StoreModels } from './models.js';
import type { KeptEndingRecord, KeptEndingStore } from './stores.js';

/** An ending as stored, without MongoDB's own id. */
function endingOf({
  _id: _unused,
  ...rest
}: KeptEndingRecord & { _id?: unknown }): KeptEndingRecord {
  return rest;
}

/** The kept endings in MongoDB (`store_kept_endings`), unique on (connection_id, event_id). */
export function mongoKeptEndingStore({ Ending }: Pick<StoreModels, 'Ending'>): KeptEndingStore {
  return {
    async keep(ending) {
      try {
        await Ending.updateOne(
          { connection_id: ending.connection_id, event_id: ending.event_id },
          { $setOnInsert: { ...ending, applied_to: null } },
          { upsert: true },
        );
      } catch (error) {
        // Kept at the same moment by another replica applying the same event: kept once.
        if (!isDuplicateKey(error)) throw error;
      }
    },

    async pending(connectionId, { order_ids, subscription_ids }) {
      const docs = await Ending.find({
        connection_id: connectionId,
        applied_to: null,
        $or: [
          { order_id: { $in: [...order_ids] } },
          { subscription_id: { $in: [...subscription_ids] } },
        ],
      })
        .sort({ occurred_at: 1, _id: 1 })
        .lean();
      return docs.map(endingOf);
    },

    async markApplied(connectionId, eventId, licenseKey) {
      const marked = await Ending.updateOne(
        { connection_id: connectionId, event_id: eventId, applied_to: null },
        { $set: { applied_to: licenseKey } },
      );
      return marked.modifiedCount === 1;
    },
  };
}
