import {
  LicenseSort,
  licenseSortFields,
  licenseStatuses,
  orderOf,
} from '../../libs/contracts/index.js';
import { afterCursor, sortOf } from '../../libs/database/index.js';
import { licenseIndexes } from '../../services/license/licenses/license-indexes.js';
import {
  licenseListOrders,
  licenseSearchFilter,
  storedLicenseOrder,
} from '../../services/license/admin/mongo-license-read-model.js';
import { searchText } from '../../services/license/rules.js';
import type { LicenseFilters } from '../../services/license/admin/license-read-model.js';
import { filterBranches, type Filter } from '../support/filter-branches.js';

/**
 * Admin searches use indexed queries only: every branch of the MongoDB filter of every
 * combination of filters starts with the first field of an index the licenses collection
 * declares (services/license/licenses/license-indexes.ts `licenseIndexes`), every order of the list is an index's
 * own, and so is every batch of an export after its cursor.
 */

const NOW = new Date('2026-06-01T12:00:00.000Z');
const ID = '65f1c0ffee0000000000beef';

const firstFields = new Set(licenseIndexes.map((index) => Object.keys(index.fields)[0]));
const servedByIndex = (fields: string[]) => fields.some((field) => firstFields.has(field));

/** Whether an index holds exactly these fields in this order, one way or the other. */
function indexedOrder(sort: Record<string, 1 | -1>): boolean {
  const reversed = Object.fromEntries(Object.entries(sort).map(([k, v]) => [k, -v]));
  return licenseIndexes.some(
    (index) =>
      JSON.stringify(index.fields) === JSON.stringify(sort) ||
      JSON.stringify(index.fields) === JSON.stringify(reversed),
  );
}

const allSorts = LicenseSort.options;

const texts: Array<LicenseFilters['text']> = [
  null,
  { keyPrefix: 'abc', identifierKeys: [], customerEmail: null, exactTexts: [] },
  { keyPrefix: null, identifierKeys: ['shop.example'], customerEmail: null, exactTexts: [] },
  {
    keyPrefix: 'https://www.Shop',
    identifierKeys: ['shop.example', 'https://www.shop'],
    customerEmail: null,
    exactTexts: [],
  },
  { keyPrefix: null, identifierKeys: [], customerEmail: 'jane@example.com', exactTexts: [] },
  { keyPrefix: null, identifierKeys: [], customerEmail: null, exactTexts: ['A-1001'] },
  searchText('Jane@Example.com'),
];
const combinations: LicenseFilters[] = [null, 10].flatMap((productId) =>
  [null, 2].flatMap((planId) =>
    [null, ...licenseStatuses].flatMap((status) =>
      texts.map((text) => ({ productId, planId, status, text })),
    ),
  ),
);

describe('admin search: indexed queries only', () => {
  test.each(combinations.map((filters) => [JSON.stringify(filters), filters] as const))(
    'every branch of %s starts with the first field of a declared index',
    (_, filters) => {
      const filter = licenseSearchFilter(filters, NOW);
      expect(filter).not.toBeNull();
      for (const fields of filterBranches(filter as Filter)) {
        // A branch without conditions is every license, read in the order of an index.
        if (fields.length === 0) continue;
        expect({ fields, served: servedByIndex(fields) }).toEqual({ fields, served: true });
      }
    },
  );

  test('a key prefix is anchored and its characters are taken literally', () => {
    const filter = licenseSearchFilter(
      {
        productId: null,
        planId: null,
        status: null,
        text: { keyPrefix: 'a.b*(c)', identifierKeys: [], customerEmail: null, exactTexts: [] },
      },
      NOW,
    );
    const pattern = new RegExp(((filter as Filter).license_key as { $regex: string }).$regex);
    expect(pattern.test('a.b*(c)-rest')).toBe(true);
    expect(pattern.test('axbb(c)')).toBe(false);
    expect(pattern.test('x-a.b*(c)')).toBe(false);
  });

  test('a text with neither a key prefix, identifier keys, an address nor values can match nothing: no query', () => {
    expect(
      licenseSearchFilter(
        {
          productId: 10,
          planId: null,
          status: null,
          text: { keyPrefix: null, identifierKeys: [], customerEmail: null, exactTexts: [] },
        },
        NOW,
      ),
    ).toBeNull();
  });
});

describe('the search text: what one box finds', () => {
  test("an e-mail address in any letter case finds the customer's normalised address", () => {
    expect(searchText('  Jane@Example.COM ')).toMatchObject({
      keyPrefix: 'Jane@Example.COM',
      customerEmail: 'jane@example.com',
    });
    expect(searchText('jane@bücher.de').customerEmail).toBe('jane@xn--bcher-kva.de');
  });

  test('text that is no e-mail address looks for no customer', () => {
    for (const text of ['A-1001', 'shop.example', 'jane@', '@example.com', 'a@b@example.com']) {
      expect(searchText(text).customerEmail).toBeNull();
    }
  });

  test('a metadata value is looked for as typed and trimmed, each once', () => {
    expect(searchText('A-1001').exactTexts).toEqual(['A-1001']);
    expect(searchText(' A-1001 ').exactTexts).toEqual([' A-1001 ', 'A-1001']);
  });
});

describe('the orders of the license list: a whitelist, each served by an index', () => {
  test('the sort parameter takes each field, ascending or with - descending, and nothing else', () => {
    expect([...allSorts].sort()).toEqual(
      [...licenseSortFields, ...licenseSortFields.map((f) => `-${f}`)].sort(),
    );
    for (const refused of ['created', 'CREATED_AT', '+created_at', '--expires_at', 'product_id']) {
      expect(LicenseSort.safeParse(refused).success).toBe(false);
    }
    expect(orderOf('-expires_at')).toEqual({ field: 'expires_at', descending: true });
    expect(orderOf('license_key')).toEqual({ field: 'license_key', descending: false });
  });

  test.each(allSorts)(
    '%s is the order of a declared index, its ties broken by a unique field',
    (sort) => {
      const stored = storedLicenseOrder(orderOf(sort));
      const fields = sortOf(stored);
      expect(indexedOrder(fields)).toBe(true);
      // The last field is unique, so no two licenses tie: the order is stable.
      const last = Object.keys(fields).at(-1);
      expect(last === '_id' || (stored.unique && last === 'license_key')).toBe(true);
    },
  );

  test('every order the contract allows has a stored order', () => {
    expect(Object.keys(licenseListOrders).sort()).toEqual([...licenseSortFields].sort());
  });

  test.each(allSorts)(
    'a batch after a cursor of %s starts every branch with the order’s field, with or without a value',
    (sort) => {
      const stored = storedLicenseOrder(orderOf(sort));
      for (const value of [null, 'value', new Date(NOW)]) {
        for (const fields of filterBranches(afterCursor(stored, value, ID) as Filter)) {
          expect(fields[0]).toBe(stored.path);
          expect(servedByIndex(fields)).toBe(true);
        }
      }
    },
  );
});
