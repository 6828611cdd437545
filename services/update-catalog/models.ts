import { Schema, type Connection, type Model } from 'mongoose';
import {
  downloadAccessValues,
  fileArchitectures,
  filePlatforms,
  releaseChannels,
} from '../../libs/contracts/index.js';
import type { PackageFileRecord, ProductRecord, VersionRecord } from './stores.js';

/** The stored documents: the store's records under MongoDB's `_id` (stores.ts says what each is). */
export interface ProductDocument extends Omit<ProductRecord, 'id'> {
  _id: number;
}

export interface VersionDocument extends Omit<VersionRecord, 'id'> {
  _id: number;
}

export interface FileDocument extends Omit<PackageFileRecord, 'id'> {
  _id: number;
}

export interface CatalogModels {
  Product: Model<ProductDocument>;
  Version: Model<VersionDocument>;
  File: Model<FileDocument>;
}

export function catalogModels(connection: Connection): CatalogModels {
  const productSchema = new Schema<ProductDocument>(
    {
      _id: { type: Number, required: true },
      title: { type: String, required: true },
      requires_license: { type: Boolean, required: true },
      download_access: { type: String, enum: downloadAccessValues, required: true },
      bundle_items: { type: [Number], default: [] },
      // Validated by the contracts' schemas before they are stored; kept as sent.
      joomla: { type: Schema.Types.Mixed, default: null },
      wordpress: { type: Schema.Types.Mixed, default: null },
      trial_plan_id: { type: Number, default: null },
    },
    {
      collection: 'products',
      versionKey: false,
      timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' },
    },
  );
  const versionSchema = new Schema<VersionDocument>(
    {
      _id: { type: Number, required: true },
      product_id: { type: Number, required: true },
      version: { type: String, required: true },
      release_notes: { type: String, default: null },
      release_date: { type: String, default: null },
      published: { type: Boolean, required: true },
      channel: { type: String, enum: releaseChannels, default: 'stable' },
      rollout_percent: { type: Number, min: 0, max: 100, default: 100 },
      requires_entitlement: { type: String },
      created_at: { type: Date, required: true },
    },
    { collection: 'versions', versionKey: false },
  );
  versionSchema.index({ product_id: 1, created_at: -1 });

  const fileSchema = new Schema<FileDocument>(
    {
      _id: { type: Number, required: true },
      version_id: { type: Number, required: true },
      product_id: { type: Number, required: true },
      filename: { type: String, required: true },
      plan_id: { type: Number, default: null },
      include_in_updates: { type: Boolean, required: true },
      size: { type: Number, required: true },
      sha256: { type: String, required: true },
      sha512: { type: String, default: null },
      content_type: { type: String, required: true },
      object_key: { type: String, required: true },
      platform: { type: String, enum: [...filePlatforms, null], default: null },
      arch: { type: String, enum: [...fileArchitectures, null], default: null },
      signature: { type: String, default: null },
      minimum_system_version: { type: String, default: null },
      requires_entitlement: { type: String },
      uploaded_at: { type: Date, required: true },
    },
    { collection: 'files', versionKey: false },
  );
  fileSchema.index({ product_id: 1, include_in_updates: 1 });
  fileSchema.index({ version_id: 1 });

  return {
    Version: connection.model<VersionDocument>('Version', versionSchema),
    File: connection.model<FileDocument>('File', fileSchema),
    Product: connection.model<ProductDocument>('Product', productSchema),
  };
}
