import { useState } from 'preact/hooks';
import type { DownloadAccess, Product } from '../../../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { useDirectory } from '../../shared/hooks/directory.js';
import { Check, Input, WordSelect } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Done, Outcome } from '../../shared/components/notices.js';
import { Plans } from './plans.js';
import { DOWNLOAD_ACCESS_WORDS } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';

interface ProductDraft {
  title: string;
  requires_license: boolean;
  download_access: DownloadAccess;
  bundle_items: number[];
}

const NEW_PRODUCT: ProductDraft = {
  title: '',
  requires_license: true,
  download_access: 'license_key',
  bundle_items: [],
};

/** Create or edit a product; with bundle items it is a bundle (spec 2.2, 2.7). */
function ProductForm({
  product,
  onSaved,
  onCancel,
}: {
  product: Product | null;
  onSaved: (product: Product) => void;
  onCancel?: () => void;
}) {
  const api = useApi();
  const can = useCan();
  const { products } = useDirectory();
  const [draft, setDraft] = useState<ProductDraft>(
    product === null
      ? NEW_PRODUCT
      : {
          title: product.title,
          requires_license: product.requires_license,
          download_access: product.download_access,
          bundle_items: [...product.bundle_items],
        },
  );
  const action = useAction();
  // Spec 2.2: one level only, so a bundle's items are products, not bundles.
  const candidates = products.filter(
    (other) => other.id !== product?.id && other.bundle_items.length === 0,
  );
  const toggleItem = (id: number, on: boolean) =>
    setDraft({
      ...draft,
      bundle_items: on
        ? [...draft.bundle_items, id].sort((a, b) => a - b)
        : draft.bundle_items.filter((item) => item !== id),
    });
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const body = { ...draft, title: draft.title.trim() };
      const saved =
        product === null
          ? await api.call('createProduct', { body })
          : await api.call('updateProduct', { params: { id: product.id }, body });
      if (product === null) setDraft(NEW_PRODUCT);
      onSaved(saved);
      return product === null ? `Created ${saved.title}.` : `Saved ${saved.title}.`;
    });
  };
  const idPrefix = product === null ? 'new-product' : `product-${product.id}`;
  if (!can(product === null ? 'createProduct' : 'updateProduct')) return null;
  return (
    <form
      method="post"
      onSubmit={submit}
      class="panel"
      aria-label={product ? `Edit ${product.title}` : 'New product'}
    >
      <div class="row">
        <Field label="Title">
          <Input
            name="title"
            required
            maxLength={255}
            value={draft.title}
            onValue={(title) => setDraft({ ...draft, title })}
          />
        </Field>
        <Field label="Download API Access" hint="What the download endpoint needs.">
          <WordSelect
            name="download_access"
            words={DOWNLOAD_ACCESS_WORDS}
            value={draft.download_access}
            onChange={(access) => setDraft({ ...draft, download_access: access })}
          />
        </Field>
      </div>
      <Check
        label="Requires License"
        checked={draft.requires_license}
        onChange={(checked) => setDraft({ ...draft, requires_license: checked })}
      />
      <fieldset class="choices" aria-describedby={`${idPrefix}-bundle-hint`}>
        <legend>Bundle items</legend>
        <p class="hint" id={`${idPrefix}-bundle-hint`}>
          Tick products to make this a bundle: its licenses work with each of them. Bundles cannot
          hold bundles.
        </p>
        {candidates.length === 0 ? (
          <Empty>No product to bundle yet.</Empty>
        ) : (
          candidates.map((candidate) => (
            <Check
              key={candidate.id}
              label={candidate.title}
              checked={draft.bundle_items.includes(candidate.id)}
              onChange={(checked) => toggleItem(candidate.id, checked)}
            />
          ))
        )}
      </fieldset>
      <div class="row">
        <button type="submit" disabled={action.busy || draft.title.trim() === ''}>
          {product === null ? 'Create product' : 'Save'}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <Outcome action={action} />
    </form>
  );
}

function Products({ onVersions }: { onVersions: (productId: number) => void }) {
  const { products, productTitle, reload } = useDirectory();
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

export function CatalogPage({ onVersions }: { onVersions: (productId: number) => void }) {
  return (
    <section aria-labelledby="catalog-heading">
      <h1 id="catalog-heading">Products and plans</h1>
      <Products onVersions={onVersions} />
      <Plans />
    </section>
  );
}
