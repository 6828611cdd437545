import * as catalog from '../catalog/catalog.js';
import { FeedAnswer, FeedRequest } from '../catalog/feeds.js';
import { EmptyRequest, Health, method } from './method.js';

/** The update-catalog service's RPC methods (products, versions, files, the update check and feeds). */
export const updateCatalogMethods = {
  'update-catalog.health': method('update-catalog', EmptyRequest, Health),
  'update-catalog.createProduct': method(
    'update-catalog',
    catalog.CreateProductRequest,
    catalog.Product,
  ),
  'update-catalog.getProduct': method('update-catalog', catalog.ProductRef, catalog.Product),
  'update-catalog.updateProduct': method(
    'update-catalog',
    catalog.UpdateProductRequest,
    catalog.Product,
  ),
  'update-catalog.listProducts': method('update-catalog', EmptyRequest, catalog.ProductList),
  'update-catalog.createVersion': method(
    'update-catalog',
    catalog.CreateVersionRequest,
    catalog.Version,
  ),
  'update-catalog.getVersion': method('update-catalog', catalog.VersionRef, catalog.Version),
  'update-catalog.updateVersion': method(
    'update-catalog',
    catalog.UpdateVersionRequest,
    catalog.Version,
  ),
  'update-catalog.listVersions': method(
    'update-catalog',
    catalog.ProductVersionsRequest,
    catalog.VersionList,
  ),
  'update-catalog.addFile': method('update-catalog', catalog.AddFileRequest, catalog.PackageFile),
  'update-catalog.updateFile': method(
    'update-catalog',
    catalog.UpdateFileRequest,
    catalog.PackageFile,
  ),
  /** Forgets the file and answers with it, so the caller can remove its stored object. */
  'update-catalog.deleteFile': method('update-catalog', catalog.FileRef, catalog.PackageFile),
  'update-catalog.selectFile': method(
    'update-catalog',
    catalog.SelectFileRequest,
    catalog.SelectedFile,
  ),
  /** An updater's feed (docs/updaters.md), from the in-memory catalog. */
  'update-catalog.feed': method('update-catalog', FeedRequest, FeedAnswer),
  'update-catalog.checkUpdate': method(
    'update-catalog',
    catalog.CheckUpdateRequest,
    catalog.UpdateInfo,
  ),
} as const;
