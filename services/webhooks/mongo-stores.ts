import type { Connection } from 'mongoose';
import { ALL_EVENTS } from '../../libs/contracts/index.js';
import { Sequences, ensureRetentionIndex, setOf } from '../../libs/database/index.js';
import {
  webhookModels,
  type WebhookDeliveryDocument,
  type WebhookEndpointDocument,
} from './models.js';
import type {
  StoredSecret,
  WebhookDeliveryRecord,
  WebhookDeliveryStore,
  WebhookEndpointRecord,
  WebhookEndpointStore,
  WebhookStores,
} from './stores.js';

function endpointOf({ _id, ...rest }: WebhookEndpointDocument): WebhookEndpointRecord {
  return { id: _id, ...rest };
}

function deliveryOf({
  _id,
  claim: _claim,
  ...rest
}: WebhookDeliveryDocument): WebhookDeliveryRecord {
  return { id: _id, ...rest };
}

/**
 * The webhooks service's stores in its own database; creates their indexes, the deliveries' TTL
 * index with the retention asked (changed in place when it was created with another).
 */
export async function openMongoWebhookStores(
  connection: Connection,
  retentionDays: number,
): Promise<WebhookStores> {
  const { Endpoint, Delivery } = webhookModels(connection);
  await Promise.all([Endpoint.init(), Delivery.init()]);
  await ensureRetentionIndex(
    connection,
    Delivery.collection.collectionName,
    'created_at',
    retentionDays,
  );
  const sequences = new Sequences(connection);

  const endpoints: WebhookEndpointStore = {
    async create(endpoint, limit) {
      if ((await Endpoint.countDocuments()) >= limit) return null;
      const { secret, ...fields } = endpoint;
      const created = await sequences.insertNext(
        'webhook_endpoint',
        async (id) =>
          endpointOf(
            (
              await Endpoint.create({
                _id: id,
                ...fields,
                enabled: true,
                disabled_reason: null,
                failing_since: null,
                secret_rotated_at: null,
                secrets: [{ secret, expires_at: null }],
              })
            ).toObject(),
          ),
        () => {},
      );
      // Creations at the same time may all have passed the count above. Each counts again once
      // its own is in and takes it back when over: of any set kept, the last to count saw them
      // all, so the set never grows past the limit (a race may refuse one that would have fit).
      if ((await Endpoint.countDocuments()) > limit) {
        await Endpoint.deleteOne({ _id: created.id });
        return null;
      }
      return created;
    },

    async list() {
      return (await Endpoint.find().sort({ _id: 1 }).lean()).map(endpointOf);
    },

    async enabled() {
      return (await Endpoint.find({ enabled: true }).sort({ _id: 1 }).lean()).map(endpointOf);
    },

    async wanting(type) {
      const docs = await Endpoint.find({ enabled: true, events: { $in: [type, ALL_EVENTS] } })
        .sort({ _id: 1 })
        .lean();
      return docs.map(endpointOf);
    },

    async find(id) {
      const doc = await Endpoint.findById(id).lean();
      return doc && endpointOf(doc);
    },

    async update(id, changes) {
      const doc = await Endpoint.findByIdAndUpdate(
        id,
        { $set: setOf(changes) },
        { returnDocument: 'after' },
      ).lean();
      return doc && endpointOf(doc);
    },

    async remove(id) {
      const doc = await Endpoint.findByIdAndDelete(id).lean();
      return doc && endpointOf(doc);
    },

    async rotateSecret(id, secret, now, previousUntil) {
      const current = await Endpoint.findById(id).lean();
      if (!current) return null;
      // The secret before keeps signing; older ones, which would have expired by then, go.
      const previous = current.secrets.find(({ expires_at }) => expires_at === null);
      const secrets: StoredSecret[] = [{ secret, expires_at: null }];
      if (previous) secrets.push({ secret: previous.secret, expires_at: previousUntil });
      const doc = await Endpoint.findByIdAndUpdate(
        id,
        { $set: { secrets, secret_rotated_at: now } },
        { returnDocument: 'after' },
      ).lean();
      return doc && endpointOf(doc);
    },
  };

  const deliveries: WebhookDeliveryStore = {
    async add(records) {
      if (records.length === 0) return;
      await Delivery.bulkWrite(
        records.map(({ id, ...fields }) => ({
          updateOne: {
            filter: { _id: id },
            update: {
              $setOnInsert: { ...fields, status: 'pending', attempts: [], claim: null },
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    },

    async claimDue(now, endpointIds, claim, until) {
      if (endpointIds.length === 0) return null;
      const doc = await Delivery.findOneAndUpdate(
        {
          status: 'pending',
          next_attempt_at: { $lte: now },
          endpoint_id: { $in: [...endpointIds] },
        },
        { $set: { claim, next_attempt_at: until } },
        { sort: { next_attempt_at: 1 }, returnDocument: 'after' },
      ).lean();
      return doc && deliveryOf(doc);
    },

    async recordAttempt(id, claim, attempt, state) {
      const result = await Delivery.updateOne(
        { _id: id, claim, status: 'pending' },
        { $push: { attempts: attempt }, $set: { ...state, claim: null } },
      );
      return result.modifiedCount === 1;
    },

    async page(endpointId, status, page, perPage) {
      const filter =
        status === null ? { endpoint_id: endpointId } : { endpoint_id: endpointId, status };
      const [docs, total] = await Promise.all([
        Delivery.find(filter)
          .sort({ created_at: -1, _id: -1 })
          .skip((page - 1) * perPage)
          .limit(perPage)
          .lean(),
        Delivery.countDocuments(filter),
      ]);
      return { deliveries: docs.map(deliveryOf), total };
    },

    async find(endpointId, id) {
      const doc = await Delivery.findOne({ _id: id, endpoint_id: endpointId }).lean();
      return doc && deliveryOf(doc);
    },

    async retryNow(endpointId, id, now) {
      // One conditional update, so a sender's claim and a retry never both take the delivery.
      const doc = await Delivery.findOneAndUpdate(
        {
          _id: id,
          endpoint_id: endpointId,
          $or: [{ claim: null }, { next_attempt_at: { $lte: now } }],
        },
        { $set: { status: 'pending', next_attempt_at: now, claim: null } },
        { returnDocument: 'after' },
      ).lean();
      if (doc) return deliveryOf(doc);
      return (await Delivery.exists({ _id: id, endpoint_id: endpointId })) ? 'attempting' : null;
    },

    async removeForEndpoint(endpointId) {
      await Delivery.deleteMany({ endpoint_id: endpointId });
    },
  };

  return { endpoints, deliveries };
}
