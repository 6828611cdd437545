import { useEffect, useRef, useState } from 'preact/hooks';
import type {
  BulkLicenseChangeResult,
  LicenseStatus,
  LicenseSummary,
} from '../../../../../libs/contracts/index.js';
import {
  DEFAULT_LICENSE_SORT,
  MAX_EXTEND_DAYS,
  type LicenseSortField,
  type SortOf,
} from '../../../../../libs/contracts/bounds.js';
import { csvText, exportFilename } from '../../../../../libs/http/csv.js';
import { Empty, Field, Table, type ColumnHead } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { STATUS_WORDS } from '../../../../../libs/web/ui/words.js';
import { licenseColumns } from '../../../csv-columns.js';
import { useApi, type Body } from '../../shared/api/admin-api.js';
import { Pager } from '../../shared/components/controls.js';
import { CustomerFields } from '../license-detail/customer.js';
import { useDirectory } from '../../shared/hooks/directory.js';
import {
  Input,
  PlanSelect,
  ProductSelect,
  WordSelect,
  localInputToIso,
} from '../../shared/components/fields.js';
import { useAction, useLoad } from '../../shared/hooks/hooks.js';
import { DEFAULT_PAGE_SIZE, bulkOutcomeWords, type PageSize } from '../../shared/lib/list-state.js';
import {
  LICENSE_SORT_HEADINGS,
  LIST_WORDS,
  SELECTION_WORDS,
} from '../../shared/words/list-words.js';
import {
  ExportButton,
  PageSizeSelect,
  saveFile,
  sortableColumn,
} from '../../shared/components/lists.js';
import { LoadView, Outcome } from '../../shared/components/notices.js';
import { StatusBadge, usage } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';

/** The license search (spec 2.2): kept by the console, so it is still there after a detail. */
export interface LicenseSearch {
  q: string;
  product_id: number | null;
  plan_id: number | null;
  status: LicenseStatus | null;
  sort: SortOf<LicenseSortField>;
  per_page: PageSize;
  page: number;
}

export const NO_SEARCH: LicenseSearch = {
  q: '',
  product_id: null,
  plan_id: null,
  status: null,
  sort: DEFAULT_LICENSE_SORT,
  per_page: DEFAULT_PAGE_SIZE,
  page: 1,
};

/** The dates of the list, which a first press of their heading orders newest first. */
const DATE_FIELDS: readonly LicenseSortField[] = ['created_at', 'expires_at'];

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

