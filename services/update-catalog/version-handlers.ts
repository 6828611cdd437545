import {
  LicensingError,
  unknownProductUpdate,
  type HandlersOf,
  type MethodsOf,
  type PackageFile,
  type Product,
  type UpdateInfo,
  type Version,
} from '../../libs/contracts/index.js';
import type { Sequences } from '../../libs/database/index.js';
import type { Transport } from '../../libs/transport/index.js';
import type { CatalogModels, FileDocument, VersionDocument } from './models.js';
import { chooseRelease, downloadRequires, releaseDate } from './releases.js';

type VersionMethods = Exclude<
  MethodsOf<'update-catalog'>,
  | 'update-catalog.health'
  | 'update-catalog.createProduct'
  | 'update-catalog.getProduct'
  | 'update-catalog.updateProduct'
  | 'update-catalog.listProducts'
>;

export function fileView(doc: FileDocument): PackageFile {
  return {
    id: doc._id,
    version_id: doc.version_id,
    product_id: doc.product_id,
    filename: doc.filename,
    plan_id: doc.plan_id,
    include_in_updates: doc.include_in_updates,
    size: doc.size,
    sha256: doc.sha256,
    content_type: doc.content_type,
    object_key: doc.object_key,
    uploaded_at: doc.uploaded_at.toISOString(),
  };
}

/** The upload time of a version: that of its newest file (null without files). */
function newestUpload(files: readonly FileDocument[]): Date | null {
  let newest: Date | null = null;
  for (const file of files) if (!newest || file.uploaded_at > newest) newest = file.uploaded_at;
  return newest;
}

function versionView(doc: VersionDocument, uploadedAt: Date | null): Omit<Version, 'files'> {
  return {
    id: doc._id,
    product_id: doc.product_id,
    version: doc.version,
    release_notes: doc.release_notes,
    release_date: doc.release_date,
    published: doc.published,
    created_at: doc.created_at.toISOString(),
    uploaded_at: uploadedAt?.toISOString() ?? null,
  };
}

function versionWithFiles(doc: VersionDocument, files: readonly FileDocument[]): Version {
  return { ...versionView(doc, newestUpload(files)), files: files.map(fileView) };
}

const releaseView = <T extends { _id: number }>(doc: T) => ({ ...doc, id: doc._id });

