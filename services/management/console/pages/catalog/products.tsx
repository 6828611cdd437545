import { useState } from 'preact/hooks';
import { Empty, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { Done } from '../../shared/components/notices.js';
import { DOWNLOAD_ACCESS_WORDS } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { ProductForm } from './product-form.js';

/** The products: their list, the edit form of one, and the new product's form. */
export function Products({ onVersions }: { onVersions: (productId: number) => void }) {
  const { products, productTitle, reload } = useProductsAndPlans();
  const can = useCan();
  const [editing, setEditing] = useState<number | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <section aria-labelledby="products-heading">
      <h2 id="products-heading">Products and bundles</h2>
      <Done>{saved}</Done>
      {products.length === 0 ? (
        <Empty>There are no products yet.</Empty>
      ) : (
        <Table
          columns={[
            'ID',
            'Title',
            'Bundle items',
            'Requires License',
            'Download API Access',
            'Changed',
          ]}
          actions
        >
          {products.map((product) => (
            <tr key={product.id}>
              <td>{product.id}</td>
              <td>{product.title}</td>
              <td>
                {product.bundle_items.length === 0 ? (
                  <span class="muted">not a bundle</span>
                ) : (
                  product.bundle_items.map(productTitle).join(', ')
                )}
              </td>
              <td>{product.requires_license ? 'Yes' : 'No'}</td>
              <td>{DOWNLOAD_ACCESS_WORDS[product.download_access]}</td>
              <td>
                <Time value={product.updated_at} />
              </td>
              <td class="actions">
                <button
                  type="button"
                  class="secondary small"
                  hidden={!can('updateProduct')}
                  aria-label={`Edit ${product.title}`}
                  aria-expanded={editing === product.id}
                  onClick={() => {
                    setSaved(null);
                    setEditing(editing === product.id ? null : product.id);
                  }}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Versions and files of ${product.title}`}
                  onClick={() => onVersions(product.id)}
                >
                  Versions
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {editing !== null &&
        products
          .filter((product) => product.id === editing)
          .map((product) => (
            <div key={product.id}>
              <h3>Edit {product.title}</h3>
              <ProductForm
                product={product}
                onSaved={(changed) => {
                  setEditing(null);
                  setSaved(`Saved ${changed.title}.`);
                  reload();
                }}
                onCancel={() => setEditing(null)}
              />
            </div>
          ))}
      <h3 hidden={!can('createProduct')}>New product or bundle</h3>
      <ProductForm product={null} onSaved={reload} />
    </section>
  );
}
