import { useState } from 'preact/hooks';
import type { Trial } from '../../../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Pager, ReloadButton } from '../../shared/components/controls.js';
import { ProductSelect } from '../../shared/components/fields.js';
import { PageSizeSelect } from '../../shared/components/lists.js';
import { LoadView } from '../../shared/components/notices.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { DEFAULT_PAGE_SIZE, type PageSize } from '../../shared/lib/list-state.js';

/** Which trials are shown: every one, those converted, or those not (yet). */
type Converted = 'all' | 'converted' | 'open';

type Filter = { productId: number | null; converted: Converted; perPage: PageSize; page: number };

const NO_FILTER: Filter = {
  productId: null,
  converted: 'all',
  perPage: DEFAULT_PAGE_SIZE,
  page: 1,
};

const CONVERTED_WORDS: Record<Converted, string> = {
  all: 'Every trial',
  converted: 'Converted',
  open: 'Not converted',
};

function Trials({
  trials,
  onOpenLicense,
}: {
  trials: readonly Trial[];
  onOpenLicense: (key: string) => void;
}) {
  const { productTitle } = useProductsAndPlans();
  const licenseButton = (key: string) => (
    <button
      type="button"
      class="link mono nowrap"
      aria-label={`Open license ${key}`}
      onClick={() => onOpenLicense(key)}
    >
      {key}
    </button>
  );
  return (
    <Table columns={['Product', 'Identifier', 'Started', 'Expires', 'Converted', 'Trial license']}>
      {trials.map((trial) => (
        <tr key={trial.license_key}>
          <td>{productTitle(trial.product_id)}</td>
          <td class="mono long">{trial.identifier}</td>
          <td class="nowrap">
            <Time value={trial.started_at} />
          </td>
          <td class="nowrap">
            <Time value={trial.expires_at} />
          </td>
          <td class="nowrap">
            {trial.converted_at === null || trial.converted_license_key === null ? (
              <span class="muted">not converted</span>
            ) : (
              <>
                <Time value={trial.converted_at} /> by {licenseButton(trial.converted_license_key)}
              </>
            )}
          </td>
          <td>{licenseButton(trial.license_key)}</td>
        </tr>
      ))}
    </Table>
  );
}

/** The trials (docs/api-decisions.md, "Trials"): one per identifier and product, ever. */
export function TrialsPage({ onOpenLicense }: { onOpenLicense: (key: string) => void }) {
  const api = useApi();
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const change = (changes: Partial<Filter>) => setFilter({ ...filter, ...changes, page: 1 });
  const trials = useLoad(
    () =>
      api.call('listTrials', {
        query: {
          product_id: filter.productId,
          converted: filter.converted === 'all' ? null : filter.converted === 'converted',
          page: filter.page,
          per_page: filter.perPage,
        },
      }),
    [api, filter],
  );
  return (
    <section aria-labelledby="trials-heading">
      <div class="title-row">
        <h1 id="trials-heading">Trials</h1>
        <ReloadButton loaded={trials} />
      </div>
      <div class="row">
        <div class="tabs" role="group" aria-label="Which trials">
          {(['all', 'converted', 'open'] as const).map((converted) => (
            <button
              key={converted}
              type="button"
              class={filter.converted === converted ? undefined : 'secondary'}
              aria-pressed={filter.converted === converted}
              onClick={() => change({ converted })}
            >
              {CONVERTED_WORDS[converted]}
            </button>
          ))}
        </div>
        <Field label="Product">
          <ProductSelect
            name="product_id"
            none="Every product"
            value={filter.productId}
            onChange={(productId) => change({ productId })}
          />
        </Field>
      </div>
      <div class="row list-tools">
        <PageSizeSelect value={filter.perPage} onChange={(perPage) => change({ perPage })} />
      </div>
      <LoadView loaded={trials} what="the trials">
        {(page) =>
          page.trials.length === 0 ? (
            <Empty>
              {filter.productId !== null || filter.converted !== 'all'
                ? 'No trial matches these filters.'
                : 'No trials yet. A product offers one once its trial plan has trial days.'}
            </Empty>
          ) : (
            <>
              <Trials trials={page.trials} onOpenLicense={onOpenLicense} />
              <Pager
                page={page.page}
                perPage={page.per_page}
                total={page.total}
                noun="trials"
                onPage={(n) => setFilter({ ...filter, page: n })}
              />
            </>
          )
        }
      </LoadView>
    </section>
  );
}
