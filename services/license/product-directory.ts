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
 * path (every activate and validate needs them). Entries expire after `ttlMs` and are dropped at
 * once when the catalog announces a change; concurrent misses share one request.
 */
export class ProductDirectory implements ProductLookup {
  private readonly entries = new Map<number, { product: LicensedProduct; expiresAt: number }>();
  private readonly inFlight = new Map<number, Promise<LicensedProduct>>();
  /** Bumped by every change event: a fetch that began before a change must not be cached. */
  private readonly generations = new Map<number, number>();

  constructor(
    private readonly transport: Transport,
    private readonly ttlMs: number,
  ) {}

  async start(): Promise<void> {
    await this.transport.subscribe('update-catalog.product-changed', ({ id }) => {
      this.entries.delete(id);
      this.inFlight.delete(id);
      this.generations.set(id, this.generation(id) + 1);
    });
  }

  /** The product, or null when the catalog says it does not exist. */
  async find(id: number): Promise<LicensedProduct | null> {
    const cached = this.entries.get(id);
    if (cached && cached.expiresAt > Date.now()) return cached.product;
    let request = this.inFlight.get(id);
    if (!request) {
      const started = this.fetch(id).finally(() => {
        if (this.inFlight.get(id) === started) this.inFlight.delete(id);
      });
      request = started;
      this.inFlight.set(id, request);
    }
    try {
      return await request;
    } catch (error) {
      if (error instanceof LicensingError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }

  private generation(id: number): number {
    return this.generations.get(id) ?? 0;
  }

  private async fetch(id: number): Promise<LicensedProduct> {
    const generation = this.generation(id);
    const { title, bundle_items } = await this.transport.call('update-catalog.getProduct', { id });
    const product = { id, title, bundle_items };
    if (this.ttlMs > 0 && this.generation(id) === generation) {
      this.entries.set(id, { product, expiresAt: Date.now() + this.ttlMs });
    }
    return product;
  }
}
