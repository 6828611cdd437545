import {
  commandFilters,
  indexesOf,
  monitorCommands,
  WARM_CACHES,
  monitoredMongoUrl,
  type MonitoredCommand,
} from '../support/command-monitor.js';
import { filterBranches } from '../support/filter-branches.js';
import { createVersion, packageBytes, uploadFile } from '../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * Scale on paper (docs/performance.md): every query the hot paths send is served by an index the
 * service declares, so its cost does not grow with the number of licenses, activations, versions
 * or log entries. The queries are the real ones, captured by the driver's command monitoring
 * while the hot paths run, caches cold; each is checked against the indexes of its collection.
 */

let system: TestSystem;
let commands: MonitoredCommand[];

beforeAll(async () => {
  system = await bootSystem({ MONGODB_URL: monitoredMongoUrl(), ...WARM_CACHES });
  commands = monitorCommands(system.config.MONGODB_DB_PREFIX);
});
afterAll(() => system?.stop());

const isEmptyFilter = (filter: unknown) =>
  typeof filter === 'object' && filter !== null && Object.keys(filter).length === 0;

describe('every query of the hot paths is served by a declared index', () => {
  beforeAll(async () => {
    // Spec 4.1 to 4.3, refusals included, and 4.4, 4.5; then the scheduled tasks (3.1, 2.5).
    const { key, product } = await system.license({ activation_limit: 1 });
    const other = await system.license({ product: product });
    const post = (operation: 'activate' | 'validate' | 'deactivate', fields: object) =>
      system.post(operation, { license_key: key, ...fields });
    await post('activate', { identifier: 'one.example' }).expect(200);
    await post('activate', { identifier: 'one.example' }).expect(200);
    await post('activate', { identifier: 'two.example' }).expect(403);
    await post('validate', { identifier: 'one.example', product_id: product.id }).expect(200);
    await post('validate', { identifier: 'two.example' }).expect(200);
    await post('validate', {}).expect(200);
    await system.post('validate', { license_key: 'no-such-key' }).expect(200);
    await post('deactivate', { identifier: 'one.example' }).expect(200);
    await post('deactivate', { identifier: 'one.example' }).expect(404);

    const version = await createVersion(system, product.id, '1.0.0');
    await uploadFile(system, version.id, packageBytes(1000));
    await system.api().get(`${API_BASE}/updates/${product.id}`).expect(200);
    await system
      .api()
      .get(`${API_BASE}/updates/${product.id}?license_key=${other.key}`)
      .expect(200);
    await system
      .api()
      .get(`${API_BASE}/downloads/${product.id}?dlid=${other.key}`)
      .buffer(true)
      .parse((res, done) => {
        res.on('data', () => {});
        res.on('end', () => done(null, null));
      })
      .expect(200);
    await system
      .api()
      .get(`${API_BASE}/downloads/${product.id}?dlid=no-such-key`)
      .set('Accept', 'application/json');
    await system.transport.call('license.runTask', { name: 'license-expiry' });
    await system.transport.call('license.runTask', { name: 'rejected-attempt-pruning' });
    // The admin overview: the figures of now from the licenses, and the daily counts (written
    // first), of one product and of all.
    for (const product_id of [product.id, null]) {
      const range = { product_id, from: '2026-01-01', to: '2026-03-31' };
      await system.transport.call('license.overview', range);
      await system.transport.call('download.dailyCounts', range);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  });

  test('the hot paths were seen sending queries to each service', () => {
    const databases = new Set(commands.map((command) => command.database));
    for (const database of ['license', 'update_catalog', 'download']) {
      expect(databases).toContain(database);
    }
  });

  test('each branch of each filter constrains the first field of an index of its collection', async () => {
    const unserved: string[] = [];
    // A copy: reading the indexes sends commands too.
    for (const command of [...commands]) {
      // Agenda's own collection: the library declares and uses its indexes.
      if (command.collection === 'agendaJobs') continue;
      // The plans are an admin's short list, read whole (the list of plans, the names of a list
      // of licenses' plans, the check of their names at start), never for a client's request.
      if (command.collection === 'plans' && commandFilters(command).every(isEmptyFilter)) continue;
      // A count with no query (estimatedDocumentCount: the overview's trials of every product)
      // reads the collection's metadata, no document.
      if (command.name === 'count' && commandFilters(command).every(isEmptyFilter)) continue;
      const indexes = await indexesOf(system.config.MONGODB_DB_PREFIX, command);
      const firstFields = new Set(indexes.map((fields) => fields[0]));
      for (const filter of commandFilters(command)) {
        for (const fields of filterBranches(filter)) {
          if (!fields.some((field) => firstFields.has(field))) {
            unserved.push(
              `${command.database}.${command.collection} ${command.name} ${JSON.stringify(filter)}`,
            );
          }
        }
      }
    }
    expect(unserved).toEqual([]);
  });
});
