import { useState } from 'preact/hooks';
import type {
  LicenseDetail,
  LicensePage,
  LicenseStatus,
  LicenseSummary,
} from '../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../libs/web/ui/components.js';
import { Time } from '../../../libs/web/ui/time.js';
import { STATUS_WORDS } from '../../../libs/web/ui/words.js';
import { useApi } from './admin-api.js';
import { Pager } from './controls.js';
import { useDirectory } from './directory.js';
import { Input, PlanSelect, ProductSelect, WordSelect, localInputToIso } from './fields.js';
import { useAction, useLoad } from './hooks.js';
import { LoadView, Outcome } from './notices.js';
import { StatusBadge, usage } from './words.js';
import { useCan } from './permissions.js';

/** The license search (spec 2.2): kept by the console, so it is still there after a detail. */
export interface LicenseSearch {
  q: string;
  product_id: number | null;
  plan_id: number | null;
  status: LicenseStatus | null;
  page: number;
}

export const NO_SEARCH: LicenseSearch = {
  q: '',
  product_id: null,
  plan_id: null,
  status: null,
  page: 1,
};

const PER_PAGE = 25;

function SearchForm({
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
    setDraft(NO_SEARCH);
    onSearch(NO_SEARCH);
  };
  return (
    <form method="post" onSubmit={submit} class="filters" role="search">
      <Field
        label="Key prefix or identifier"
        hint="The first characters of a key, or a site, device, e-mail or instance in any spelling."
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

function LicenseTable({
  licenses,
  onOpen,
}: {
  licenses: readonly LicenseSummary[];
  onOpen: (key: string) => void;
}) {
  const { productTitle, planName } = useDirectory();
  return (
    <Table
      columns={['License key', 'Product', 'Plan', 'Status', 'Activations', 'Expires', 'Last check']}
    >
      {licenses.map((license) => (
        <tr key={license.license_key}>
          <td>
            <button
              type="button"
              class="link mono nowrap"
              aria-label={`Open license ${license.license_key}`}
              onClick={() => onOpen(license.license_key)}
            >
              {license.license_key}
            </button>
          </td>
          <td>{license.product ?? productTitle(license.product_id)}</td>
          <td>{license.plan ?? planName(license.plan_id)}</td>
          <td>
            <StatusBadge status={license.status} />
          </td>
          <td>{usage(license)}</td>
          <td>
            <Time value={license.expires_at} empty="Does not expire" />
          </td>
          <td>
            <Time value={license.last_check_at} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** Issue a license (it copies the plan's limit and type); the new license opens. */
function IssueLicense({ onIssued }: { onIssued: (key: string) => void }) {
  const api = useApi();
  const can = useCan();
  const { products, plans } = useDirectory();
  const [productId, setProductId] = useState<number | null>(null);
  const [planId, setPlanId] = useState<number | null>(null);
  const [expires, setExpires] = useState('');
  const [key, setKey] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const license = await api.call<LicenseDetail>('POST', '/licenses', {
        product_id: productId,
        plan_id: planId,
        expires_at: localInputToIso(expires),
        ...(key.trim() === '' ? {} : { license_key: key.trim() }),
      });
      onIssued(license.license_key);
      return null;
    });
  };
  if (!can('createLicense')) return null;
  return (
    <details class="panel">
      <summary>Issue a license</summary>
      {products.length === 0 || plans.length === 0 ? (
        <Empty>Create a product and a plan first (Products and plans).</Empty>
      ) : (
        <form method="post" onSubmit={submit} class="row">
          <Field label="Product">
            <ProductSelect required none="Choose…" value={productId} onChange={setProductId} />
          </Field>
          <Field label="Plan">
            <PlanSelect required none="Choose…" value={planId} onChange={setPlanId} />
          </Field>
          <Field label="Expires" hint="Your time zone; empty: never.">
            <Input type="datetime-local" value={expires} onValue={setExpires} />
          </Field>
          <Field label="License key" hint="Letters, digits, - and _; empty: one is generated.">
            <Input
              autocomplete="off"
              spellcheck={false}
              maxLength={255}
              value={key}
              onValue={setKey}
            />
          </Field>
          <div class="field submit">
            <button type="submit" disabled={action.busy || productId === null || planId === null}>
              Issue
            </button>
          </div>
        </form>
      )}
      <Outcome action={action} />
    </details>
  );
}

export function LicensesPage({
  search,
  onSearch,
  onOpen,
}: {
  search: LicenseSearch;
  onSearch: (search: LicenseSearch) => void;
  onOpen: (key: string) => void;
}) {
  const api = useApi();
  const result = useLoad(
    () =>
      api.get<LicensePage>('/licenses', {
        q: search.q,
        product_id: search.product_id,
        plan_id: search.plan_id,
        status: search.status,
        page: search.page,
        per_page: PER_PAGE,
      }),
    [api, search],
  );
  const filtered =
    search.q !== '' || search.product_id !== null || search.plan_id !== null || search.status;
  return (
    <section aria-labelledby="licenses-heading">
      <h1 id="licenses-heading">Licenses</h1>
      <SearchForm search={search} onSearch={onSearch} />
      <IssueLicense onIssued={onOpen} />
      <LoadView loaded={result} what="licenses">
        {(page) =>
          page.licenses.length === 0 ? (
            <Empty>
              {filtered ? 'No license matches this search.' : 'There are no licenses yet.'}
            </Empty>
          ) : (
            <>
              <LicenseTable licenses={page.licenses} onOpen={onOpen} />
              <Pager
                page={page.page}
                perPage={page.per_page}
                total={page.total}
                noun="licenses"
                onPage={(n) => onSearch({ ...search, page: n })}
              />
            </>
          )
        }
      </LoadView>
    </section>
  );
}