/** RPC handlers of versions, package files and the update check (spec 2.6, 2.7, 4.4). */
export function versionHandlers(deps: {
  models: CatalogModels;
  sequences: Sequences;
  transport: Transport;
  findProduct: (id: number) => Promise<Product | null>;
}): Pick<HandlersOf<'update-catalog'>, VersionMethods> {
  const { Version: VersionModel, File: FileModel } = deps.models;

  async function withFiles(doc: VersionDocument): Promise<Version> {
    const files = await FileModel.find({ version_id: doc._id }).sort({ _id: 1 }).lean();
    return versionWithFiles(doc, files);
  }

  async function requireVersion(id: number): Promise<VersionDocument> {
    const doc = await VersionModel.findById(id).lean();
    if (!doc) throw new LicensingError('NOT_FOUND', `Version ${id} does not exist.`);
    return doc;
  }

  async function requireProduct(id: number): Promise<Product> {
    const product = await deps.findProduct(id);
    if (!product) throw new LicensingError('NOT_FOUND', `Product ${id} does not exist.`);
    return product;
  }

  /** Spec 4.4 rules 1-5 for one product and the caller's plan (null: all-plans files only). */
  async function select(productId: number, planId: number | null) {
    const [versions, files] = await Promise.all([
      VersionModel.find({ product_id: productId, published: true }).lean(),
      FileModel.find({
        product_id: productId,
        include_in_updates: true,
        plan_id: { $in: planId === null ? [null] : [null, planId] },
      }).lean(),
    ]);
    const chosen = chooseRelease(versions.map(releaseView), files.map(releaseView), planId);
    return (
      chosen && {
        version: chosen.version as VersionDocument,
        file: chosen.file as FileDocument,
        uploadedAt: chosen.uploadedAt,
      }
    );
  }

  return {
    'update-catalog.createVersion': async (request, context) => {
      await requireProduct(request.product_id);
      // Checked before the sequence counter is incremented too, and again before each insert.
      context.beforeWrite();
      return deps.sequences.insert(
        'version',
        undefined,
        async (id) => {
          context.beforeWrite();
          const created = await VersionModel.create({
            _id: id,
            product_id: request.product_id,
            version: request.version,
            release_notes: request.release_notes,
            release_date: request.release_date,
            published: request.published,
            created_at: new Date(),
          });
          return withFiles(created.toObject());
        },
        () => new LicensingError('INTERNAL_ERROR', 'Could not assign a version id.'),
      );
    },

    'update-catalog.getVersion': async ({ id }) => withFiles(await requireVersion(id)),

    'update-catalog.updateVersion': async ({ id, ...changes }, context) => {
      const set: Partial<VersionDocument> = {};
      if (changes.version !== undefined) set.version = changes.version;
      if (changes.release_notes !== undefined) set.release_notes = changes.release_notes;
      if (changes.release_date !== undefined) set.release_date = changes.release_date;
      if (changes.published !== undefined) set.published = changes.published;
      context.beforeWrite();
      const doc = await VersionModel.findByIdAndUpdate(
        id,
        { $set: set },
        { returnDocument: 'after' },
      ).lean();
      if (!doc) throw new LicensingError('NOT_FOUND', `Version ${id} does not exist.`);
      return withFiles(doc);
    },

    'update-catalog.listVersions': async ({ product_id }) => {
      await requireProduct(product_id);
      const [versions, files] = await Promise.all([
        VersionModel.find({ product_id }).lean(),
        FileModel.find({ product_id }).sort({ _id: 1 }).lean(),
      ]);
      const listed = versions.map((v) =>
        versionWithFiles(
          v,
          files.filter((f) => f.version_id === v._id),
        ),
      );
      // Most recently uploaded first; a version without files yet counts from its creation.
      const at = (v: Version) => Date.parse(v.uploaded_at ?? v.created_at);
      return { versions: listed.sort((a, b) => at(b) - at(a) || b.id - a.id) };
    },

    'update-catalog.addFile': async (request, context) => {
      const version = await requireVersion(request.version_id);
      // Checked before the sequence counter is incremented too, and again before each insert.
      context.beforeWrite();
      return deps.sequences.insert(
        'file',
        undefined,
        async (id) => {
          context.beforeWrite();
          const created = await FileModel.create({
            _id: id,
            ...request,
            product_id: version.product_id,
            uploaded_at: new Date(),
          });
          return fileView(created.toObject());
        },
        () => new LicensingError('INTERNAL_ERROR', 'Could not assign a file id.'),
      );
    },

    'update-catalog.updateFile': async ({ id, ...changes }, context) => {
      const set: Partial<FileDocument> = {};
      if (changes.plan_id !== undefined) set.plan_id = changes.plan_id;
      if (changes.include_in_updates !== undefined) {
        set.include_in_updates = changes.include_in_updates;
      }
      context.beforeWrite();
      const doc = await FileModel.findByIdAndUpdate(
        id,
        { $set: set },
        { returnDocument: 'after' },
      ).lean();
      if (!doc) throw new LicensingError('NOT_FOUND', `File ${id} does not exist.`);
      return fileView(doc);
    },

    'update-catalog.deleteFile': async ({ id }, context) => {
      context.beforeWrite();
      const doc = await FileModel.findByIdAndDelete(id).lean();
      if (!doc) throw new LicensingError('NOT_FOUND', `File ${id} does not exist.`);
      return fileView(doc);
    },

    'update-catalog.selectFile': async ({ product_id, plan_id }) => {
      const product = await requireProduct(product_id);
      const chosen = await select(product_id, plan_id);
      return {
        product,
        selection: chosen && {
          version: versionView(chosen.version, chosen.uploadedAt),
          file: fileView(chosen.file),
        },
      };
    },

    // ---- Spec 4.4 ----
    'update-catalog.checkUpdate': async ({ product_id, license_key, downloads_url }) => {
      const product = await deps.findProduct(product_id);
      // Response 3: a product that does not exist gets the no-version shape, never an error.
      if (!product) return unknownProductUpdate;
      // A key only scopes the answer (spec 5.2): an unknown or foreign key is as good as none.
      const coverage = license_key
        ? await deps.transport.call('license.coverage', {
            license_key,
            product_id,
            identifier: null,
          })
        : null;
      const covering = coverage?.covers ? coverage : null;
      const chosen = await select(product_id, covering?.plan_id ?? null);
      const requires = downloadRequires(product.download_access);
      if (!chosen) {
        return {
          update_available: false,
          requires_license: product.requires_license,
          download_requires: requires,
        };
      }
      const info: UpdateInfo = {
        update_available: true,
        name: product.title,
        version: chosen.version.version,
        download_url:
          product.download_access === 'account' ? null : `${downloads_url}/${product_id}`,
        download_requires: requires,
        release_notes: chosen.version.release_notes,
        date: releaseDate(chosen.version.release_date, chosen.uploadedAt),
        file_size: chosen.file.size,
        requires_license: product.requires_license,
      };
      // Rule 6: the version is reported whatever the license state; the state is added.
      if (covering) {
        return {
          ...info,
          license_status: covering.status ?? 'invalid',
          license_expires_at: covering.expires_at,
          auto_renew: covering.auto_renew,
          next_payment_at: covering.next_payment_at,
        };
      }
      return info;
    },
  };
}
