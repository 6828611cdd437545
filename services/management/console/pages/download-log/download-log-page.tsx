import { useState } from 'preact/hooks';
import type { DownloadLogEntry } from '../../../../../libs/contracts/index.js';
import {
  DEFAULT_DOWNLOAD_LOG_SORT,
  type DownloadLogSortField,
  type SortOf,
} from '../../../../../libs/contracts/bounds.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Pager, ReloadButton } from '../../shared/components/controls.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { Input, ProductSelect } from '../../shared/components/fields.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { refusalMeaning } from '../../shared/words/license-words.js';
import { DEFAULT_PAGE_SIZE, dayRange, type PageSize } from '../../shared/lib/list-state.js';
import { LIST_WORDS, LOG_SORT_HEADINGS } from '../../shared/words/list-words.js';
import { ExportButton, PageSizeSelect, sortableColumn } from '../../shared/components/lists.js';
import { LoadView } from '../../shared/components/notices.js';

/** What the log shows: refused downloads or all, a product, days (as typed), an order. */
type Filter = {
  refused: boolean;
  productId: number | null;
  from: string;
  to: string;
  sort: SortOf<DownloadLogSortField>;
  perPage: PageSize;
  page: number;
};

const NO_FILTER: Filter = {
  refused: false,
  productId: null,
  from: '',
  to: '',
  sort: DEFAULT_DOWNLOAD_LOG_SORT,
  perPage: DEFAULT_PAGE_SIZE,
  page: 1,
};

function Entries({
  entries,
  refusedOnly,
  sort,
  onSort,
  onOpenLicense,
}: {
  entries: readonly DownloadLogEntry[];
  refusedOnly: boolean;
  sort: SortOf<DownloadLogSortField>;
  onSort: (sort: SortOf<DownloadLogSortField>) => void;
  onOpenLicense: (key: string) => void;
}) {
  const { productTitle } = useProductsAndPlans();
  const sortable = (field: DownloadLogSortField) =>
    sortableColumn({ field, heading: LOG_SORT_HEADINGS[field], sort, onSort, newestFirst: ['at'] });
  return (
    <Table
      columns={[
        sortable('at'),
        'Product',
        ...(refusedOnly ? [] : ['Outcome']),
        'Reason',
        sortable('license_key'),
        'Identifier',
        'IP',
        'Version',
      ]}
    >
      {entries.map((entry) => (
        <tr key={entry.id} class={entry.outcome === 'refused' ? 'refused' : undefined}>
          <td class="nowrap">
            <Time value={entry.at} />
          </td>
          <td>
            {entry.product_id === null ? (
              <span class="muted">no valid product id</span>
            ) : (
              productTitle(entry.product_id)
            )}
          </td>
          {!refusedOnly && <td>{entry.outcome === 'served' ? 'Served' : 'Refused'}</td>}
          <td>
            {entry.reason === null ? (
              <span class="muted">none</span>
            ) : (
              <span class="reason">
                <span class="code">{entry.reason}</span>
                <span>{refusalMeaning(entry)}</span>
              </span>
            )}
          </td>
          <td>
            {entry.license_key === null ? (
              <span class="muted">none</span>
            ) : (
              <button
                type="button"
                class="link mono nowrap"
                aria-label={`Open license ${entry.license_key}`}
                onClick={() => onOpenLicense(entry.license_key!)}
              >
                {entry.license_key}
              </button>
            )}
          </td>
          <td class="mono long">{entry.identifier ?? <span class="muted">none</span>}</td>
          <td class="mono nowrap">{entry.ip}</td>
          <td>{entry.version ?? <span class="muted">none</span>}</td>
        </tr>
      ))}
    </Table>
  );
}

/** The download log (spec 4.5), with its Refused Downloads view. */
export function DownloadLogPage({ onOpenLicense }: { onOpenLicense: (key: string) => void }) {
  const api = useApi();
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const change = (changes: Partial<Filter>) => setFilter({ ...filter, ...changes, page: 1 });
  const range = dayRange(filter.from, filter.to);
  const query = {
    refused: filter.refused ? true : null,
    product_id: filter.productId,
    from: range.from,
    to: range.to,
    sort: filter.sort,
  };
  // Days are compared as typed (YYYY-MM-DD): a range that ends before it starts is said here.
  const backwards = filter.from !== '' && filter.to !== '' && filter.to < filter.from;
  const log = useLoad(
    () =>
      backwards
        ? Promise.reject(new Error(LIST_WORDS.logBackwards))
        : api.call('listDownloadLog', {
            query: { ...query, page: filter.page, per_page: filter.perPage },
          }),
    [api, filter],
  );
  return (
    <section aria-labelledby="log-heading">
      <div class="title-row">
        <h1 id="log-heading">{filter.refused ? 'Refused downloads' : 'Download log'}</h1>
        <ReloadButton loaded={log} />
      </div>
      <div class="row">
        <div class="tabs" role="group" aria-label="Which downloads">
          <button
            type="button"
            class={filter.refused ? 'secondary' : undefined}
            aria-pressed={!filter.refused}
            onClick={() => change({ refused: false })}
          >
            All downloads
          </button>
          <button
            type="button"
            class={filter.refused ? undefined : 'secondary'}
            aria-pressed={filter.refused}
            onClick={() => change({ refused: true })}
          >
            Refused downloads
          </button>
        </div>
        <Field label="Product">
          <ProductSelect
            name="product_id"
            none="Every product"
            value={filter.productId}
            onChange={(productId) => change({ productId })}
          />
        </Field>
        <fieldset class="range">
          <legend>{LIST_WORDS.logRange}</legend>
          <Field label={LIST_WORDS.logFrom}>
            <Input
              type="date"
              name="from"
              value={filter.from}
              onValue={(from) => change({ from })}
            />
          </Field>
          <Field label={LIST_WORDS.logTo}>
            <Input type="date" name="to" value={filter.to} onValue={(to) => change({ to })} />
          </Field>
          <p class="hint">{LIST_WORDS.logRangeHint}</p>
        </fieldset>
      </div>
      <div class="row list-tools">
        <PageSizeSelect value={filter.perPage} onChange={(perPage) => change({ perPage })} />
        <ExportButton file={() => api.file('exportDownloadLog', { query })} disabled={backwards} />
      </div>
      <LoadView loaded={log} what="the download log">
        {(page) =>
          page.entries.length === 0 ? (
            <Empty>
              {filter.from !== '' || filter.to !== '' || filter.productId !== null
                ? 'No download matches these filters.'
                : filter.refused
                  ? 'No download has been refused.'
                  : 'No downloads yet.'}
            </Empty>
          ) : (
            <>
              <Entries
                entries={page.entries}
                refusedOnly={filter.refused}
                sort={filter.sort}
                onSort={(sort) => change({ sort })}
                onOpenLicense={onOpenLicense}
              />
              <Pager
                page={page.page}
                perPage={page.per_page}
                total={page.total}
                noun={filter.refused ? 'refused downloads' : 'downloads'}
                onPage={(n) => setFilter({ ...filter, page: n })}
              />
            </>
          )
        }
      </LoadView>
    </section>
  );
}
