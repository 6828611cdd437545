import { DAILY_COUNT_RETENTION_DAYS, openMongoDailyCounts } from '../../libs/daily-counts/index.js';
import { contractMetrics, describeDailyCountStore } from '../support/daily-count-store-contract.js';
import { dropOwnDatabase, ownDatabase, withOwnDatabase } from '../support/databases.js';

// The MongoDB store of the daily counts, on a database of its own for each test, dropped after.
describeDailyCountStore('MongoDB', async () => {
  const db = await ownDatabase('download');
  return {
    store: await openMongoDailyCounts(db, contractMetrics),
    close: () => dropOwnDatabase(db),
  };
});

describe('MongoDB: the retention of the daily counts', () => {
  test(`a day's record expires ${DAILY_COUNT_RETENTION_DAYS} days after the day began (a TTL index)`, () =>
    withOwnDatabase('download', async (db) => {
      const store = await openMongoDailyCounts(db, contractMetrics);
      // A recent day: the TTL monitor removes records whose time has come.
      const today = new Date().toISOString().slice(0, 10);
      await store.add([{ day: today, product_id: 1, counts: { served: 1 } }]);
      const record = await db.collection('daily_counts').findOne({ day: today, product_id: 1 });
      expect(record?.expires_at).toEqual(
        new Date(Date.parse(`${today}T00:00:00.000Z`) + DAILY_COUNT_RETENTION_DAYS * 86_400_000),
      );
      const indexes = await db.collection('daily_counts').indexes();
      expect(indexes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ key: { expires_at: 1 }, expireAfterSeconds: 0 }),
          expect.objectContaining({ key: { day: 1, product_id: 1 }, unique: true }),
        ]),
      );
    }));
});
