import {
  LicensingError,
  type CallContext,
  type HandlersOf,
  type Product,
} from '../../libs/contracts/index.js';
import type { Sequences } from '../../libs/database/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { checkBundleItems } from './bundles.js';
import { versionHandlers } from './version-handlers.js';
import type { CatalogModels, ProductDocument } from './models.js';

function toProduct(doc: ProductDocument): Product {
  return {
    id: doc._id,
    title: doc.title,
    requires_license: doc.requires_license,
    download_access: doc.download_access,
    bundle_items: doc.bundle_items,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

function notFound(id: number): LicensingError {
  return new LicensingError('NOT_FOUND', `Product ${id} does not exist.`);
}

/** RPC handlers of the update-catalog service: products and bundles. */
export function catalogHandlers(
  models: CatalogModels,
  sequences: Sequences,
  transport: Transport,
  startedAt: number,
): HandlersOf<'update-catalog'> {
  const { Product } = models;
  const findProduct = async (id: number) => {
    const doc = await Product.findById(id).lean();
    return doc ? toProduct(doc) : null;
  };

  async function existingIds(ids: readonly number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const found = await Product.find({ _id: { $in: [...new Set(ids)] } }, { _id: 1 }).lean();
    return new Set(found.map((p) => p._id));
  }

  async function insert(
    id: number,
    fields: Omit<ProductDocument, '_id' | 'created_at' | 'updated_at'>,
    context: CallContext,
  ) {
    context.beforeWrite();
    const created = await Product.create({ _id: id, ...fields });
    return toProduct(created.toObject());
  }

  return {
    ...versionHandlers({ models, sequences, transport, findProduct }),

    'update-catalog.health': async () => ({
      service: 'update-catalog',
      status: 'ok',
      uptime_seconds: Math.round((Date.now() - startedAt) / 1000),
    }),

    'update-catalog.createProduct': async (request, context) => {
      const bundleItems = checkBundleItems(
        request.id,
        request.bundle_items,
        await existingIds(request.bundle_items),
      );
      const fields = {
        title: request.title,
        requires_license: request.requires_license,
        download_access: request.download_access,
        bundle_items: bundleItems,
      };
      // Checked before the sequence counter is incremented too, and again before each insert.
      context.beforeWrite();
      return sequences.insert(
        'product',
        request.id,
        (id) => insert(id, fields, context),
        () => new LicensingError('ALREADY_EXISTS', `Product ${request.id} already exists.`),
      );
    },

    'update-catalog.getProduct': async ({ id }) => {
      const product = await findProduct(id);
      if (!product) throw notFound(id);
      return product;
    },

    'update-catalog.listProducts': async () => {
      const docs = await Product.find().sort({ _id: 1 }).lean();
      return { products: docs.map(toProduct) };
    },

    'update-catalog.updateProduct': async ({ id, ...changes }, context) => {
      const update: Partial<ProductDocument> = {};
      if (changes.title !== undefined) update.title = changes.title;
      if (changes.requires_license !== undefined)
        update.requires_license = changes.requires_license;
      if (changes.download_access !== undefined) update.download_access = changes.download_access;
      if (changes.bundle_items !== undefined) {
        update.bundle_items = checkBundleItems(
          id,
          changes.bundle_items,
          await existingIds(changes.bundle_items),
        );
      }
      context.beforeWrite();
      const doc = await Product.findByIdAndUpdate(
        id,
        { $set: update },
        {
          returnDocument: 'after',
        },
      ).lean();
      if (!doc) throw notFound(id);
      await transport.publish('update-catalog.product-changed', { id });
      return toProduct(doc);
    },
  };
}
