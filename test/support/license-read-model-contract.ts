import { randomBytes } from 'node:crypto';
import type { ListCursor } from '../../libs/contracts/index.js';
import {
  NEWEST_FIRST,
  type LicenseFilters,
  type LicenseOrder,
} from '../../services/license/admin/license-read-model.js';
import type { NewLicense } from '../../services/license/licenses/license-store.js';
import type { LicenseRecord } from '../../services/license/records.js';
import {
  DAY,
  EARLIER,
  LATER,
  NOW,
  activation,
  issueLicense,
  newLicense,
  uniqueKey,
  withStores,
  type OpenStores,
} from '../../bench/support/license-store-fixtures.js';

/**
 * What every implementation of the license read model must do
 * (services/license/admin/license-read-model.ts): a license's activations a page at a time, the
 * overview's figures, the admin search and its export, run against each of them with the same
 * body.
 */
export function describeLicenseReadModel(implementation: string, open: OpenStores): void {
  describe(`${implementation}: licenses (spec 2.2)`, () => {
    const stores = withStores(open);
    const issue = (overrides: Partial<NewLicense> = {}) => issueLicense(stores(), overrides);

    describe("a license's activations, a page at a time", () => {
      test('oldest first, paged, with the total; with keys, only those', async () => {
        const { license_key: licenseKey } = await issue({ activation_limit: 0 });
        for (let i = 0; i < 7; i++) {
          await stores().licenses.claimSlot({
            licenseKey,
            activation: activation(`site-${i}.example`, {
              activated_at: new Date(EARLIER.getTime() + i * 1000),
            }),
            now: NOW,
          });
        }
        const page = (n: number, keys: string[] | null = null) =>
          stores().licenseReads.listActivations({
            licenseKey,
            identifierKeys: keys,
            page: n,
            perPage: 3,
          });
        const names = (found: Awaited<ReturnType<typeof page>>) =>
          found.activations.map((a) => a.identifier);
        expect(names(await page(1))).toEqual([
          'site-0.example',
          'site-1.example',
          'site-2.example',
        ]);
        expect(await page(3)).toMatchObject({ total: 7 });
        expect(names(await page(3))).toEqual(['site-6.example']);
        expect(await page(4)).toEqual({ activations: [], total: 7 });
        const one = await page(1, ['site-4.example', 'nothing.example']);
        expect(one.total).toBe(1);
        expect(one.activations[0]).toMatchObject({
          identifier: 'site-4.example',
          identifier_key: 'site-4.example',
          ip: '192.0.2.1',
          last_checkout_at: null,
        });
        expect(
          await stores().licenseReads.listActivations({
            licenseKey: uniqueKey(),
            identifierKeys: null,
            page: 1,
            perPage: 3,
          }),
        ).toEqual({ activations: [], total: 0 });
      });
    });
  });

  describe(`${implementation}: the figures of the admin overview`, () => {
    const stores = withStores(open);

    test('active licenses, the slots they take and those expiring soon; per product or of all', async () => {
      const soon = new Date(NOW.getTime() + 10 * DAY);
      const by = new Date(NOW.getTime() + 30 * DAY);
      const issued = {
        never: newLicense({ product_id: 71, expires_at: null }),
        soon: newLicense({ product_id: 71, expires_at: soon }),
        atTheEnd: newLicense({ product_id: 72, expires_at: by }),
        later: newLicense({ product_id: 72, expires_at: LATER }),
        // Not counted: past its date (reported expired), suspended, expired.
        pastDue: newLicense({ product_id: 71, expires_at: EARLIER }),
        suspended: newLicense({ product_id: 71, status: 'suspended', expires_at: soon }),
        expired: newLicense({ product_id: 72, status: 'expired' }),
      };
      for (const license of Object.values(issued)) {
        await stores().licenses.issue({ license, now: NOW });
      }
      const claim = (license: NewLicense, identifier: string, exempt = false) =>
        stores().licenses.claimSlot({
          licenseKey: license.license_key,
          activation: activation(identifier, { exempt }),
          now: new Date(EARLIER.getTime() - DAY),
        });
      await claim(issued.never, 'one.example');
      await claim(issued.never, 'two.example');
      await claim(issued.soon, 'three.example');
      await claim(issued.soon, 'staging.example', true);
      await claim(issued.later, 'four.example');
      await claim(issued.pastDue, 'five.example');

      const figures = (productId: number | null) =>
        stores().licenseReads.currentFigures({ productId, now: NOW, expiringBy: by });
      await expect(figures(null)).resolves.toEqual({ active: 4, activationsInUse: 4, expiring: 2 });
      await expect(figures(71)).resolves.toEqual({ active: 2, activationsInUse: 3, expiring: 1 });
      await expect(figures(72)).resolves.toEqual({ active: 2, activationsInUse: 1, expiring: 1 });
      await expect(figures(73)).resolves.toEqual({ active: 0, activationsInUse: 0, expiring: 0 });
    });
  });

  describe(`${implementation}: admin search`, () => {
    const stores = withStores(open);
    const prefix = `s${randomBytes(4).toString('hex')}`;
    /** By name, in the order they are issued. */
    const keys = {
      plain: `${prefix}-plain`,
      pastDue: `${prefix}-past-due`,
      expired: `${prefix}.expired`,
      suspended: `${prefix}-suspended`,
      later: `${prefix}-later`,
    };
    const noFilters: LicenseFilters = { productId: null, planId: null, status: null, text: null };
    const search = async (
      filters: Partial<LicenseFilters>,
      page = 1,
      perPage = 50,
      order: LicenseOrder = NEWEST_FIRST,
    ) =>
      stores().licenseReads.search({
        filters: { ...noFilters, ...filters },
        now: NOW,
        order,
        page,
        perPage,
      });
    const found = async (filters: Partial<LicenseFilters>) =>
      (await search(filters)).licenses.map((l) => l.license_key);
    const text = (
      keyPrefix: string | null,
      identifierKeys: string[] = [],
      { customerEmail = null, exactTexts = [] }: Partial<NonNullable<LicenseFilters['text']>> = {},
    ) => ({ text: { keyPrefix, identifierKeys, customerEmail, exactTexts } });
    /** The whole list in an order, read by `scan` in batches of `limit`; the batches' sizes too. */
    const scanned = async (
      order: LicenseOrder,
      limit: number,
      filters: Partial<LicenseFilters> = {},
    ) => {
      const keys: string[] = [];
      const sizes: number[] = [];
      let after: ListCursor | null = null;
      for (let round = 0; ; round++) {
        if (round > 10)
          throw new Error(
            `a scan that does not end: ${JSON.stringify({ order, limit, keys, after })}`,
          );
        const batch: { licenses: LicenseRecord[]; next: ListCursor | null } =
          await stores().licenseReads.scan({
            filters: { ...noFilters, ...filters },
            now: NOW,
            order,
            after,
            limit,
          });
        keys.push(...batch.licenses.map((l) => l.license_key));
        sizes.push(batch.licenses.length);
        if (batch.next === null) return { keys, sizes };
        after = batch.next;
      }
    };

    beforeAll(async () => {
      const issued: Array<[string, Partial<NewLicense>]> = [
        [keys.plain, { product_id: 10, plan_id: 1 }],
        [
          keys.pastDue,
          {
            product_id: 10,
            plan_id: 2,
            expires_at: EARLIER,
            customer: { email: 'amy@example.org', name: null },
            metadata: { crm: 'shared' },
          },
        ],
        [keys.expired, { product_id: 11, plan_id: 1, status: 'expired', expires_at: EARLIER }],
        [
          keys.suspended,
          { product_id: 11, plan_id: 2, status: 'suspended', activation_type: 'device' },
        ],
        [
          keys.later,
          {
            product_id: 10,
            plan_id: 1,
            expires_at: LATER,
            customer: { email: 'jane@example.com', name: 'Jane' },
            metadata: { order_id: 'A-1001', crm: 'shared' },
          },
        ],
      ];
      for (const [license_key, overrides] of issued) {
        await stores().licenses.issue({
          license: newLicense({ license_key, ...overrides }),
          now: NOW,
        });
      }
      await stores().licenses.claimSlot({
        licenseKey: keys.plain,
        activation: activation('shop.example'),
        now: NOW,
      });
      await stores().licenses.update({
        now: NOW,
        licenseKey: keys.suspended,
        changes: { status: 'active' },
      });
      await stores().licenses.claimSlot({
        licenseKey: keys.suspended,
        activation: activation('PC-One'),
        now: NOW,
      });
      await stores().licenses.update({
        now: NOW,
        licenseKey: keys.suspended,
        changes: { status: 'suspended' },
      });
    });

    test('without filters: every license, newest first (the later issued first), and the total', async () => {
      const all = await search({});
      expect(all.total).toBe(5);
      expect(all.licenses.map((l) => l.license_key)).toEqual(Object.values(keys).reverse());
      const dates = all.licenses.map((l) => l.created_at.getTime());
      expect(dates).toEqual([...dates].sort((a, b) => b - a));
      expect(all.licenses[4]).toEqual(await stores().licenses.findByKey(keys.plain));
    });

    test('pages of per_page in order, each with the total of all; a page past the end is empty', async () => {
      const order = Object.values(keys).reverse();
      const pages = await Promise.all([1, 2, 3, 4].map((page) => search({}, page, 2)));
      expect(pages.map((p) => p.licenses.map((l) => l.license_key))).toEqual([
        order.slice(0, 2),
        order.slice(2, 4),
        order.slice(4),
        [],
      ]);
      expect(pages.map((p) => p.total)).toEqual([5, 5, 5, 5]);
    });

    test('by product and by plan, each alone and together', async () => {
      expect(await found({ productId: 10 })).toEqual([keys.later, keys.pastDue, keys.plain]);
      expect(await found({ planId: 2 })).toEqual([keys.suspended, keys.pastDue]);
      expect(await found({ productId: 11, planId: 1 })).toEqual([keys.expired]);
      expect(await found({ productId: 99 })).toEqual([]);
      expect((await search({ productId: 10, planId: 1 })).total).toBe(2);
    });

    test('by reported status (spec 3.1): an active license past its date is expired, not active', async () => {
      expect(await found({ status: 'active' })).toEqual([keys.later, keys.plain]);
      expect(await found({ status: 'expired' })).toEqual([keys.expired, keys.pastDue]);
      expect(await found({ status: 'suspended' })).toEqual([keys.suspended]);
      expect(await found({ status: 'revoked' })).toEqual([]);
      expect(await found({ status: 'expired', productId: 10 })).toEqual([keys.pastDue]);
    });

    test('by a license key prefix: anchored, case-sensitive, its characters taken literally', async () => {
      expect(await found(text(prefix))).toEqual(Object.values(keys).reverse());
      expect(await found(text(`${prefix}-p`))).toEqual([keys.pastDue, keys.plain]);
      // `.` is a character of the key, not "any character".
      expect(await found(text(`${prefix}.`))).toEqual([keys.expired]);
      expect(await found(text(`${prefix}.*`))).toEqual([]);
      expect(await found(text(prefix.toUpperCase()))).toEqual([]);
      expect(await found(text('plain'))).toEqual([]);
    });

    test('by an activated identifier, through its key', async () => {
      expect(await found(text(null, ['shop.example']))).toEqual([keys.plain]);
      expect(await found(text(null, ['pc-one', 'nowhere.example']))).toEqual([keys.suspended]);
      expect(await found(text(null, ['shop']))).toEqual([]);
    });

    test('a key prefix or an identifier, with the other filters', async () => {
      expect(await found(text(`${prefix}-later`, ['shop.example']))).toEqual([
        keys.later,
        keys.plain,
      ]);
      expect(
        await found({
          ...text(`${prefix}-later`, ['shop.example']),
          planId: 1,
          status: 'active',
          productId: 10,
        }),
      ).toEqual([keys.later, keys.plain]);
      expect(await found({ ...text(null, ['shop.example']), status: 'expired' })).toEqual([]);
    });

    test('a text with neither a key prefix nor identifier keys matches nothing', async () => {
      expect(await search(text(null, []))).toEqual({ licenses: [], total: 0 });
    });

    test("by a customer's e-mail address, exactly", async () => {
      expect(await found(text(null, [], { customerEmail: 'jane@example.com' }))).toEqual([
        keys.later,
      ]);
      expect(await found(text(null, [], { customerEmail: 'jane@example' }))).toEqual([]);
      expect(await found(text(null, [], { customerEmail: 'JANE@example.com' }))).toEqual([]);
    });

    test('by a metadata value under any key, exactly', async () => {
      expect(await found(text(null, [], { exactTexts: ['A-1001'] }))).toEqual([keys.later]);
      expect(await found(text(null, [], { exactTexts: ['shared'] }))).toEqual([
        keys.later,
        keys.pastDue,
      ]);
      expect(await found(text(null, [], { exactTexts: ['A-100', 'a-1001', 'order_id'] }))).toEqual(
        [],
      );
      expect(
        await found({ ...text(null, [], { exactTexts: ['shared'] }), status: 'expired' }),
      ).toEqual([keys.pastDue]);
    });

    test('ordered by each field, both ways; ties by the order issued in, the same way', async () => {
      const byIssue = Object.values(keys);
      const order = async (field: LicenseOrder['field'], descending: boolean) =>
        (await search({}, 1, 50, { field, descending })).licenses.map((l) => l.license_key);
      // All were issued at NOW: the issue order breaks every tie.
      expect(await order('created_at', false)).toEqual(byIssue);
      expect(await order('created_at', true)).toEqual([...byIssue].reverse());
      // No expiry (null) comes first ascending, last descending.
      const byExpiry = [keys.plain, keys.suspended, keys.pastDue, keys.expired, keys.later];
      expect(await order('expires_at', false)).toEqual(byExpiry);
      expect(await order('expires_at', true)).toEqual([...byExpiry].reverse());
      const byKey = [...byIssue].sort();
      expect(await order('license_key', false)).toEqual(byKey);
      expect(await order('license_key', true)).toEqual([...byKey].reverse());
      // Without a customer first ascending (amy@example.org before jane@example.com).
      const byEmail = [keys.plain, keys.expired, keys.suspended, keys.pastDue, keys.later];
      expect(await order('customer_email', false)).toEqual(byEmail);
      expect(await order('customer_email', true)).toEqual([...byEmail].reverse());
    });

    test('pages of an order: each page goes on where the one before ended', async () => {
      const order: LicenseOrder = { field: 'expires_at', descending: true };
      const pages = await Promise.all([1, 2, 3].map((page) => search({}, page, 2, order)));
      expect(pages.flatMap((p) => p.licenses.map((l) => l.license_key))).toEqual(
        (await search({}, 1, 50, order)).licenses.map((l) => l.license_key),
      );
    });

    test('read in batches, every order gives the whole list in the order of a search, each license once', async () => {
      const fields = ['created_at', 'expires_at', 'license_key', 'customer_email'] as const;
      for (const field of fields) {
        for (const descending of [false, true]) {
          const order = { field, descending };
          const listed = (await search({}, 1, 50, order)).licenses.map((l) => l.license_key);
          for (const limit of [1, 2, 5]) {
            expect({ field, descending, limit, keys: (await scanned(order, limit)).keys }).toEqual({
              field,
              descending,
              limit,
              keys: listed,
            });
          }
        }
      }
    });

    test('batches hold at most their limit; a batch that is not full is the last', async () => {
      expect((await scanned(NEWEST_FIRST, 2)).sizes).toEqual([2, 2, 1]);
      expect((await scanned(NEWEST_FIRST, 5)).sizes).toEqual([5, 0]);
      expect((await scanned(NEWEST_FIRST, 6)).sizes).toEqual([5]);
    });

    test('batches keep to the filters', async () => {
      expect((await scanned(NEWEST_FIRST, 1, { productId: 10 })).keys).toEqual([
        keys.later,
        keys.pastDue,
        keys.plain,
      ]);
      expect((await scanned(NEWEST_FIRST, 1, { status: 'expired' })).keys).toEqual([
        keys.expired,
        keys.pastDue,
      ]);
      expect((await scanned(NEWEST_FIRST, 1, text(null, []))).keys).toEqual([]);
    });
  });
}
