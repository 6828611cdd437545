import { useState } from 'preact/hooks';
import { Field } from '../../../../../libs/web/ui/components.js';
import { STATUS_WORDS } from '../../../../../libs/web/ui/words.js';
import { Input, PlanSelect, ProductSelect, WordSelect } from '../../shared/components/fields.js';
import { LIST_WORDS } from '../../shared/words/list-words.js';
import { NO_SEARCH, type LicenseSearch } from './license-search.js';

/** The search of the list (spec 2.2): by key, identifier, customer or metadata, product, plan and status. */
export function SearchForm({
  search,
  onSearch,
}: {
  search: LicenseSearch;
  onSearch: (search: LicenseSearch) => void;
}) {
  const [draft, setDraft] = useState(search);
  const submit = (event: Event) => {
    event.preventDefault();
    onSearch({ ...draft, q: draft.q.trim(), page: 1 });
  };
  const clear = () => {
    const cleared = { ...NO_SEARCH, sort: search.sort, per_page: search.per_page };
    setDraft(cleared);
    onSearch(cleared);
  };
  return (
    <form method="post" onSubmit={submit} class="filters" role="search">
      <Field
        label="Key prefix or identifier, customer or metadata value"
        hint={LIST_WORDS.searchHint}
      >
        <Input
          type="search"
          name="q"
          autocomplete="off"
          spellcheck={false}
          maxLength={255}
          value={draft.q}
          onValue={(q) => setDraft({ ...draft, q })}
        />
      </Field>
      <Field label="Product">
        <ProductSelect
          name="product_id"
          none="Any product"
          value={draft.product_id}
          onChange={(productId) => setDraft({ ...draft, product_id: productId })}
        />
      </Field>
      <Field label="Plan">
        <PlanSelect
          name="plan_id"
          none="Any plan"
          value={draft.plan_id}
          onChange={(planId) => setDraft({ ...draft, plan_id: planId })}
        />
      </Field>
      <Field label="Status">
        <WordSelect
          name="status"
          words={STATUS_WORDS}
          none="Any status"
          value={draft.status}
          onChange={(status) => setDraft({ ...draft, status })}
        />
      </Field>
      <div class="field actions">
        <button type="submit">Search</button>
        <button type="button" class="secondary" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}
