import type { Connection } from 'mongoose';
import { Sequences, setOf, withId } from '../../libs/database/index.js';
import {
  catalogModels,
  type CatalogModels,
  type FileDocument,
  type ProductDocument,
  type VersionDocument,
} from './models.js';
import type {
  CatalogStores,
  PackageFileRecord,
  PackageFileStore,
  ProductRecord,
  ProductStore,
  VersionRecord,
  VersionStore,
} from './stores.js';

/** The catalog's stores in the service's own database; creates the indexes of `models.ts`. */
export async function openMongoCatalogStores(connection: Connection): Promise<CatalogStores> {
  const models = catalogModels(connection);
  await Promise.all(Object.values(models).map((model) => model.init()));
  return mongoCatalogStores(models, new Sequences(connection));
}

/**
 * Records read from documents stored before the updater settings existed get their defaults:
 * no Joomla or WordPress settings, the stable channel, fully rolled out, a file for any target
 * and without a SHA-512.
 */
type Stored<D, K extends keyof D> = Omit<D, K> & Partial<Pick<D, K>>;

function productRecord(
  doc: Stored<ProductDocument, 'joomla' | 'wordpress' | 'trial_plan_id'>,
): ProductRecord {
  return withId({
    ...doc,
    joomla: doc.joomla ?? null,
    wordpress: doc.wordpress ?? null,
    trial_plan_id: doc.trial_plan_id ?? null,
  });
}

function versionRecord(doc: Stored<VersionDocument, 'channel' | 'rollout_percent'>): VersionRecord {
  return withId({
    ...doc,
    channel: doc.channel ?? 'stable',
    rollout_percent: doc.rollout_percent ?? 100,
  });
}

function fileRecord(
  doc: Stored<
    FileDocument,
    'sha512' | 'platform' | 'arch' | 'signature' | 'minimum_system_version'
  >,
): PackageFileRecord {
  return withId({
    ...doc,
    sha512: doc.sha512 ?? null,
    platform: doc.platform ?? null,
    arch: doc.arch ?? null,
    signature: doc.signature ?? null,
    minimum_system_version: doc.minimum_system_version ?? null,
  });
}

function mongoCatalogStores(models: CatalogModels, sequences: Sequences): CatalogStores {
  const { Product, Version, File } = models;

  const products: ProductStore = {
    async find(id) {
      const doc = await Product.findById(id).lean();
      return doc && productRecord(doc);
    },

    async existingIds(ids) {
      if (ids.length === 0) return new Set();
      const found = await Product.find({ _id: { $in: [...new Set(ids)] } }, { _id: 1 }).lean();
      return new Set(found.map((p) => p._id));
    },

    async list() {
      const docs = await Product.find().sort({ _id: 1 }).lean();
      return docs.map(productRecord);
    },

    // The sequence names are those the service has always used, so existing counters go on.
    async create({ product, id, beforeEachWrite }) {
      const created = await sequences.insert(
        'product',
        id,
        async (chosen): Promise<ProductRecord> =>
          productRecord((await Product.create({ _id: chosen, ...product })).toObject()),
        beforeEachWrite,
      );
      return created.outcome === 'created'
        ? { outcome: 'created', product: created.record }
        : created;
    },

    async update(id, changes) {
      const doc = await Product.findByIdAndUpdate(
        id,
        { $set: setOf(changes) },
        { returnDocument: 'after' },
      ).lean();
      return doc && productRecord(doc);
    },
  };

  const versions: VersionStore = {
    async find(id) {
      const doc = await Version.findById(id).lean();
      return doc && versionRecord(doc);
    },

    async list({ product_id, published }) {
      const filter = published === undefined ? { product_id } : { product_id, published };
      const docs = await Version.find(filter).sort({ _id: 1 }).lean();
      return docs.map(versionRecord);
    },

    create({ version, beforeEachWrite }) {
      return sequences.insertNext(
        'version',
        async (id): Promise<VersionRecord> =>
          versionRecord((await Version.create({ _id: id, ...version })).toObject()),
        beforeEachWrite,
      );
    },

    async update(id, changes) {
      const set = setOf(changes);
      // The version as it was: the change is exactly `set`, so the version after is it with `set`.
      const before = await Version.findByIdAndUpdate(
        id,
        { $set: set },
        { returnDocument: 'before' },
      ).lean();
      if (!before) return null;
      const previous = versionRecord(before);
      return { version: { ...previous, ...set }, previous };
    },
  };

  const packageFiles: PackageFileStore = {
    async find(id) {
      const doc = await File.findById(id).lean();
      return doc && fileRecord(doc);
    },

    async list(filter) {
      const query =
        'version_id' in filter
          ? { version_id: filter.version_id }
          : { product_id: filter.product_id };
      const docs = await File.find(query).sort({ _id: 1 }).lean();
      return docs.map(fileRecord);
    },

    async listInAutoUpdates({ product_id }) {
      const docs = await File.find({ product_id, include_in_updates: true })
        .sort({ _id: 1 })
        .lean();
      return docs.map(fileRecord);
    },

    create({ file, beforeEachWrite }) {
      return sequences.insertNext(
        'file',
        async (id): Promise<PackageFileRecord> =>
          fileRecord((await File.create({ _id: id, ...file })).toObject()),
        beforeEachWrite,
      );
    },

    async update(id, changes) {
      const doc = await File.findByIdAndUpdate(
        id,
        { $set: setOf(changes) },
        { returnDocument: 'after' },
      ).lean();
      return doc && fileRecord(doc);
    },

    async delete(id) {
      const doc = await File.findByIdAndDelete(id).lean();
      return doc && fileRecord(doc);
    },
  };

  return { products, versions, packageFiles };
}
