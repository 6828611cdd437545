import { useState } from 'preact/hooks';
import type {
  DownloadLogEntry,
  DownloadLogPage as LogPage,
} from '../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../libs/web/ui/components.js';
import { Time } from '../../../libs/web/ui/time.js';
import { useApi } from './admin-api.js';
import { Pager, ReloadButton } from './controls.js';
import { useDirectory } from './directory.js';
import { ProductSelect } from './fields.js';
import { useLoad } from './hooks.js';
import { refusalMeaning } from './license-words.js';
import { LoadView } from './notices.js';

type Filter = { refused: boolean; productId: number | null; page: number };

const PER_PAGE = 50;

function Entries({
  entries,
  refusedOnly,
  onOpenLicense,
}: {
  entries: readonly DownloadLogEntry[];
  refusedOnly: boolean;
  onOpenLicense: (key: string) => void;
}) {
  const { productTitle } = useDirectory();
  return (
    <Table
      columns={[
        'When',
        'Product',
        ...(refusedOnly ? [] : ['Outcome']),
        'Reason',
        'License key',
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
  const [filter, setFilter] = useState<Filter>({ refused: false, productId: null, page: 1 });
  const log = useLoad(
    () =>
      api.get<LogPage>('/download-log', {
        refused: filter.refused ? true : null,
        product_id: filter.productId,
        page: filter.page,
        per_page: PER_PAGE,
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
            onClick={() => setFilter({ ...filter, refused: false, page: 1 })}
          >
            All downloads
          </button>
          <button
            type="button"
            class={filter.refused ? undefined : 'secondary'}
            aria-pressed={filter.refused}
            onClick={() => setFilter({ ...filter, refused: true, page: 1 })}
          >
            Refused downloads
          </button>
        </div>
        <Field label="Product">
          <ProductSelect
            name="product_id"
            none="Every product"
            value={filter.productId}
            onChange={(productId) => setFilter({ ...filter, productId, page: 1 })}
          />
        </Field>
      </div>
      <LoadView loaded={log} what="the download log">
        {(page) =>
          page.entries.length === 0 ? (
            <Empty>{filter.refused ? 'No download has been refused.' : 'No downloads yet.'}</Empty>
          ) : (
            <>
              <Entries
                entries={page.entries}
                refusedOnly={filter.refused}
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
