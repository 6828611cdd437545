import type { Connection, QueryFilter } from 'mongoose';
import { Sequences, ensureRetentionIndex } from '../../libs/database/index.js';
import {
  AUDIT_COLLECTION,
  managementModels,
  type AdminDocument,
  type AuditDocument,
} from './models.js';
import type {
  AdminRecord,
  AdminStore,
  AuditFilter,
  AuditLogStore,
  ManagementStores,
  StoredAuditRecord,
} from './stores.js';

function adminOf({ _id, ...rest }: AdminDocument): AdminRecord {
  return { id: _id, ...rest, retiring: rest.retiring === true };
}

/** An entry as read: one written before stores' changes were kept names no source, an admin's. */
function auditOf({ _id, key: _key, source, ...rest }: AuditDocument): StoredAuditRecord {
  return { id: _id.toHexString(), ...rest, source: source ?? { kind: 'admin' } };
}

/** Characters of a regular expression, taken literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The query of a filter (stores.ts `AuditFilter`). */
export function auditQuery(filter: AuditFilter): QueryFilter<AuditDocument> {
  const query: QueryFilter<AuditDocument> = {};
  if (filter.admin !== undefined) query['admin.id'] = filter.admin;
  if (filter.source !== undefined) {
    // An entry without a source is an admin's, written before stores' changes were kept.
    query['source.kind'] = filter.source === 'admin' ? { $in: ['admin', null] } : filter.source;
  }
  if (filter.action !== undefined) query.action = filter.action;
  if (filter.target !== undefined) {
    // A kind alone (`product`) is every target of that kind: an anchored prefix, which the
    // index on target serves.
    query.target = filter.target.includes(':')
      ? filter.target
      : { $regex: `^${literal(filter.target)}:` };
  }
  if (filter.from !== undefined || filter.to !== undefined) {
    query.at = {
      ...(filter.from !== undefined ? { $gte: filter.from } : {}),
      ...(filter.to !== undefined ? { $lt: filter.to } : {}),
    };
  }
  return query;
}

const NEWEST_FIRST = { at: -1, _id: -1 } as const;

/**
 * The management API's stores in its own database; creates their indexes, the audit log's TTL
 * index with the retention asked (changed in place when it was created with another).
 */
export async function openMongoManagementStores(
  connection: Connection,
  auditRetentionDays: number,
): Promise<ManagementStores> {
  const { Admin, Audit } = managementModels(connection);
  await Promise.all([Admin.init(), Audit.init()]);
  await ensureRetentionIndex(connection, AUDIT_COLLECTION, 'at', auditRetentionDays);
  const sequences = new Sequences(connection);
  const active = { retiring: { $ne: true } };

  const admins: AdminStore = {
    async create({ token, ...admin }) {
      return sequences.insertNext(
        'admin',
        async (id) =>
          adminOf(
            (
              await Admin.create({ _id: id, ...admin, tokens: [token], retiring: false })
            ).toObject(),
          ),
        () => {},
      );
    },

    async list() {
      return (await Admin.find(active).sort({ _id: 1 }).lean()).map(adminOf);
    },

    async find(id) {
      const doc = await Admin.findOne({ _id: id, ...active }).lean();
      return doc && adminOf(doc);
    },

    async findByToken(tokenId) {
      const doc = await Admin.findOne({ 'tokens.id': tokenId, ...active }).lean();
      return doc && adminOf(doc);
    },

    async countOwners() {
      return Admin.countDocuments({ role: 'owner', ...active });
    },

    async update(id, changes, onlyIfRole) {
      const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      const doc = await Admin.findOneAndUpdate(
        { _id: id, ...active, ...(onlyIfRole ? { role: onlyIfRole } : {}) },
        { $set: set },
        { returnDocument: 'after' },
      ).lean();
      return doc && adminOf(doc);
    },

    async retire(id) {
      const doc = await Admin.findOneAndUpdate(
        { _id: id, ...active },
        { $set: { retiring: true } },
        { returnDocument: 'after' },
      ).lean();
      return doc && adminOf(doc);
    },

    async keep(id) {
      await Admin.updateOne({ _id: id }, { $set: { retiring: false } });
    },

    async remove(id) {
      await Admin.deleteOne({ _id: id, retiring: true });
    },

    async addToken(id, token, limit) {
      const doc = await Admin.findOneAndUpdate(
        // Fewer than `limit` tokens: the one at index limit - 1 does not exist.
        { _id: id, ...active, [`tokens.${limit - 1}`]: { $exists: false } },
        { $push: { tokens: token } },
        { returnDocument: 'after' },
      ).lean();
      return doc && adminOf(doc);
    },

    async revokeToken(id, tokenId) {
      const doc = await Admin.findOneAndUpdate(
        { _id: id, ...active, 'tokens.id': tokenId },
        { $pull: { tokens: { id: tokenId } } },
        { returnDocument: 'before' },
      ).lean();
      return doc?.tokens.find((token) => token.id === tokenId) ?? null;
    },

    async touchToken(tokenId, at) {
      await Admin.updateOne({ 'tokens.id': tokenId }, { $set: { 'tokens.$.last_used_at': at } });
    },
  };

  const audit: AuditLogStore = {
    async record(entry) {
      await Audit.create(entry);
    },

    async recordOnce(entries) {
      if (entries.length === 0) return 0;
      // An upsert on the unique key's equality alone, the key left to the filter: a concurrent
      // one of the same key is retried by the server as an update that finds it written.
      const { upsertedCount } = await Audit.bulkWrite(
        entries.map(({ key, ...entry }) => ({
          updateOne: { filter: { key }, update: { $setOnInsert: entry }, upsert: true },
        })),
        { ordered: false },
      );
      return upsertedCount;
    },

    async page(filter, page, perPage) {
      const query = auditQuery(filter);
      const [docs, total] = await Promise.all([
        Audit.find(query)
          .sort(NEWEST_FIRST)
          .skip((page - 1) * perPage)
          .limit(perPage)
          .lean(),
        Audit.countDocuments(query),
      ]);
      return { entries: docs.map(auditOf), total };
    },

    async *each(filter) {
      const cursor = Audit.find(auditQuery(filter)).sort(NEWEST_FIRST).lean().cursor();
      try {
        for await (const doc of cursor) yield auditOf(doc as AuditDocument);
      } finally {
        await cursor.close();
      }
    },
  };

  return { admins, audit };
}
