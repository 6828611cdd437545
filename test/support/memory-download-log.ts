import type { DownloadLogRecord, DownloadLogStore } from '../../services/download/stores.js';
import { deepCopy } from './deep-copy.js';

/**
 * The download log in memory, with the semantics of the MongoDB one
 * (test/integration/download-stores.test.ts runs the same contract against both): ids of 24
 * hexadecimal digits that grow with each entry, like ObjectIds made by one process; newest first
 * by time, then id; copies in and out.
 */
export function memoryDownloadLog(): DownloadLogStore {
  const entries = new Map<string, DownloadLogRecord>();
  let last = 0;
  const nextId = () => (++last).toString(16).padStart(24, '0');
  const copy = deepCopy;

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

    async list({ product_id, refused, page, per_page }) {
      const matching = [...entries.values()]
        .filter((e) => product_id === null || e.product_id === product_id)
        .filter((e) => refused === null || e.outcome === (refused ? 'refused' : 'served'))
        .sort(
          (a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
        );
      const start = (page - 1) * per_page;
      return { entries: matching.slice(start, start + per_page).map(copy), total: matching.length };
    },
  };
}
