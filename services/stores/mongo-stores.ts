import type { Connection } from 'mongoose';
import { Sequences, isDuplicateKey, setOf } from '../../libs/database/index.js';
import { mongoKeptEndingStore } from './mongo-ending-store.js';
import { mongoStoreEventStore } from './mongo-event-store.js';
import {
  storeModels,
  type StoreConnectionDocument,
  type StoreLinkDocument,
  type StoreMappingDocument,
} from './models.js';
import type {
  StoreConnectionRecord,
  StoreConnectionStore,
  StoreLinkRecord,
  StoreLinkStore,
  StoreMappingRecord,
  StoreMappingStore,
  StoreServiceStores,
  StoredSigningSecret,
} from './stores.js';

const connectionOf = ({ _id, ...rest }: StoreConnectionDocument): StoreConnectionRecord => ({
  id: _id,
  ...rest,
});
const mappingOf = ({ _id, ...rest }: StoreMappingDocument): StoreMappingRecord => ({
  id: _id,
  ...rest,
});
const linkOf = ({ _id, ...rest }: StoreLinkDocument): StoreLinkRecord => ({
  license_key: _id,
  ...rest,
  // Links written before renewals' orders and resubscriptions were kept have none.
  renewal_order_ids: rest.renewal_order_ids ?? [],
  resubscription_ids: rest.resubscription_ids ?? [],
});

/** The stores service's stores in its own database, their indexes created. */
export async function openMongoStoreServiceStores(
  connection: Connection,
): Promise<StoreServiceStores> {
  const models = storeModels(connection);
  const { Connection: StoreConnection, Mapping, Link } = models;
  await Promise.all(
    Object.values(models).map((model: { init(): Promise<unknown> }) => model.init()),
  );
  const sequences = new Sequences(connection);

  const connections: StoreConnectionStore = {
    async create({ signing_secret, ...fields }) {
      return sequences.insertNext(
        'store_connection',
        async (id) =>
          connectionOf(
            (
              await StoreConnection.create({
                _id: id,
                ...fields,
                secrets: [{ secret: signing_secret, expires_at: null }],
                secret_rotated_at: null,
                updated_at: fields.created_at,
              })
            ).toObject(),
          ),
        () => {},
      );
    },
    async list() {
      return (await StoreConnection.find().sort({ _id: 1 }).lean()).map(connectionOf);
    },
    async find(id) {
      const doc = await StoreConnection.findById(id).lean();
      return doc && connectionOf(doc);
    },
    async update(id, changes, now) {
      const { emails, ...rest } = changes;
      // Each e-mail setting on its own path, so a partial change keeps the others.
      const emailPaths = Object.fromEntries(
        Object.entries(emails ?? {}).map(([moment, on]) => [`emails.${moment}`, on]),
      );
      const doc = await StoreConnection.findByIdAndUpdate(
        id,
        { $set: { ...setOf(rest), ...emailPaths, updated_at: now } },
        { returnDocument: 'after' },
      ).lean();
      return doc && connectionOf(doc);
    },
    async rotateSecret(id, secret, now, previousUntil) {
      const current = await StoreConnection.findById(id).lean();
      if (!current) return null;
      const previous = current.secrets.find(({ expires_at }) => expires_at === null);
      const secrets: StoredSigningSecret[] = [{ secret, expires_at: null }];
      if (previous) secrets.push({ secret: previous.secret, expires_at: previousUntil });
      const doc = await StoreConnection.findByIdAndUpdate(
        id,
        { $set: { secrets, secret_rotated_at: now, updated_at: now } },
        { returnDocument: 'after' },
      ).lean();
      return doc && connectionOf(doc);
    },
    async remove(id) {
      const doc = await StoreConnection.findByIdAndDelete(id).lean();
      return doc && connectionOf(doc);
    },
  };

  const mappings: StoreMappingStore = {
    async create(mapping) {
      const id = await sequences.next('store_mapping');
      try {
        const doc = await Mapping.create({ _id: id, ...mapping, updated_at: mapping.created_at });
        return mappingOf(doc.toObject());
      } catch (error) {
        if (isDuplicateKey(error)) return 'exists';
        throw error;
      }
    },
    async list(connectionId) {
      return (await Mapping.find({ connection_id: connectionId }).sort({ _id: 1 }).lean()).map(
        mappingOf,
      );
    },
    async find(id) {
      const doc = await Mapping.findById(id).lean();
      return doc && mappingOf(doc);
    },
    async firstMapped(connectionId, externalIds) {
      const docs = await Mapping.find({
        connection_id: connectionId,
        external_id: { $in: [...externalIds] },
      }).lean();
      for (const externalId of externalIds) {
        const doc = docs.find((mapping) => mapping.external_id === externalId);
        if (doc) return mappingOf(doc);
      }
      return null;
    },
    async update(id, changes, now) {
      const doc = await Mapping.findByIdAndUpdate(
        id,
        { $set: { ...setOf(changes), updated_at: now } },
        { returnDocument: 'after' },
      ).lean();
      return doc && mappingOf(doc);
    },
    async remove(id) {
      const doc = await Mapping.findByIdAndDelete(id).lean();
      return doc && mappingOf(doc);
    },
    async removeForConnection(connectionId) {
      await Mapping.deleteMany({ connection_id: connectionId });
    },
  };

  const links: StoreLinkStore = {
    async find(connectionId, { order_id, subscription_id }) {
      for (const ref of [
        subscription_id === null
          ? null
          : { $or: [{ subscription_id }, { resubscription_ids: subscription_id }] },
        order_id === null ? null : { $or: [{ order_id }, { renewal_order_ids: order_id }] },
      ]) {
        if (ref === null) continue;
        const doc = await Link.findOne({ connection_id: connectionId, ...ref }).lean();
        if (doc) return linkOf(doc);
      }
      return null;
    },
    async save({ license_key, ...link }) {
      await Link.updateOne({ _id: license_key }, { $set: link }, { upsert: true });
    },
    async pastGrace(connectionId, before) {
      const docs = await Link.find({
        connection_id: connectionId,
        past_due_since: { $ne: null, $lte: before },
        grace_suspended_at: null,
      }).lean();
      return docs.map(linkOf);
    },
    async markGraceSuspended(licenseKey, at) {
      const marked = await Link.updateOne(
        { _id: licenseKey, past_due_since: { $ne: null }, grace_suspended_at: null },
        { $set: { grace_suspended_at: at, status: 'suspended' } },
      );
      return marked.modifiedCount === 1;
    },
  };

  return {
    connections,
    mappings,
    events: mongoStoreEventStore(models, sequences),
    links,
    endings: mongoKeptEndingStore(models),
  };
}
