import { Entitlements } from './entitlements.js';
import { Plans } from './plans.js';
import { Products } from './products.js';

/** The Products and plans page. */
export function CatalogPage({ onVersions }: { onVersions: (productId: number) => void }) {
  return (
    <section aria-labelledby="catalog-heading">
      <h1 id="catalog-heading">Products and plans</h1>
      <Products onVersions={onVersions} />
      <Plans />
      <Entitlements />
    </section>
  );
}
