import { licenseStatuses } from '../../libs/contracts/index.js';
import { licenseIndexes } from '../../services/license/models.js';
import { licenseSearchFilter, licenseSearchOrder } from '../../services/license/mongo-stores.js';
import type { LicenseFilters } from '../../services/license/stores.js';
import { filterBranches, type Filter } from '../support/filter-branches.js';

/**
 * Admin searches use indexed queries only: every branch of the MongoDB filter of every
 * combination of filters starts with the first field of an index the licenses collection
 * declares (services/license/models.ts `licenseIndexes`), and the order is an index's own.
 */

const NOW = new Date('2026-06-01T12:00:00.000Z');

const firstFields = new Set(licenseIndexes.map((index) => Object.keys(index.fields)[0]));
const servedByIndex = (fields: string[]) => fields.some((field) => firstFields.has(field));
const orderIndexed = licenseIndexes.some(
  (index) => JSON.stringify(index.fields) === JSON.stringify(licenseSearchOrder),
);

const texts: Array<LicenseFilters['text']> = [
  null,
  { keyPrefix: 'abc', identifierKeys: [] },
  { keyPrefix: null, identifierKeys: ['shop.example'] },
  { keyPrefix: 'https://www.Shop', identifierKeys: ['shop.example', 'https://www.shop'] },
];
const combinations: LicenseFilters[] = [null, 10].flatMap((productId) =>
  [null, 2].flatMap((planId) =>
    [null, ...licenseStatuses].flatMap((status) =>
      texts.map((text) => ({ productId, planId, status, text })),
    ),
  ),
);

describe('admin search: indexed queries only', () => {
  test('the order (newest first, then _id) is the order of a declared index', () => {
    expect(orderIndexed).toBe(true);
  });

  test.each(combinations.map((filters) => [JSON.stringify(filters), filters] as const))(
    'every branch of %s starts with the first field of a declared index',
    (_, filters) => {
      const filter = licenseSearchFilter(filters, NOW);
      expect(filter).not.toBeNull();
      for (const fields of filterBranches(filter as Filter)) {
        // A branch without conditions is every license, read in the order of the created_at index.
        if (fields.length === 0) expect(orderIndexed).toBe(true);
        else expect({ fields, served: servedByIndex(fields) }).toEqual({ fields, served: true });
      }
    },
  );

  test('a key prefix is anchored and its characters are taken literally', () => {
    const filter = licenseSearchFilter(
      {
        productId: null,
        planId: null,
        status: null,
        text: { keyPrefix: 'a.b*(c)', identifierKeys: [] },
      },
      NOW,
    );
    const pattern = new RegExp(((filter as Filter).license_key as { $regex: string }).$regex);
    expect(pattern.test('a.b*(c)-rest')).toBe(true);
    expect(pattern.test('axbb(c)')).toBe(false);
    expect(pattern.test('x-a.b*(c)')).toBe(false);
  });

  test('a text with neither a key prefix nor identifier keys can match nothing: no query', () => {
    expect(
      licenseSearchFilter(
        {
          productId: 10,
          planId: null,
          status: null,
          text: { keyPrefix: null, identifierKeys: [] },
        },
        NOW,
      ),
    ).toBeNull();
  });
});
