import { createLogger } from '../../libs/logging/index.js';
import { openMongoStores } from '../../services/license/mongo-stores.js';
import { RECENT_USAGE_KEYS } from '../../services/license/usage/usage-store.js';
import { memoryLicenseStores } from '../../bench/support/license-memory-stores.js';
import { NOW, issueLicense } from '../../bench/support/license-store-fixtures.js';
import { describeStoreContract } from '../support/store-contract.js';

/**
 * The usage store (services/license/usage/usage-store.ts), in MongoDB and in memory alike: the cap
 * and the idempotency key decided by the write, the period started again, the limit notice claimed
 * once per period, and the reset.
 */

const JUNE = new Date('2026-06-01T00:00:00.000Z');
const JULY = new Date('2026-07-01T00:00:00.000Z');
const silent = createLogger('test', 'silent');

describeStoreContract(
  'usage counters',
  {
    service: 'license',
    openMongo: (db) => openMongoStores(db, silent),
    inMemory: memoryLicenseStores,
  },
  (stores) => {
    const add = (licenseKey: string, idempotencyKey: string, increment = 1, periodStart = JUNE) =>
      stores().usage.addUses({
        licenseKey,
        idempotencyKey,
        increment,
        maxUses: 5,
        periodStart,
        now: NOW,
      });

    test('a license never counted has 0 uses and no period; an unknown one is null', async () => {
      const { license_key } = await issueLicense(stores());
      expect(
        await stores().usage.findUsage({ licenseKey: license_key, idempotencyKey: 'a' }),
      ).toEqual({ uses: 0, period_start: null, seen: false });
      expect(
        await stores().usage.findUsage({ licenseKey: 'nope', idempotencyKey: null }),
      ).toBeNull();
      expect(await add('nope', 'a')).toBeNull();
    });

    test('adds within the cap, once per key; a new period starts again at the increment', async () => {
      const { license_key: key } = await issueLicense(stores());
      expect(await add(key, 'a', 3)).toBe(3);
      expect(await add(key, 'a', 3)).toBeNull();
      expect(await add(key, 'b', 3)).toBeNull();
      expect(await add(key, 'b', 2)).toBe(5);
      expect(await stores().usage.findUsage({ licenseKey: key, idempotencyKey: 'b' })).toEqual({
        uses: 5,
        period_start: JUNE,
        seen: true,
      });
      expect(await add(key, 'c', 6, JULY)).toBeNull();
      expect(await add(key, 'c', 4, JULY)).toBe(4);
      expect(await add(key, 'a', 1, JULY)).toBeNull();
    });

    test(`a key is remembered among the last ${RECENT_USAGE_KEYS} counted`, async () => {
      const { license_key: key } = await issueLicense(stores());
      const many = (n: number) =>
        stores().usage.addUses({
          licenseKey: key,
          idempotencyKey: `k${n}`,
          increment: 1,
          maxUses: 10_000,
          periodStart: JUNE,
          now: NOW,
        });
      for (let n = 0; n <= RECENT_USAGE_KEYS; n++) await many(n);
      expect(await many(1)).toBeNull();
      expect(await many(0)).toBe(RECENT_USAGE_KEYS + 2);
    });

    test('the limit notice is claimed once per period, and again after a reset', async () => {
      const { license_key: key } = await issueLicense(stores());
      const claim = (periodStart: Date) =>
        stores().usage.claimLimitNotice({ licenseKey: key, periodStart });
      expect([await claim(JUNE), await claim(JUNE), await claim(JULY)]).toEqual([
        true,
        false,
        true,
      ]);
      await add(key, 'a', 5, JULY);
      expect(await stores().usage.resetUses({ licenseKey: key, periodStart: JULY, now: NOW })).toBe(
        true,
      );
      expect(await claim(JULY)).toBe(true);
      expect(await add(key, 'b', 5, JULY)).toBe(5);
      expect(
        await stores().usage.resetUses({ licenseKey: 'nope', periodStart: JULY, now: NOW }),
      ).toBe(false);
    });
  },
);
