import type {
  DownloadLogFilters,
  DownloadLogOrder,
  DownloadLogRecord,
  DownloadLogStore,
} from '../../services/download/download-log/stores.js';
import { deepCopy } from '../../bench/support/deep-copy.js';
import { batchAfter, sortedBy, type Place } from '../../bench/support/memory-lists.js';

/**
 * The download log in memory, with the semantics of the MongoDB one
 * (test/integration/download-stores.test.ts runs the same contract against both): ids of 24
 * hexadecimal digits that grow with each entry, like ObjectIds made by one process; listed in an
 * order, then by id, as services/download/download-log/mongo-stores.ts `downloadLogOrders` says;
 * copies in and out.
 */
export function memoryDownloadLog(): DownloadLogStore {
  const entries = new Map<string, DownloadLogRecord>();
  let last = 0;
  const nextId = () => (++last).toString(16).padStart(24, '0');
  const copy = deepCopy;

  /** Where an entry stands in an order of the log. */
  const placeOf = (entry: DownloadLogRecord, order: DownloadLogOrder): Place => ({
    value: order.field === 'at' ? entry.at : entry.license_key,
    id: entry.id,
  });

  /** The entries matching the filters, in `order`. */
  function listed(filters: DownloadLogFilters, order: DownloadLogOrder): DownloadLogRecord[] {
    const { product_id, refused, from, to } = filters;
    const matching = [...entries.values()]
      .filter((e) => product_id === null || e.product_id === product_id)
      .filter((e) => refused === null || e.outcome === (refused ? 'refused' : 'served'))
      .filter((e) => from === null || e.at.getTime() >= from.getTime())
      .filter((e) => to === null || e.at.getTime() < to.getTime());
    return sortedBy(matching, (entry) => placeOf(entry, order), order.descending);
  }

  function record(entry: Omit<DownloadLogRecord, 'id'>): string {
    const id = nextId();
    entries.set(id, { ...copy(entry), id });
    return id;
  }

  return {
    async recordServed(entry) {
      return record({ ...entry, outcome: 'served', reason: null, license_status: null });
    },

    async recordRefusals(refusals) {
      return refusals.map((entry) =>
        record({ ...entry, outcome: 'refused', file_id: null, version: null }),
      );
    },

    async markServedAsRefused({ id, reason }) {
      // ObjectIds are read in either letter case.
      const entry = /^[0-9a-f]{24}$/i.test(id) ? entries.get(id.toLowerCase()) : undefined;
      if (entry?.outcome !== 'served') return null;
      const refused = { ...entry, outcome: 'refused' as const, reason };
      entries.set(entry.id, refused);
      return copy(refused);
    },

    async list({ order, page, per_page, ...filters }) {
      const matching = listed(filters, order);
      const start = (page - 1) * per_page;
      return { entries: matching.slice(start, start + per_page).map(copy), total: matching.length };
    },

    async scan({ order, after, limit, ...filters }) {
      const { records, next } = batchAfter({
        sorted: listed(filters, order),
        place: (entry) => placeOf(entry, order),
        after,
        dates: order.field === 'at',
        descending: order.descending,
        limit,
      });
      return { entries: records.map(copy), next };
    },
  };
}
