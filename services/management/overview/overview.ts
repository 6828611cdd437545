import type {
  CurrentFigures,
  DownloadDayCounts,
  LicenseDayCounts,
  Overview,
  OverviewPeriod,
} from '../../../libs/contracts/index.js';
import { addDays, everyDay, utcDay } from '../../../libs/daily-counts/tally.js';

/** The UTC days an overview of `days` shows at `now`: `days` of them, the last one today. */
export function overviewRange(now: Date, days: OverviewPeriod): { from: string; to: string } {
  const to = utcDay(now);
  return { from: addDays(to, 1 - days), to };
}

const licenseCounts = [
  'activations',
  'deactivations',
  'validations',
  'rejected_activations',
] as const;
const downloadCounts = ['downloads_served', 'downloads_refused'] as const;

/**
 * The overview from the answers of the license and download services: every day of the range,
 * each counter 0 where a service counted nothing, and today's refusals from the last day.
 */
export function overviewView({
  productId,
  days,
  range,
  current,
  licenseDays,
  downloadDays,
}: {
  productId: number | null;
  days: OverviewPeriod;
  range: { from: string; to: string };
  current: CurrentFigures;
  licenseDays: readonly LicenseDayCounts[];
  downloadDays: readonly DownloadDayCounts[];
}): Overview {
  const downloads = everyDay(range, downloadCounts, downloadDays);
  const series = everyDay(range, licenseCounts, licenseDays).map((day, i) => ({
    ...day,
    ...downloads[i]!,
  }));
  const today = series[series.length - 1]!;
  return {
    product_id: productId,
    days,
    current,
    today: {
      day: today.day,
      rejected_activations: today.rejected_activations,
      downloads_served: today.downloads_served,
      downloads_refused: today.downloads_refused,
    },
    series,
  };
}
