import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { OverviewDay } from '../../../../../libs/contracts/index.js';
import { COUNTER_WORDS, chartSummary, type DailyCounter } from './overview-words.js';

/**
 * The colour of each counter's line: those of the console (libs/web/ui/styles.css); those that
 * take away or refuse are dashed, so a line drawn over another still shows.
 */
const COLOURS: Record<DailyCounter, string> = {
  activations: '#0b5cad',
  deactivations: '#5a6370',
  rejected_activations: '#b42318',
  validations: '#0b5cad',
  downloads_served: '#067647',
  downloads_refused: '#b42318',
};

const DASHED: ReadonlySet<DailyCounter> = new Set([
  'deactivations',
  'rejected_activations',
  'downloads_refused',
]);

const HEIGHT = 220;

/** Whole numbers only on the count axis. */
const COUNT_STEPS = [1, 2, 5]
  .flatMap((step) => Array.from({ length: 10 }, (_, power) => step * 10 ** power))
  .sort((a, b) => a - b);

/**
 * One chart of daily counts, drawn by uPlot on a canvas: a line per counter over the UTC days,
 * its axis dated in UTC. For screen readers it is one image named by the totals it shows; the
 * page's tables hold every number.
 */
export function DailyChart({
  title,
  counters,
  series,
}: {
  title: string;
  counters: readonly DailyCounter[];
  series: readonly OverviewDay[];
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const days = series.map(({ day }) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [days, ...counters.map((c) => series.map((day) => day[c]))];
    const plot = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height: HEIGHT,
        // The days are UTC days: the axis says their dates in UTC, wherever the browser is.
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        scales: { y: { range: (_plot, _min, max) => [0, Math.max(max, 1)] } },
        axes: [{}, { incrs: COUNT_STEPS }],
        series: [
          { label: 'Day (UTC)' },
          ...counters.map((counter) => ({
            label: COUNTER_WORDS[counter],
            stroke: COLOURS[counter],
            width: 2,
            ...(DASHED.has(counter) ? { dash: [6, 4] } : {}),
            points: { show: true, size: 5 },
          })),
        ],
        legend: { live: false },
      },
      data,
      element,
    );
    const resized = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(element.clientWidth, 200), height: HEIGHT }),
    );
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [counters, series]);
  return (
    <div class="chart" ref={box} role="img" aria-label={chartSummary(title, counters, series)} />
  );
}
