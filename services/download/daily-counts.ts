import type { DailyCounts } from '../../libs/daily-counts/index.js';
import type { DownloadEvents } from './events.js';

/** What the download service counts per UTC day and product (the admin overview). */
export const downloadMetrics = ['downloads_served', 'downloads_refused'] as const;
export type DownloadMetric = (typeof downloadMetrics)[number];

export type DownloadCounts = DailyCounts<DownloadMetric>;

/**
 * The download log's entries, counted as they are written, under the product the request named
 * (none for a refused request whose path named no valid product id), so the counts of a day
 * equal its entries in the download log:
 * - a served entry (`download.served`) is a download served, on its day;
 * - a refused entry (`download.refused`) a download refused, on its day;
 * - a served entry that became a refusal (its bytes never reached the client) is taken back
 *   from the downloads served of its day and counted refused there, as the log then shows it.
 */
export function countedDownloadEvents(
  events: DownloadEvents,
  counts: DownloadCounts,
): DownloadEvents {
  return {
    served: (event) => {
      events.served(event);
      counts.count('downloads_served', event.request.product_id, event.at);
    },
    refused: (event) => {
      events.refused(event);
      const { product_id } = event.request;
      if (event.servedAt !== null) counts.count('downloads_served', product_id, event.servedAt, -1);
      counts.count('downloads_refused', product_id, event.servedAt ?? event.at);
    },
  };
}
