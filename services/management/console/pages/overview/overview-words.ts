/** The overview page's words: its figures, its charts and what each counts. */
import type { CurrentFigures, Overview, OverviewDay } from '../../../../../libs/contracts/index.js';

/** A counter of the daily series, as the page names it. */
export type DailyCounter = Exclude<keyof OverviewDay, 'day'>;

export const COUNTER_WORDS: Record<DailyCounter, string> = {
  activations: 'Activations',
  deactivations: 'Deactivations',
  rejected_activations: 'Rejected activations',
  validations: 'Validations',
  downloads_served: 'Downloads served',
  downloads_refused: 'Downloads refused',
};

/** Each chart and the counters it draws. */
export const CHARTS: readonly { id: string; title: string; counters: readonly DailyCounter[] }[] = [
  {
    id: 'activations',
    title: 'Activations',
    counters: ['activations', 'deactivations', 'rejected_activations'],
  },
  { id: 'validations', title: 'Validations', counters: ['validations'] },
  { id: 'downloads', title: 'Downloads', counters: ['downloads_served', 'downloads_refused'] },
];

/** The figures at the top of the page, in order, with what each counts. */
export function figureWords(
  overview: Pick<Overview, 'current' | 'today'>,
): { label: string; value: number; hint: string }[] {
  const { current, today } = overview;
  const now: Array<[keyof CurrentFigures, string, string]> = [
    ['active_licenses', 'Active licenses', 'Active and not past their expiry date.'],
    [
      'activations_in_use',
      'Activations in use',
      'Slots taken on active licenses (exempt activations take none).',
    ],
    [
      'expiring_in_30_days',
      'Expiring in 30 days',
      'Active licenses whose expiry date falls within the next 30 days.',
    ],
    ['trials_started', 'Trials', 'Trials issued, ever: one per identifier and product.'],
    [
      'trials_converted',
      'Trials converted',
      'Trials ended by a paid license activated on the same identifier.',
    ],
  ];
  return [
    ...now.map(([field, label, hint]) => ({ label, value: current[field], hint })),
    {
      label: 'Refused activations today',
      value: today.rejected_activations,
      hint: 'Refusals recorded as rejected attempts: a full or expired license.',
    },
    {
      label: 'Downloads served today',
      value: today.downloads_served,
      hint: 'Downloads whose file went to the client.',
    },
    {
      label: 'Refused downloads today',
      value: today.downloads_refused,
      hint: 'Every refusal of the download log, whatever its reason.',
    },
  ];
}

/** Days are UTC days: the page says so once, with today's. */
export function utcNote(today: string): string {
  return `Days are UTC days, from 00:00 to 24:00 UTC; today is ${longDay(today)} (UTC).`;
}

/** `2026-03-01` as `1 Mar 2026`, the same in every time zone. */
export function longDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** What a chart shows, for screen readers: the totals of its counters over the days. */
export function chartSummary(
  title: string,
  counters: readonly DailyCounter[],
  series: readonly OverviewDay[],
): string {
  const totals = counters.map((counter) => {
    const total = series.reduce((sum, day) => sum + day[counter], 0);
    return `${COUNTER_WORDS[counter].toLowerCase()} ${total}`;
  });
  return (
    `${title} per UTC day over the last ${series.length} days, in all: ${totals.join(', ')}. ` +
    'Show the tables for every day.'
  );
}
