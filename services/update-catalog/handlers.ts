import { LicensingError, refusal, unknownProductUpdate } from '../../libs/contracts/index.js';
import type { ServedHandlers, Transport } from '../../libs/transport/index.js';
import { checkBundleItems } from './bundles.js';
import type { CatalogEvents } from './events.js';
import { ReleaseCatalog, type ProductReleases } from './release-catalog.js';
import { audienceOf } from './audience.js';
import { createFeedHandlers } from './feeds/feed-handlers.js';
import { createPackageFileHandlers } from './file-handlers.js';
import { notFound } from './not-found.js';
import {
  chooseRelease,
  entitlementScope,
  pinnedRelease,
  planScope,
  reportedLicenseState,
  updatesUntilDay,
} from './releases.js';
import type { CatalogStores } from './stores.js';
import {
  noUpdateView,
  productView,
  selectedFileView,
  updateView,
  versionListView,
  versionWithFilesView,
} from './views.js';

export interface UpdateCatalogDeps {
  stores: CatalogStores;
  /** What the handlers ask of the license service, and the product changes they announce. */
  transport: Pick<Transport, 'call' | 'publish'>;
  /** Where the catalog's domain events go. */
  events: CatalogEvents;
  /**
   * What the update check and `selectFile` read (spec 4.4), kept per product; the handlers
   * invalidate it on each change they make. Default: nothing kept.
   */
  releases?: ReleaseCatalog;
  /** Upload and creation times of versions and files. */
  clock?: () => Date;
}

/**
 * RPC handlers of the update-catalog service: products and bundles, versions and their package
 * files, and the update check (spec 2.6, 2.7, 4.4). Each write is preceded by the call's deadline
 * check (`context.beforeWrite()`, docs/architecture.md).
 */
