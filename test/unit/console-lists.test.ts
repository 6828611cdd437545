import { LicenseSort, MAX_BULK_LICENSES, licenseSortFields } from '../../libs/contracts/index.js';
import {
  PAGE_SIZES,
  bulkOutcomeWords,
  dayRange,
  metadataBody,
  metadataRows,
  nextSort,
  sortState,
} from '../../services/management/console/shared/lib/list-state.js';
import {
  LICENSE_SORT_HEADINGS,
  sortButtonLabel,
} from '../../services/management/console/shared/words/list-words.js';

/**
 * What the console's lists decide without the page
 * (services/management/console/shared/lib/list-state.ts): the order a heading gives, page sizes a
 * bulk change can take whole, the log's days as a range, the metadata form's rows.
 */

describe('ordering a list by its headings', () => {
  test('a heading of the order shows its direction; the others none', () => {
    expect(sortState('-expires_at', 'expires_at')).toBe('descending');
    expect(sortState('expires_at', 'expires_at')).toBe('ascending');
    expect(sortState('expires_at', 'created_at')).toBe('none');
  });

  test('pressed again, a heading turns its order around', () => {
    expect(nextSort('-expires_at', 'expires_at', ['expires_at'])).toBe('expires_at');
    expect(nextSort('expires_at', 'expires_at', ['expires_at'])).toBe('-expires_at');
  });

  test('another heading starts dates newest first, text from A', () => {
    expect(nextSort('license_key', 'created_at', ['created_at', 'expires_at'])).toBe('-created_at');
    expect(nextSort('-created_at', 'license_key', ['created_at', 'expires_at'])).toBe(
      'license_key',
    );
  });

  test('every heading gives an order the API takes, and says what pressing it does', () => {
    for (const field of licenseSortFields) {
      for (const from of LicenseSort.options) {
        expect(LicenseSort.safeParse(nextSort(from, field, ['created_at'])).success).toBe(true);
      }
      expect(sortButtonLabel(LICENSE_SORT_HEADINGS[field], 'none')).toMatch(/^Sort by /);
    }
    expect(sortButtonLabel('Expires', 'ascending')).toBe(
      'Expires, sorted ascending; sort descending',
    );
  });
});

test('every page size fits in one bulk change, so a whole page can be changed at once', () => {
  expect(Math.max(...PAGE_SIZES)).toBeLessThanOrEqual(MAX_BULK_LICENSES);
});

describe("the download log's days", () => {
  test('from the start of the first day to the start of the day after the last, in the local time zone', () => {
    const range = dayRange('2026-03-01', '2026-03-31');
    expect(range.from).toBe(new Date(2026, 2, 1).toISOString());
    expect(range.to).toBe(new Date(2026, 3, 1).toISOString());
  });

  test('an empty day leaves its end open; text that is no day too', () => {
    expect(dayRange('', '')).toEqual({ from: null, to: null });
    expect(dayRange('2026-03-01', '')).toEqual({
      from: new Date(2026, 2, 1).toISOString(),
      to: null,
    });
    expect(dayRange('March 1', '2026-13-45x')).toEqual({ from: null, to: null });
  });
});

describe('the metadata form', () => {
  test('rows in the order of the metadata; back again as sent, keys trimmed, empty rows dropped', () => {
    const rows = metadataRows({ order_id: 'A-1', crm: ' C 7 ' });
    expect(rows).toEqual([
      { key: 'order_id', value: 'A-1' },
      { key: 'crm', value: ' C 7 ' },
    ]);
    expect(
      metadataBody([...rows, { key: ' invoice ', value: 'I-9' }, { key: ' ', value: '' }]),
    ).toEqual({
      metadata: { order_id: 'A-1', crm: ' C 7 ', invoice: 'I-9' },
    });
  });

  test('a key given twice is said, not sent', () => {
    expect(
      metadataBody([
        { key: 'order_id', value: '1' },
        { key: 'order_id ', value: '2' },
      ]),
    ).toEqual({ problem: 'The key order_id is given twice.' });
  });

  test('any key is sent for the API to judge, even __proto__', () => {
    const body = metadataBody([{ key: '__proto__', value: 'x' }]);
    expect(JSON.stringify(body)).toBe('{"metadata":{"__proto__":"x"}}');
  });
});

test("a bulk change's outcome in words", () => {
  expect(bulkOutcomeWords({ results: [], succeeded: 3, failed: 0 })).toBe('3 licenses changed.');
  expect(bulkOutcomeWords({ results: [], succeeded: 1, failed: 2 })).toBe(
    '1 license changed; 2 refused:',
  );
});
