import { randomBytes, randomInt } from 'node:crypto';
import { NEWEST_FIRST } from '../../services/license/admin/license-read-model.js';
import type { StoreRefsRecord } from '../../services/license/records.js';
import {
  NOW,
  newLicense,
  uniqueKey,
  withStores,
  type OpenStores,
} from '../../bench/support/license-store-fixtures.js';

const id = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;
/** A store connection's id no other test's sale uses (connections are numbered by the stores service). */
export const nextConnectionId = () => randomInt(1, 2 ** 47);

/** A sale of a connection of its own, so that each test's ids meet no other test's. */
function sale(overrides: Partial<StoreRefsRecord> = {}): StoreRefsRecord {
  return {
    connection_id: nextConnectionId(),
    order_id: null,
    subscription_id: null,
    customer_id: null,
    ...overrides,
  };
}

/**
 * What every implementation of the license store must do with the licenses of store sales
 * (services/license/licenses/license-store.ts `StoreLicenseStore`, docs/stores.md): one license per sale,
 * found by the sale's ids, run against each of them with the same body.
 */
export function describeStoreLicenses(implementation: string, open: OpenStores): void {
  describe(`${implementation}: the licenses of store sales (docs/stores.md)`, () => {
    const stores = withStores(open);
    const issueFor = (store: StoreRefsRecord) =>
      stores().licenses.issueForStore({ license: { ...newLicense(), store }, now: NOW });

    test('a sale issues a license carrying its ids, found by them', async () => {
      const store = sale({ order_id: id('ord'), subscription_id: id('sub'), customer_id: 'cus_1' });
      const issued = await issueFor(store);
      expect(issued).toEqual({ outcome: 'issued', license: expect.objectContaining({ store }) });
      const key = issued.outcome === 'issued' ? issued.license.license_key : '';
      for (const by of [
        { order_id: store.order_id, subscription_id: null },
        { order_id: null, subscription_id: store.subscription_id },
      ]) {
        const found = await stores().licenses.findByStore({
          connection_id: store.connection_id,
          ...by,
        });
        expect(found).toMatchObject({ license_key: key, store });
      }
      expect(await stores().licenses.findByKey(key)).toMatchObject({ store });
    });

    test('a license issued without a sale carries none', async () => {
      const license = newLicense();
      await stores().licenses.issue({ license, now: NOW });
      expect(await stores().licenses.findByKey(license.license_key)).toMatchObject({ store: null });
    });

    test('the same sale again answers the license it has: one license per subscription', async () => {
      const store = sale({ subscription_id: id('sub') });
      const first = await issueFor(store);
      const again = await issueFor(store);
      expect(first.outcome).toBe('issued');
      expect(again).toEqual({
        outcome: 'existing',
        license: expect.objectContaining({
          license_key: first.outcome === 'issued' ? first.license.license_key : '',
        }),
      });
    });

    test('ten issues of one subscription at once make one license', async () => {
      const store = sale({ subscription_id: id('sub') });
      const results = await Promise.all(Array.from({ length: 10 }, () => issueFor(store)));
      const keys = new Set(
        results.map((r) => (r.outcome === 'key-taken' ? null : r.license.license_key)),
      );
      expect(results.filter((r) => r.outcome === 'issued')).toHaveLength(1);
      expect(results.filter((r) => r.outcome === 'existing')).toHaveLength(9);
      expect(keys.size).toBe(1);
    });

    test('ten issues of one order at once make one license', async () => {
      const store = sale({ order_id: id('ord') });
      const results = await Promise.all(Array.from({ length: 10 }, () => issueFor(store)));
      expect(results.filter((r) => r.outcome === 'issued')).toHaveLength(1);
      expect(results.filter((r) => r.outcome === 'existing')).toHaveLength(9);
    });

    test("an order's license is the subscription's when the subscription comes later, which it is then found by", async () => {
      const order = sale({ order_id: id('ord') });
      const first = await issueFor(order);
      const subscription_id = id('sub');
      const later = await issueFor({ ...order, subscription_id, customer_id: 'cus_2' });
      const key = first.outcome === 'issued' ? first.license.license_key : '';
      expect(later).toEqual({
        outcome: 'existing',
        license: expect.objectContaining({
          license_key: key,
          store: { ...order, subscription_id, customer_id: 'cus_2' },
        }),
      });
      const found = await stores().licenses.findByStore({
        connection_id: order.connection_id,
        order_id: null,
        subscription_id,
      });
      expect(found?.license_key).toBe(key);
    });

    test('the subscription is looked up before the order', async () => {
      const connection_id = nextConnectionId();
      const byOrder = await issueFor(sale({ connection_id, order_id: id('ord') }));
      const bySubscription = await issueFor(sale({ connection_id, subscription_id: id('sub') }));
      const [orderLicense, subscriptionLicense] = [byOrder, bySubscription].map((r) =>
        r.outcome === 'key-taken' ? null : r.license,
      );
      const found = await stores().licenses.findByStore({
        connection_id,
        order_id: orderLicense!.store!.order_id,
        subscription_id: subscriptionLicense!.store!.subscription_id,
      });
      expect(found?.license_key).toBe(subscriptionLicense!.license_key);
    });

    test("another connection's sale with the same ids is another license", async () => {
      const order_id = id('ord');
      const first = await issueFor(sale({ order_id }));
      const other = await issueFor(sale({ order_id }));
      expect([first.outcome, other.outcome]).toEqual(['issued', 'issued']);
    });

    test("an admin's search finds a license by its store order id or subscription id, exactly", async () => {
      const store = sale({ order_id: id('ord'), subscription_id: id('sub') });
      const issued = await issueFor(store);
      const found = async (text: string) => {
        const page = await stores().licenseReads.search({
          filters: {
            productId: null,
            planId: null,
            status: null,
            text: { keyPrefix: null, identifierKeys: [], customerEmail: null, exactTexts: [text] },
          },
          now: NOW,
          order: NEWEST_FIRST,
          page: 1,
          perPage: 10,
        });
        return page.licenses.map((license) => license.license_key);
      };
      const key = issued.outcome === 'issued' ? issued.license.license_key : '';
      expect(await found(store.order_id!)).toEqual([key]);
      expect(await found(store.subscription_id!)).toEqual([key]);
      expect(await found(store.order_id!.toUpperCase())).toEqual([]);
      expect(await found(String(store.connection_id))).toEqual([]);
    });

    test('an unknown sale finds nothing', async () => {
      expect(
        await stores().licenses.findByStore({
          connection_id: nextConnectionId(),
          order_id: id('ord'),
          subscription_id: id('sub'),
        }),
      ).toBeNull();
      expect(await stores().licenses.findByKey(uniqueKey())).toBeNull();
    });
  });
}
