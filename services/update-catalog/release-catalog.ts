import { CachedLookup } from '../../libs/cache/index.js';
import type { CatalogStores, PackageFileRecord, ProductRecord, VersionRecord } from './stores.js';

/**
 * What the update check and the download's file selection read of one product: the product, its
 * published versions (spec 4.4 rule 1) and its files ticked Include in auto-updates (rule 2), of
 * every plan (`chooseRelease` applies rule 4 for each caller). Shared by every caller while it is
 * kept: read only.
 */
export interface ProductReleases {
  readonly product: ProductRecord;
  readonly versions: readonly VersionRecord[];
  readonly files: readonly PackageFileRecord[];
}

export interface ReleaseCatalogOptions {
  /** How long an entry is kept (0: nothing is kept, every lookup reads the stores). */
  ttlMs: number;
  /** Products kept at most; past this the oldest entry is dropped. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * The releases of each product, kept in memory so an update check or a file selection reads
 * nothing from the database in the common case. Every write that changes them calls
 * `invalidate` on the replica that made it and announces `update-catalog.product-changed`, on
 * which every replica calls `invalidate` (service.ts); the time to live bounds what an
 * announcement lost to a broker outage can cost.
 */
export class ReleaseCatalog {
  private readonly cache: CachedLookup<number, ProductReleases>;

  constructor(
    private readonly stores: CatalogStores,
    { ttlMs, maxEntries = 10_000, now }: ReleaseCatalogOptions,
  ) {
    this.cache = new CachedLookup((productId) => this.load(productId), {
      ttlMs,
      maxEntries,
      now,
    });
  }

  /** The product and its releases; null when there is no such product. */
  find(productId: number): Promise<ProductReleases | null> {
    return this.cache.find(productId);
  }

  /** The product, a version or a file of it changed: its entry is read again on next use. */
  invalidate(productId: number): void {
    this.cache.invalidate(productId);
  }

  private async load(productId: number): Promise<ProductReleases | null> {
    // The product first: an id that names none costs one read, not three.
    const product = await this.stores.products.find(productId);
    if (!product) return null;
    const [versions, files] = await Promise.all([
      this.stores.versions.list({ product_id: productId, published: true }),
      this.stores.packageFiles.listInAutoUpdates({ product_id: productId }),
    ]);
    return { product, versions, files };
  }
}
