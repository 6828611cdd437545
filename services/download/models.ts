import { Schema, type Connection, type Model, type Types } from 'mongoose';
import { downloadOutcomes } from '../../libs/contracts/index.js';

/** One download request: served, or refused with the error code the client got (spec 4.5). */
export interface DownloadLogDocument {
  _id: Types.ObjectId;
  at: Date;
  /** Null for a refused request whose path named no valid product id. */
  product_id: number | null;
  license_key: string | null;
  identifier: string | null;
  ip: string;
  outcome: (typeof downloadOutcomes)[number];
  reason: string | null;
  file_id: number | null;
  version: string | null;
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
      file_id: { type: Number, default: null },
      version: { type: String, default: null },
    },
    { collection: 'download_log', versionKey: false },
  );
  // The admin log: newest first, for one product and/or one outcome (Refused Downloads).
  schema.index({ at: -1, _id: -1 });
  schema.index({ product_id: 1, at: -1, _id: -1 });
  schema.index({ outcome: 1, at: -1, _id: -1 });
  return { DownloadLog: connection.model<DownloadLogDocument>('DownloadLog', schema) };
}
