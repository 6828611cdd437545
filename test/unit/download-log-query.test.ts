import { DownloadLogSort, downloadLogSortFields, orderOf } from '../../libs/contracts/index.js';
import { afterCursor, sortOf } from '../../libs/database/index.js';
import { downloadLogIndexes } from '../../services/download/download-log/models.js';
import {
  downloadLogFilter,
  downloadLogOrders,
  storedLogOrder,
} from '../../services/download/download-log/mongo-stores.js';
import { filterBranches, type Filter } from '../support/filter-branches.js';

/**
 * The admin's views of the download log are indexed queries: every order is an index's own,
 * every filter (a product, an outcome, a date range) starts with the first field of an index,
 * and every batch of an export after its cursor starts with the order's field.
 */

const FROM = new Date('2026-05-01T00:00:00.000Z');
const TO = new Date('2026-06-01T00:00:00.000Z');

const firstFields = new Set(downloadLogIndexes.map((fields) => Object.keys(fields)[0]));

function indexedOrder(sort: Record<string, 1 | -1>): boolean {
  const reversed = Object.fromEntries(Object.entries(sort).map(([k, v]) => [k, -v]));
  return downloadLogIndexes.some(
    (fields) =>
      JSON.stringify(fields) === JSON.stringify(sort) ||
      JSON.stringify(fields) === JSON.stringify(reversed),
  );
}

describe('the orders of the download log: a whitelist, each served by an index', () => {
  test('the sort parameter takes each field, ascending or with - descending, and nothing else', () => {
    expect([...DownloadLogSort.options].sort()).toEqual(
      [...downloadLogSortFields, ...downloadLogSortFields.map((f) => `-${f}`)].sort(),
    );
    for (const refused of ['ip', 'AT', '-', 'at,license_key', 'outcome']) {
      expect(DownloadLogSort.safeParse(refused).success).toBe(false);
    }
    expect(Object.keys(downloadLogOrders).sort()).toEqual([...downloadLogSortFields].sort());
  });

  test.each(DownloadLogSort.options)('%s is the order of a declared index, ties by _id', (sort) => {
    const fields = sortOf(storedLogOrder(orderOf(sort)));
    expect(indexedOrder(fields)).toBe(true);
    expect(Object.keys(fields).at(-1)).toBe('_id');
  });

  test.each(DownloadLogSort.options)(
    'a batch after a cursor of %s starts every branch with the order’s field',
    (sort) => {
      const stored = storedLogOrder(orderOf(sort));
      for (const value of [null, 'k', FROM]) {
        for (const fields of filterBranches(afterCursor(stored, value, 'a'.repeat(24)) as Filter)) {
          expect(fields[0]).toBe(stored.path);
          expect(firstFields.has(fields[0])).toBe(true);
        }
      }
    },
  );
});

describe('the filters of the download log', () => {
  const combinations = [null, 7].flatMap((product_id) =>
    [null, true, false].flatMap((refused) =>
      [null, FROM].flatMap((from) => [null, TO].map((to) => ({ product_id, refused, from, to }))),
    ),
  );

  test.each(combinations.map((filters) => [JSON.stringify(filters), filters] as const))(
    '%s conditions only fields an index starts with, or none',
    (_, filters) => {
      const [fields] = filterBranches(downloadLogFilter(filters) as Filter);
      expect(fields!.length === 0 || fields!.some((field) => firstFields.has(field))).toBe(true);
    },
  );

  test('a date range takes entries from its start, included, to its end, excluded', () => {
    expect(downloadLogFilter({ product_id: null, refused: null, from: FROM, to: TO })).toEqual({
      at: { $gte: FROM, $lt: TO },
    });
    expect(downloadLogFilter({ product_id: 7, refused: true, from: null, to: TO })).toEqual({
      product_id: 7,
      outcome: 'refused',
      at: { $lt: TO },
    });
  });
});
