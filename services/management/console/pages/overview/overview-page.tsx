import { useState } from 'preact/hooks';
import { overviewPeriods } from '../../../../../libs/contracts/bounds.js';
import type { Overview, OverviewPeriod } from '../../../../../libs/contracts/index.js';
import { Field, Table } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ReloadButton } from '../../shared/components/controls.js';
import { ProductSelect } from '../../shared/components/fields.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { LoadView } from '../../shared/components/notices.js';
// The chart library's styles are small; its code comes with the page that draws (below).
import 'uplot/dist/uPlot.min.css';
import './overview.css';
import {
  CHARTS,
  COUNTER_WORDS,
  figureWords,
  longDay,
  utcNote,
  type DailyCounter,
} from './overview-words.js';

/** Every number of a chart, newest day first. */
function DailyTable({
  counters,
  overview,
}: {
  counters: readonly DailyCounter[];
  overview: Overview;
}) {
  return (
    <Table columns={['Day (UTC)', ...counters.map((counter) => COUNTER_WORDS[counter])]}>
      {[...overview.series].reverse().map((day) => (
        <tr key={day.day}>
          <th scope="row" class="nowrap">
            {longDay(day.day)}
          </th>
          {counters.map((counter) => (
            <td key={counter} class="number">
              {day[counter]}
            </td>
          ))}
        </tr>
      ))}
    </Table>
  );
}

/**
 * The first page after sign-in: what is in use now, today's refusals, and the last 30 or 90 UTC
 * days in charts (or tables: the same numbers, for the keyboard and screen readers), for every
 * product or one.
 */
export function OverviewPage() {
  const api = useApi();
  const [productId, setProductId] = useState<number | null>(null);
  const [days, setDays] = useState<OverviewPeriod>(30);
  const [tables, setTables] = useState(false);
  const overview = useLoad(
    () => api.call('overview', { query: { product_id: productId, days } }),
    [api, productId, days],
  );
  // The chart library (about half of the console's code) is fetched with this page only.
  const charts = useLoad(() => import('./daily-chart.js'), []);
  return (
    <section aria-labelledby="overview-heading">
      <div class="title-row">
        <h1 id="overview-heading">Overview</h1>
        <ReloadButton loaded={overview} />
      </div>
      <div class="row">
        <Field label="Product">
          <ProductSelect
            name="product_id"
            none="Every product"
            value={productId}
            onChange={setProductId}
          />
        </Field>
        <div class="tabs" role="group" aria-label="Days shown">
          {overviewPeriods.map((period) => (
            <button
              key={period}
              type="button"
              class={days === period ? undefined : 'secondary'}
              aria-pressed={days === period}
              onClick={() => setDays(period)}
            >
              Last {period} days
            </button>
          ))}
        </div>
        <div class="tabs">
          <button
            type="button"
            class={tables ? undefined : 'secondary'}
            aria-pressed={tables}
            onClick={() => setTables(!tables)}
          >
            Show as tables
          </button>
        </div>
      </div>
      <LoadView loaded={overview} what="the overview">
        {(data) => (
          <>
            <p class="muted">{utcNote(data.today.day)}</p>
            <dl class="figures">
              {figureWords(data).map(({ label, value, hint }) => (
                <div key={label} class="figure">
                  <dt>{label}</dt>
                  <dd>
                    <span class="value">{value.toLocaleString('en-US')}</span>
                    <span class="hint">{hint}</span>
                  </dd>
                </div>
              ))}
            </dl>
            {!tables && charts.error !== null && (
              <p class="error" role="alert">
                The charts could not be loaded: reload the page, or choose “Show as tables” for the
                same numbers.
              </p>
            )}
            {CHARTS.map(({ id, title, counters }) => (
              <section key={id} class="panel daily" aria-labelledby={`chart-${id}`}>
                <h2 id={`chart-${id}`}>
                  {title}, last {data.days} days
                </h2>
                {tables ? (
                  <DailyTable counters={counters} overview={data} />
                ) : charts.data ? (
                  <charts.data.DailyChart title={title} counters={counters} series={data.series} />
                ) : (
                  charts.loading && <div class="chart" aria-busy="true" />
                )}
              </section>
            ))}
          </>
        )}
      </LoadView>
    </section>
  );
}
