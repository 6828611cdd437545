import {
  commandFilters,
  indexKeysOf,
  indexesOf,
  monitorCommands,
  monitoredMongoUrl,
  type MonitoredCommand,
} from '../support/command-monitor.js';
import { filterBranches } from '../support/filter-branches.js';
import { ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';

/**
 * The admin's lists cost what an index makes them cost, however many licenses and log entries
 * there are: every query the license search (by key, identifier, customer e-mail, metadata
 * value), every order of the lists, every batch of an export and every date range of the log
 * sends is served by an index its service declares, and every order it asks for is an index's
 * own. The queries are the real ones, captured by the driver's command monitoring.
 */

let system: TestSystem;
let commands: MonitoredCommand[];

const licenseSorts = ['created_at', 'expires_at', 'license_key', 'customer_email'];
const logSorts = ['at', 'license_key'];
const both = (fields: string[]) => fields.flatMap((field) => [field, `-${field}`]);

beforeAll(async () => {
  system = await bootSystem({ MONGODB_URL: monitoredMongoUrl() });
  const { product, plan } = await system.license();
  // Enough licenses and entries that an export of a batch of 2 reads several batches.
  for (let i = 0; i < 5; i++) {
    await system.transport.call('license.createLicense', {
      product_id: product.id,
      plan_id: plan.id,
      expires_at: i % 2 === 0 ? null : `2030-0${i}-01T00:00:00Z`,
      customer: i % 3 === 0 ? null : { email: `buyer${i}@example.com`, name: null },
      metadata: { order_id: `ORD-${i}` },
    });
    await system.transport.call('download.logRefusal', {
      entry_id: null,
      product_id: product.id,
      license_key: i % 2 === 0 ? null : `K-${i}`,
      identifier: null,
      ip: '203.0.113.9',
      reason: 'LICENSE_INVALID',
    });
  }
  commands = monitorCommands(system.config.MONGODB_DB_PREFIX);
  const get = (path: string) =>
    system
      .admin()
      .get(`/admin/v1${path}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(200);
  for (const q of ['buyer1@example.com', 'ORD-3', 'https://www.Shop.example/', 'key-prefix']) {
    await get(`/licenses?q=${encodeURIComponent(q)}`);
    await get(`/licenses?q=${encodeURIComponent(q)}&status=active&product_id=${product.id}`);
  }
  for (const sort of both(licenseSorts)) {
    await get(`/licenses?sort=${sort}&per_page=2&page=2`);
    await get(`/exports/licenses?sort=${sort}`);
  }
  const from = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
  const to = encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString());
  for (const sort of both(logSorts)) {
    await get(`/download-log?sort=${sort}&from=${from}&to=${to}`);
    await get(`/download-log?sort=${sort}&product_id=${product.id}&refused=true`);
    await get(`/exports/download-log?sort=${sort}&from=${from}`);
  }
}, 120_000);
afterAll(() => system?.stop());

/** The commands sent to one collection. */
const sentTo = (database: string, collection: string) =>
  commands.filter((command) => command.database === database && command.collection === collection);

describe('the admin lists send only indexed queries', () => {
  test.each([
    ['license', 'licenses'],
    ['download', 'download_log'],
  ])(
    'every branch of every filter on %s.%s constrains the first field of one of its indexes',
    async (database, collection) => {
      const sent = sentTo(database, collection);
      expect(sent.length).toBeGreaterThan(10);
      const indexes = await indexesOf(system.config.MONGODB_DB_PREFIX, { database, collection });
      const firstFields = new Set(indexes.map((fields) => fields[0]));
      const unserved: string[] = [];
      for (const command of sent) {
        for (const filter of commandFilters(command)) {
          for (const fields of filterBranches(filter)) {
            if (fields.length > 0 && !fields.some((field) => firstFields.has(field))) {
              unserved.push(`${command.name} ${JSON.stringify(filter)}`);
            }
          }
        }
      }
      expect(unserved).toEqual([]);
    },
  );

  test.each([
    ['license', 'licenses'],
    ['download', 'download_log'],
  ])(
    'every order asked of %s.%s is the order of one of its indexes, one way or the other',
    async (database, collection) => {
      const keys = await indexKeysOf(system.config.MONGODB_DB_PREFIX, { database, collection });
      const written = (key: Record<string, unknown>, sign = 1) =>
        Object.entries(key)
          .map(([field, direction]) => `${field}:${Number(direction) * sign}`)
          .join(',');
      const orders = new Set(keys.flatMap((key) => [written(key), written(key, -1)]));
      const finds = sentTo(database, collection).filter(
        (command) => command.name === 'find' && command.command.sort !== undefined,
      );
      expect(finds.length).toBeGreaterThan(10);
      const unserved = finds
        // The driver sends a sort as a Map, keeping its order.
        .map((command) => written(Object.fromEntries(command.command.sort as Map<string, unknown>)))
        .filter((order) => !orders.has(order));
      expect(unserved).toEqual([]);
    },
  );
});