export function createUpdateCatalogHandlers({
  stores,
  transport,
  events,
  releases = new ReleaseCatalog(stores, { ttlMs: 0 }),
  clock = () => new Date(),
}: UpdateCatalogDeps): ServedHandlers<'update-catalog'> {
  const { products, versions, packageFiles } = stores;

  async function requireProduct(id: number) {
    const product = await products.find(id);
    if (!product) throw LicensingError.from(notFound('Product', id));
    return product;
  }

  async function requireVersion(id: number) {
    const version = await versions.find(id);
    if (!version) throw LicensingError.from(notFound('Version', id));
    return version;
  }

  async function bundleItems(bundleId: number | undefined, items: readonly number[]) {
    const check = checkBundleItems({
      bundleId,
      items,
      existingIds: await products.existingIds(items),
    });
    if (!check.ok) throw LicensingError.from(check.refusal);
    return check.items;
  }

  /**
   * A write changed what the update check and `selectFile` answer for this product (spec 4.4):
   * this replica reads it again at once; the event tells the others (and the product caches of
   * the license and download services, libs/cache). Called after the write, so a read that
   * began before it is not kept.
   */
  async function changed(productId: number) {
    releases.invalidate(productId);
    await transport.publish('update-catalog.product-changed', { id: productId });
  }

  /** Spec 4.4 rules 1-5 for the caller's plan (null: all-plans files only), channel and bucket. */
  const release = (
    { versions: published, files }: ProductReleases,
    audience: Parameters<typeof audienceOf>[0],
  ) => chooseRelease({ versions: published, files, audience: audienceOf(audience) });

  return {
    ...createFeedHandlers({ releases, transport }),

    // ---- Products and bundles ----
    'update-catalog.createProduct': async (request, context) => {
      const product = {
        title: request.title,
        requires_license: request.requires_license,
        download_access: request.download_access,
        bundle_items: await bundleItems(request.id, request.bundle_items),
        joomla: request.joomla,
        wordpress: request.wordpress,
        trial_plan_id: request.trial_plan_id,
      };
      context.beforeWrite();
      const created = await products.create({
        product,
        id: request.id,
        beforeEachWrite: () => context.beforeWrite(),
      });
      if (created.outcome === 'id-taken') {
        throw LicensingError.from(
          refusal('ALREADY_EXISTS', `Product ${request.id} already exists.`),
        );
      }
      return productView(created.product);
    },

    'update-catalog.getProduct': async ({ id }) => productView(await requireProduct(id)),

    'update-catalog.listProducts': async () => ({
      products: (await products.list()).map(productView),
    }),

    'update-catalog.updateProduct': async ({ id, bundle_items, ...changes }, context) => {
      const items = bundle_items === undefined ? undefined : await bundleItems(id, bundle_items);
      context.beforeWrite();
      const updated = await products.update(id, { ...changes, bundle_items: items });
      if (!updated) throw LicensingError.from(notFound('Product', id));
      await changed(id);
      return productView(updated);
    },

    // ---- Versions ----
    'update-catalog.createVersion': async (request, context) => {
      await requireProduct(request.product_id);
      context.beforeWrite();
      const now = clock();
      const created = await versions.create({
        version: {
          product_id: request.product_id,
          version: request.version,
          release_notes: request.release_notes,
          release_date: request.release_date,
          published: request.published,
          channel: request.channel,
          rollout_percent: request.rollout_percent,
          requires_entitlement: request.requires_entitlement,
          created_at: now,
        },
        beforeEachWrite: () => context.beforeWrite(),
      });
      if (created.published) events.versionPublished({ version: created, at: now });
      // No answer offers a version without files yet, but the kept list of published versions
      // no longer holds them all: dropped like after any other change.
      await changed(created.product_id);
      return versionWithFilesView(created, []);
    },

    'update-catalog.getVersion': async ({ id }) => {
      const version = await requireVersion(id);
      return versionWithFilesView(version, await packageFiles.list({ version_id: id }));
    },

    'update-catalog.updateVersion': async ({ id, ...changes }, context) => {
      context.beforeWrite();
      const now = clock();
      const updated = await versions.update(id, changes);
      if (!updated) throw LicensingError.from(notFound('Version', id));
      const { version, previous } = updated;
      // Published by this change, and only by the one change that moved it (read atomically).
      if (version.published && !previous.published) {
        events.versionPublished({ version, at: now });
      }
      if (version.rollout_percent !== previous.rollout_percent) {
        events.rolloutChanged({ version, previousPercent: previous.rollout_percent, at: now });
      }
      await changed(version.product_id);
      return versionWithFilesView(version, await packageFiles.list({ version_id: id }));
    },

    'update-catalog.listVersions': async ({ product_id }) => {
      await requireProduct(product_id);
      const [listed, files] = await Promise.all([
        versions.list({ product_id }),
        packageFiles.list({ product_id }),
      ]);
      return versionListView(listed, files);
    },

    // ---- Package files ----
    ...createPackageFileHandlers({ packageFiles, requireVersion, changed, clock }),

    // ---- Spec 4.4 ----
    'update-catalog.selectFile': async ({
      product_id,
      plan_id,
      file_id,
      channel,
      rollout,
      entitlements,
      updates_until,
    }) => {
      const found = await releases.find(product_id);
      if (!found) throw LicensingError.from(notFound('Product', product_id));
      const updatesUntil = updates_until === null ? null : updates_until.slice(0, 10);
      const chosen =
        file_id === null
          ? release(found, {
              planId: plan_id,
              entitlements,
              channel,
              rollout: rollout && {
                licenseKey: rollout.license_key,
                identifier: rollout.identifier,
              },
              updatesUntil,
            })
          : pinnedRelease({ ...found, fileId: file_id, planId: plan_id, updatesUntil });
      return selectedFileView(found.product, chosen);
    },

    'update-catalog.checkUpdate': async ({
      product_id,
      license_key,
      identifier,
      channel,
      downloads_url,
    }) => {
      const found = await releases.find(product_id);
      // Response 3: a product that does not exist gets the no-version shape, never an error.
      if (!found) return unknownProductUpdate;
      const { product } = found;
      const coverage = license_key
        ? await transport.call('license.coverage', { license_key, product_id, identifier })
        : null;
      const audience = {
        planId: planScope(coverage),
        entitlements: entitlementScope(coverage),
        channel,
        rollout:
          license_key && coverage?.covers
            ? { licenseKey: license_key, identifier: coverage.identifier }
            : null,
      };
      const updatesUntil = updatesUntilDay(coverage);
      const chosen = release(found, { ...audience, updatesUntil });
      if (!chosen) return noUpdateView(product);
      // A kept expired license gets the newest version released by its expiry, and is told of
      // a newer one, which a renewal brings (docs/api-decisions.md, "Expiry strategies").
      const newest = updatesUntil === null ? null : release(found, audience);
      return updateView({
        product,
        release: chosen,
        downloadsUrl: downloads_url,
        licenseState: reportedLicenseState(coverage),
        newer: newest && newest.version.id !== chosen.version.id ? newest.version.version : null,
      });
    },
  };
}
