import { Schema, type Connection, type Model, type Types } from 'mongoose';
import { downloadOutcomes } from '../../../libs/contracts/index.js';
import type { DownloadLogRecord } from './stores.js';

/**
 * The indexes of the download log: the admin log, newest first, for one product and/or one
 * outcome (Refused Downloads), and ordered by license key. Every order of the log
 * (mongo-stores.ts `downloadLogOrders`) has one on exactly its fields, or them reversed.
 */
export const downloadLogIndexes: ReadonlyArray<Record<string, 1 | -1>> = [
  { at: -1, _id: -1 },
  { product_id: 1, at: -1, _id: -1 },
  { outcome: 1, at: -1, _id: -1 },
  { license_key: 1, _id: 1 },
];

/**
 * One download log entry (stores.ts `DownloadLogRecord`) under MongoDB's `_id`; entries logged
 * before the license's status was kept have none.
 */
export interface DownloadLogDocument extends Omit<DownloadLogRecord, 'id' | 'license_status'> {
  _id: Types.ObjectId;
  license_status?: DownloadLogRecord['license_status'];
}

export interface DownloadModels {
  DownloadLog: Model<DownloadLogDocument>;
}

export function downloadModels(connection: Connection): DownloadModels {
  const schema = new Schema<DownloadLogDocument>(
    {
      at: { type: Date, required: true },
      product_id: { type: Number, default: null },
      license_key: { type: String, default: null },
      identifier: { type: String, default: null },
      ip: { type: String, required: true },
      outcome: { type: String, enum: downloadOutcomes, required: true },
      reason: { type: String, default: null },
      license_status: { type: String, default: null },
      file_id: { type: Number, default: null },
      version: { type: String, default: null },
    },
    { collection: 'download_log', versionKey: false },
  );
  for (const fields of downloadLogIndexes) schema.index(fields);
  return { DownloadLog: connection.model<DownloadLogDocument>('DownloadLog', schema) };
}
