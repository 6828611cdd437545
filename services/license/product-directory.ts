import { CachedLookup } from '../../libs/cache/index.js';
import { LicensingError } from '../../libs/contracts/index.js';
import type { Transport } from '../../libs/transport/index.js';
import type { LicensedProduct } from './rules.js';

/** Where the license service learns a product's title and bundle items (spec 2.2). */
export interface ProductLookup {
  /** The product, or null when the catalog says it does not exist. */
  find(id: number): Promise<LicensedProduct | null>;
}

/**
 * Product titles and bundle contents, which the update-catalog service owns, cached for the hot
 * path (every activate and validate needs them) and dropped when the catalog announces a change.
 */
export class ProductDirectory implements ProductLookup {
  private readonly cache: CachedLookup<number, LicensedProduct>;

  constructor(
    private readonly transport: Transport,
    ttlMs: number,
  ) {
    this.cache = new CachedLookup((id) => this.fetch(id), { ttlMs });
  }

  async start(): Promise<void> {
    await this.transport.subscribe('update-catalog.product-changed', ({ id }) =>
      this.cache.invalidate(id),
    );
  }

  find(id: number): Promise<LicensedProduct | null> {
    return this.cache.find(id);
  }

  private async fetch(id: number): Promise<LicensedProduct | null> {
    try {
      const { title, bundle_items } = await this.transport.call('update-catalog.getProduct', {
        id,
      });
      return { id, title, bundle_items };
    } catch (error) {
      if (error instanceof LicensingError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }
}