function LicenseTable({
  licenses,
  sort,
  onSort,
  selected,
  onSelect,
  onOpen,
}: {
  licenses: readonly LicenseSummary[];
  sort: SortOf<LicenseSortField>;
  onSort: (sort: SortOf<LicenseSortField>) => void;
  selected: ReadonlySet<string>;
  onSelect: (keys: ReadonlySet<string>) => void;
  onOpen: (key: string) => void;
}) {
  const { productTitle, planName } = useDirectory();
  const sortable = (field: LicenseSortField) =>
    sortableColumn({
      field,
      heading: LICENSE_SORT_HEADINGS[field],
      sort,
      onSort,
      newestFirst: DATE_FIELDS,
    });
  const onPage = licenses.filter((license) => selected.has(license.license_key)).length;
  const all = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (all.current) all.current.indeterminate = onPage > 0 && onPage < licenses.length;
  }, [onPage, licenses.length]);
  const toggle = (key: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(key);
    else next.delete(key);
    onSelect(next);
  };
  const selectAll: ColumnHead = {
    label: SELECTION_WORDS.selectAll,
    cellLabel: SELECTION_WORDS.selectOne,
    head: (
      <input
        ref={all}
        type="checkbox"
        aria-label={SELECTION_WORDS.selectAll}
        checked={licenses.length > 0 && onPage === licenses.length}
        onChange={(event) =>
          onSelect(new Set(event.currentTarget.checked ? licenses.map((l) => l.license_key) : []))
        }
      />
    ),
  };
  return (
    <Table
      columns={[
        selectAll,
        sortable('license_key'),
        sortable('customer_email'),
        'Product',
        'Plan',
        'Status',
        'Activations',
        sortable('expires_at'),
        sortable('created_at'),
        'Last check',
      ]}
    >
      {licenses.map((license) => (
        <tr
          key={license.license_key}
          class={selected.has(license.license_key) ? 'selected' : undefined}
        >
          <td>
            <input
              type="checkbox"
              aria-label={SELECTION_WORDS.select(license.license_key)}
              checked={selected.has(license.license_key)}
              onChange={(event) => toggle(license.license_key, event.currentTarget.checked)}
            />
          </td>
          <td>
            <button
              type="button"
              class="link mono key"
              aria-label={`Open license ${license.license_key}`}
              onClick={() => onOpen(license.license_key)}
            >
              {license.license_key}
            </button>
          </td>
          <td class="customer">
            {license.customer === null ? (
              <span class="muted">none</span>
            ) : (
              <>
                <span class="mono">{license.customer.email}</span>
                {license.customer.name !== null && (
                  <span class="muted block">{license.customer.name}</span>
                )}
              </>
            )}
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
            <Time value={license.created_at} />
          </td>
          <td>
            <Time value={license.last_check_at} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/**
 * What can be done to the licenses selected on the page, each through the API's bulk change
 * (the same rules and events as a change of one): a status, an expiry moved by days or set, and
 * an export of them as CSV. Says how many changed and why each refused one was refused.
 */
function SelectionBar({
  licenses,
  onChanged,
  onClear,
}: {
  licenses: readonly LicenseSummary[];
  onChanged: () => void;
  onClear: () => void;
}) {
  const api = useApi();
  const action = useAction();
  const [status, setStatus] = useState<LicenseStatus>('suspended');
  const [days, setDays] = useState('30');
  const [expires, setExpires] = useState('');
  const [refused, setRefused] = useState<BulkLicenseChangeResult['results']>([]);
  const keys = licenses.map((license) => license.license_key);
  const change = (body: Body<'changeLicenses'>) =>
    action.run(async () => {
      setRefused([]);
      const result = await api.call('changeLicenses', { body });
      setRefused(result.results.filter((outcome) => !outcome.ok));
      onChanged();
      return bulkOutcomeWords(result);
    });
  const daysValid = /^\d+$/.test(days) && Number(days) >= 1 && Number(days) <= MAX_EXTEND_DAYS;
  return (
    <section class="panel selection" aria-label={SELECTION_WORDS.region}>
      <div class="title-row">
        <p role="status" class="count">
          {SELECTION_WORDS.selected(keys.length)}
        </p>
        <div class="row">
          <button
            type="button"
            class="secondary"
            onClick={() =>
              saveFile(
                new Blob([csvText(licenseColumns, licenses)], { type: 'text/csv;charset=utf-8' }),
                exportFilename('licenses-selected', new Date()),
              )
            }
          >
            {SELECTION_WORDS.exportSelected}
          </button>
          <button type="button" class="secondary" onClick={onClear}>
            {SELECTION_WORDS.clear}
          </button>
        </div>
      </div>
      <div class="forms">
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void change({ action: 'set_status', status, license_keys: keys });
          }}
        >
          <Field label={SELECTION_WORDS.status}>
            <WordSelect name="status" words={STATUS_WORDS} value={status} onChange={setStatus} />
          </Field>
          <button type="submit" disabled={action.busy}>
            {SELECTION_WORDS.changeStatus}
          </button>
        </form>
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void change({ action: 'extend_expiry', days: Number(days), license_keys: keys });
          }}
        >
          <Field label={SELECTION_WORDS.days} hint={SELECTION_WORDS.daysHint}>
            <Input
              type="number"
              name="days"
              min={1}
              max={MAX_EXTEND_DAYS}
              step={1}
              required
              value={days}
              onValue={setDays}
            />
          </Field>
          <button type="submit" disabled={action.busy || !daysValid}>
            {SELECTION_WORDS.extend}
          </button>
        </form>
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void change({
              action: 'set_expiry',
              expires_at: localInputToIso(expires),
              license_keys: keys,
            });
          }}
        >
          <Field label={SELECTION_WORDS.expiry} hint={SELECTION_WORDS.expiryHint}>
            <Input type="datetime-local" name="expires_at" value={expires} onValue={setExpires} />
          </Field>
          <button type="submit" disabled={action.busy}>
            {SELECTION_WORDS.setExpiry}
          </button>
        </form>
      </div>
      <Outcome action={action} />
      {refused.length > 0 && (
        <ul class="refused-keys">
          {refused.map(
            (outcome) =>
              !outcome.ok && (
                <li key={outcome.license_key}>
                  <span class="mono">{outcome.license_key}</span>: {outcome.error.message}{' '}
                  <span class="code">({outcome.error.code})</span>
                </li>
              ),
          )}
        </ul>
      )}
    </section>
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
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    // Issue is offered once both are chosen.
    if (productId === null || planId === null) return;
    await action.run(async () => {
      const license = await api.call('createLicense', {
        body: {
          product_id: productId,
          plan_id: planId,
          expires_at: localInputToIso(expires),
          ...(key.trim() === '' ? {} : { license_key: key.trim() }),
          ...(email.trim() === ''
            ? {}
            : { customer: { email, name: name.trim() === '' ? null : name } }),
        },
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
          <CustomerFields email={email} onEmail={setEmail} name={name} onName={setName} />
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
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const query = {
    q: search.q,
    product_id: search.product_id,
    plan_id: search.plan_id,
    status: search.status,
    sort: search.sort,
  };
  const result = useLoad(
    () =>
      api.call('searchLicenses', {
        query: { ...query, page: search.page, per_page: search.per_page },
      }),
    [api, search],
  );
  // A selection is of the page shown: another page, order or search starts without one.
  useEffect(() => setSelected(new Set()), [search]);
  const filtered =
    search.q !== '' || search.product_id !== null || search.plan_id !== null || search.status;
  const shown = result.data?.licenses ?? [];
  const chosen = shown.filter((license) => selected.has(license.license_key));
  return (
    <section aria-labelledby="licenses-heading">
      <h1 id="licenses-heading">Licenses</h1>
      <SearchForm search={search} onSearch={onSearch} />
      <IssueLicense onIssued={onOpen} />
      <div class="row list-tools">
        <PageSizeSelect
          value={search.per_page}
          onChange={(per_page) => onSearch({ ...search, per_page, page: 1 })}
        />
        <ExportButton file={() => api.file('exportLicenses', { query })} />
      </div>
      {chosen.length > 0 && (
        <SelectionBar
          licenses={chosen}
          onChanged={result.reload}
          onClear={() => setSelected(new Set())}
        />
      )}
      <LoadView loaded={result} what="licenses">
        {(page) =>
          page.licenses.length === 0 ? (
            <Empty>
              {filtered ? 'No license matches this search.' : 'There are no licenses yet.'}
            </Empty>
          ) : (
            <>
              <LicenseTable
                licenses={page.licenses}
                sort={search.sort}
                onSort={(sort) => onSearch({ ...search, sort, page: 1 })}
                selected={selected}
                onSelect={setSelected}
                onOpen={onOpen}
              />
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
