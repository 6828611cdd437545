import { useState } from 'preact/hooks';
import type { DownloadAccess, Product } from '../../../../../libs/contracts/index.js';
import { Empty, Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { Check, Input, PlanSelect, WordSelect } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import { DOWNLOAD_ACCESS_WORDS } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import {
  updaterBody,
  updaterDraftsOf,
  UpdaterSettings,
  type UpdaterDrafts,
} from './updater-settings.js';

interface ProductDraft {
  title: string;
  requires_license: boolean;
  download_access: DownloadAccess;
  bundle_items: number[];
  /** The plan its trials are issued on; null: no trial (docs/api-decisions.md, "Trials"). */
  trial_plan_id: number | null;
  updaters: UpdaterDrafts;
}

const NEW_PRODUCT: ProductDraft = {
  title: '',
  requires_license: true,
  download_access: 'license_key',
  bundle_items: [],
  trial_plan_id: null,
  updaters: { joomla: null, wordpress: null },
};

/** Create or edit a product; with bundle items it is a bundle (spec 2.2, 2.7). */
export function ProductForm({
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
  const { products } = useProductsAndPlans();
  const [draft, setDraft] = useState<ProductDraft>(
    product === null
      ? NEW_PRODUCT
      : {
          title: product.title,
          requires_license: product.requires_license,
          download_access: product.download_access,
          bundle_items: [...product.bundle_items],
          trial_plan_id: product.trial_plan_id,
          updaters: updaterDraftsOf(product),
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
      const { updaters, ...fields } = draft;
      const body = { ...fields, title: draft.title.trim(), ...updaterBody(updaters) };
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
        <Field
          label="Trial plan"
          hint="Trials of this product are issued on this plan, for its trial days. A plan without trial days offers none."
        >
          <PlanSelect
            name="trial_plan_id"
            none="No trial"
            value={draft.trial_plan_id}
            onChange={(trial_plan_id) => setDraft({ ...draft, trial_plan_id })}
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
      <UpdaterSettings
        drafts={draft.updaters}
        onChange={(updaters) => setDraft({ ...draft, updaters })}
      />
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
