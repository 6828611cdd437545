import { isDuplicateKey, type Sequences } from '../../libs/database/index.js';
import { retryableStoreEventOutcomes } from '../../libs/contracts/stores/received-store-events.js';
import type { StoreEventDocument, StoreModels } from './models.js';
import type { StoreEventRecord, StoreEventStore } from './stores.js';

function eventOf({
  _id,
  claim: _claim,
  claimed_until: _until,
  ...rest
}: StoreEventDocument): StoreEventRecord {
  return { id: _id, ...rest };
}

/** The received events in MongoDB (`store_events`), unique on (connection_id, event_id). */
export function mongoStoreEventStore(
  { Event }: Pick<StoreModels, 'Event'>,
  sequences: Sequences,
): StoreEventStore {
  return {
    async add(event) {
      // An id is taken before the insert: a duplicate leaves a gap in the ids, nothing else.
      const id = await sequences.next('store_event');
      try {
        const doc = await Event.create({
          _id: id,
          ...event,
          attempts: 0,
          mail: [],
          applied_at: null,
          license_key: null,
          claim: null,
          claimed_until: null,
        });
        return eventOf(doc.toObject());
      } catch (error) {
        if (isDuplicateKey(error)) return 'duplicate';
        throw error;
      }
    },

    async claimDue(now, claim, until) {
      const doc = await Event.findOneAndUpdate(
        {
          outcome: 'pending',
          due_at: { $lte: now },
          $or: [{ claimed_until: null }, { claimed_until: { $lte: now } }],
        },
        { $set: { claim, claimed_until: until } },
        { sort: { due_at: 1, _id: 1 }, returnDocument: 'after' },
      ).lean();
      return doc && eventOf(doc);
    },

    async extendClaim(id, claim, until) {
      const held = await Event.updateOne(
        { _id: id, claim, outcome: 'pending' },
        { $set: { claimed_until: until } },
      );
      return held.matchedCount === 1;
    },

    async finish(id, claim, result) {
      const done = await Event.updateOne(
        { _id: id, claim, outcome: 'pending' },
        { $set: { ...result, claim: null, claimed_until: null } },
      );
      return done.modifiedCount === 1;
    },

    async applyAgain(id, now) {
      const doc = await Event.findOneAndUpdate(
        { _id: id, outcome: { $in: [...retryableStoreEventOutcomes] } },
        {
          $set: {
            outcome: 'pending',
            detail: null,
            attempts: 0,
            due_at: now,
            claim: null,
            claimed_until: null,
          },
        },
        { returnDocument: 'after' },
      ).lean();
      if (doc) return eventOf(doc);
      return (await Event.exists({ _id: id })) ? 'not_retryable' : null;
    },

    async find(id) {
      const doc = await Event.findById(id).lean();
      return doc && eventOf(doc);
    },

    async page({ connection_id, outcome }, page, perPage) {
      const filter = {
        ...(connection_id === null ? {} : { connection_id }),
        ...(outcome === null ? {} : { outcome }),
      };
      const [docs, total] = await Promise.all([
        Event.find(filter)
          .sort({ _id: -1 })
          .skip((page - 1) * perPage)
          .limit(perPage)
          .lean(),
        Event.countDocuments(filter),
      ]);
      return { events: docs.map(eventOf), total };
    },
  };
}
