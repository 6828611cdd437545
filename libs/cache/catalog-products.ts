import { LicensingError, internalError, type Product } from '../contracts/index.js';
import type { Transport } from '../transport/index.js';
import { CachedLookup } from './cached-lookup.js';

/**
 * The update catalog's products as other services read them on their hot paths (the license
 * service's titles and bundles, spec 2.2; the download service's access rule, spec 4.5): one
 * `update-catalog.getProduct` call per product, kept by each replica and dropped when the catalog
 * announces a change of it (`update-catalog.product-changed`). A product that does not exist is
 * never kept: it may be created the next moment.
 */
export class CatalogProducts {
  private readonly cache: CachedLookup<number, Product>;

  constructor(
    private readonly transport: Pick<Transport, 'call' | 'subscribe'>,
    /** PRODUCT_CACHE_TTL_MS: bounds what a change event lost to a broker outage can cost. */
    ttlMs: number,
  ) {
    this.cache = new CachedLookup(
      (id) => this.transport.call('update-catalog.getProduct', { id }),
      { ttlMs },
    );
  }

  /** Subscribes to the catalog's change events; call before serving requests. */
  async start(): Promise<void> {
    await this.transport.subscribe('update-catalog.product-changed', ({ id }) =>
      this.cache.invalidate(id),
    );
  }

  /** The product; the catalog's own error (NOT_FOUND for a product it does not have) otherwise. */
  async get(id: number): Promise<Product> {
    const product = await this.cache.find(id);
    // The call answers a product or throws (NOT_FOUND included), so null cannot come back.
    if (!product) throw internalError(`No product ${id} came back from the catalog.`);
    return product;
  }

  /** The product, or null when the catalog says it does not exist. */
  async find(id: number): Promise<Product | null> {
    try {
      return await this.get(id);
    } catch (error) {
      if (error instanceof LicensingError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }
}
