import { Schema, type Connection, type Model } from 'mongoose';
import type { DownloadAccess } from '../../libs/contracts/index.js';
import { downloadAccessValues } from '../../libs/contracts/index.js';

export interface ProductDocument {
  _id: number;
  title: string;
  requires_license: boolean;
  download_access: DownloadAccess;
  bundle_items: number[];
  created_at: Date;
  updated_at: Date;
}

export interface VersionDocument {
  _id: number;
  product_id: number;
  version: string;
  release_notes: string | null;
  /** `Y-m-d`, as entered in admin. */
  release_date: string | null;
  published: boolean;
  /**
   * When the version was created in admin. Not what orders versions: spec 4.4 rule 3 goes by the
   * upload time of their files (releases.ts).
   */
  created_at: Date;
}

export interface FileDocument {
  _id: number;
  version_id: number;
  product_id: number;
  filename: string;
  /** Null: the file is for every plan. */
  plan_id: number | null;
  include_in_updates: boolean;
  size: number;
  sha256: string;
  content_type: string;
  /** Key of the object in the download service's storage. */
  object_key: string;
  /** When the package was uploaded: it makes its version the latest (spec 4.4 rule 3). */
  uploaded_at: Date;
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
      content_type: { type: String, required: true },
      object_key: { type: String, required: true },
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
