import { Schema, type Connection, type Model, type Types } from 'mongoose';
import { adminRoles } from '../../libs/contracts/index.js';
import type { AuditSource } from '../../libs/contracts/index.js';
import type { AdminRecord, AuditRecord } from './stores.js';

/** An admin (stores.ts) under MongoDB's `_id`, their tokens inside. */
export interface AdminDocument extends Omit<AdminRecord, 'id'> {
  _id: number;
}

/** An audit entry under an ObjectId, which orders entries of the same moment. */
export interface AuditDocument extends Omit<AuditRecord, 'source'> {
  _id: Types.ObjectId;
  /** Absent from the entries written before a store's changes were kept: an admin's, all. */
  source?: AuditSource;
  /** An entry another service reported: its key, written once (stores.ts `recordOnce`). */
  key?: string;
}

export interface ManagementModels {
  Admin: Model<AdminDocument>;
  Audit: Model<AuditDocument>;
}

/** The audit log's collection, whose TTL index follows AUDIT_RETENTION_DAYS. */
export const AUDIT_COLLECTION = 'audit_log';

export function managementModels(connection: Connection): ManagementModels {
  const token = new Schema(
    {
      id: { type: String, required: true },
      hash: { type: String, required: true },
      created_at: { type: Date, required: true },
      last_used_at: { type: Date, default: null },
    },
    { _id: false },
  );
  const admin = new Schema<AdminDocument>(
    {
      _id: { type: Number, required: true },
      name: { type: String, required: true },
      role: { type: String, enum: adminRoles, required: true },
      created_at: { type: Date, required: true },
      tokens: { type: [token], default: [] },
      retiring: { type: Boolean, default: false },
    },
    { collection: 'admins', versionKey: false },
  );
  // Every request with a named admin's token finds its admin by the token's id.
  admin.index({ 'tokens.id': 1 }, { unique: true, sparse: true });

  const audit = new Schema<AuditDocument>(
    {
      at: { type: Date, required: true },
      admin: {
        type: new Schema(
          { id: { type: Number, required: true }, name: { type: String, required: true } },
          { _id: false },
        ),
        default: null,
      },
      source: { type: Schema.Types.Mixed, default: undefined },
      key: { type: String, default: undefined },
      action: { type: String, required: true },
      target: { type: String, required: true },
      before: { type: Schema.Types.Mixed, default: null },
      after: { type: Schema.Types.Mixed, default: null },
    },
    { collection: AUDIT_COLLECTION, versionKey: false, minimize: false },
  );
  // The log newest first, whole or by admin, action or target.
  audit.index({ at: -1, _id: -1 });
  audit.index({ 'admin.id': 1, at: -1, _id: -1 });
  audit.index({ action: 1, at: -1, _id: -1 });
  audit.index({ target: 1, at: -1, _id: -1 });
  audit.index({ 'source.kind': 1, at: -1, _id: -1 });
  // A reported entry once, however often its event is delivered; an admin's has no key.
  audit.index({ key: 1 }, { unique: true, sparse: true });
  return {
    Admin: connection.model<AdminDocument>('Admin', admin),
    Audit: connection.model<AuditDocument>('AuditEntry', audit),
  };
}
