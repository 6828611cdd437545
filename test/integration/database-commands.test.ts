import { DAILY_COUNTS_COLLECTION } from '../../libs/daily-counts/index.js';
import { eventually } from '../support/eventually.js';
import {
  monitorCommands,
  WARM_CACHES,
  monitoredMongoUrl,
  requestCommands as causedByRequests,
  type MonitoredCommand,
} from '../support/command-monitor.js';
import {
  createVersion,
  download,
  downloadLog,
  packageBytes,
  uploadFile,
} from '../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * Database round trips per request (docs/performance.md), counted by the MongoDB driver's
 * command monitoring across every service's connection, in the common case: the caches warm
 * (one request of the same kind first). A change that adds a round trip to a hot path fails
 * here, whatever the machine's speed.
 */

let system: TestSystem;
let commands: MonitoredCommand[];

beforeAll(async () => {
  // Refusals wait far longer than a burst of them takes, even on a loaded machine: a read of the
  // log writes them, together.
  system = await bootSystem({
    MONGODB_URL: monitoredMongoUrl(),
    ...WARM_CACHES,
    DOWNLOAD_LOG_BATCH_MS: '10000',
  });
  // What a request costs its services: the webhooks service takes the events it publishes after
  // the answer, in its own time (test/integration/hot-path-indexes.test.ts sees its queries);
  // the stores service's applier looks for pending store events on its own schedule.
  commands = monitorCommands(system.config.MONGODB_DB_PREFIX, { leaveOut: ['webhooks', 'stores'] });
});
afterAll(() => system?.stop());

/**
 * What the requests sent: the commands but the timer's writes of the daily counts (the last test
 * here looks at those).
 */
const requestCommands = () =>
  causedByRequests(commands).map(
    (command) => `${command.database}.${command.collection} ${command.name}`,
  );

/** The commands `work` causes, once the same work has run once (caches warm). */
async function commandsOf(work: (round: number) => Promise<unknown>): Promise<string[]> {
  await work(0);
  // Writes the request caused after its answer (none expected) would be counted late: wait.
  await new Promise((resolve) => setTimeout(resolve, 50));
  commands.length = 0;
  await work(1);
  await new Promise((resolve) => setTimeout(resolve, 50));
  return requestCommands();
}

describe('spec 4.2 validate', () => {
  test('an activated identifier: one command, which reads the license and counts the check', async () => {
    const { key, product } = await system.license();
    await system.post('activate', { license_key: key, identifier: 'one.example' }).expect(200);
    const seen = await commandsOf(() =>
      system
        .post('validate', { license_key: key, identifier: 'one.example', product_id: product.id })
        .expect(200),
    );
    expect(seen).toEqual(['license.licenses findAndModify']);
  });

  test('no identifier: one command', async () => {
    const { key } = await system.license();
    const seen = await commandsOf(() => system.post('validate', { license_key: key }).expect(200));
    expect(seen).toEqual(['license.licenses findAndModify']);
  });

  test('an identifier that is not activated (no check counted): two reads at most', async () => {
    const { key } = await system.license();
    const seen = await commandsOf(() =>
      system.post('validate', { license_key: key, identifier: 'other.example' }).expect(200),
    );
    expect(seen.length).toBeLessThanOrEqual(2);
    expect(seen.every((command) => !command.endsWith('update'))).toBe(true);
  });
});

describe('spec 4.1 activate', () => {
  test('an identifier that is already active: one command', async () => {
    const { key } = await system.license();
    const seen = await commandsOf(() =>
      system.post('activate', { license_key: key, identifier: 'same.example' }).expect(200),
    );
    expect(seen).toHaveLength(1);
  });

  test('a new activation: three commands at most (read, claim the slot, look for an open trial of its identifier)', async () => {
    const { key } = await system.license({ activation_limit: 10 });
    const seen = await commandsOf((round) =>
      system.post('activate', { license_key: key, identifier: `new-${round}.example` }).expect(200),
    );
    expect(seen.length).toBeLessThanOrEqual(3);
    expect(seen).toContain('license.licenses findAndModify');
    // docs/api-decisions.md, "Trials": a paid activation ends its identifier's trial.
    expect(seen).toContain('license.trials find');
  });
});

describe('spec 4.3 deactivate', () => {
  test('an active identifier: two commands at most', async () => {
    const { key } = await system.license({ activation_limit: 10 });
    for (const round of [0, 1]) {
      await system
        .post('activate', { license_key: key, identifier: `gone-${round}.example` })
        .expect(200);
    }
    const seen = await commandsOf((round) =>
      system
        .post('deactivate', { license_key: key, identifier: `gone-${round}.example` })
        .expect(200),
    );
    expect(seen.length).toBeLessThanOrEqual(2);
  });
});

describe('spec 4.4 update check', () => {
  /** A license whose product has a published version with one file for every plan. */
  async function released() {
    const license = await system.license();
    const version = await createVersion(system, license.product.id, '1.0.0');
    await uploadFile(system, version.id, packageBytes(1000));
    return license;
  }

  test('without a key: no database command (the catalog is cached)', async () => {
    const { product } = await released();
    const seen = await commandsOf(async () => {
      const res = await system.api().get(`${API_BASE}/updates/${product.id}`).expect(200);
      expect(res.body.data).toMatchObject({ update_available: true, version: '1.0.0' });
    });
    expect(seen).toEqual([]);
  });

  test('with a key: one command, the license read', async () => {
    const { product, key } = await released();
    const seen = await commandsOf(async () => {
      const res = await system
        .api()
        .get(`${API_BASE}/updates/${product.id}?license_key=${key}`)
        .expect(200);
      expect(res.body.data).toMatchObject({ version: '1.0.0', license_status: 'active' });
    });
    expect(seen).toEqual(['license.licenses find']);
  });

  test('the download decision: the license read and the log entry, nothing from the catalog', async () => {
    const { product, key } = await released();
    const seen = await commandsOf(async () => {
      const res = await download(system, product.id, { dlid: key });
      expect([res.status, res.error]).toEqual([200, undefined]);
    });
    // The product (its access rule) is kept by the download service and the file selection by
    // the update catalog, both until the catalog announces a change.
    expect(seen).toEqual(['license.licenses find', 'download.download_log insert']);
  });

  test('refused download decisions: the license read each, one log write for the burst', async () => {
    const { product, key } = await system.license({ expires_at: '2020-01-01T00:00:00Z' });
    const refuse = () => download(system, product.id, { dlid: key });
    expect((await refuse()).status).toBe(403);
    // The first refusal's batch is written by a read of the log, before the burst.
    await downloadLog(system, { product_id: product.id });
    commands.length = 0;
    const answers = await Promise.all(Array.from({ length: 8 }, refuse));
    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(403));
    // Each refusal joined the waiting batch before its answer: nothing is written yet.
    expect(requestCommands()).toEqual(Array(8).fill('license.licenses find'));
    commands.length = 0;
    // A read of the log writes the batch: one command for the whole burst.
    await downloadLog(system, { product_id: product.id });
    const inserts = causedByRequests(commands).filter((command) => command.name === 'insert');
    expect(inserts.map((command) => `${command.database}.${command.collection}`)).toEqual([
      'download.download_log',
    ]);
    expect(inserts[0]!.command.documents).toHaveLength(8);
  });
});

describe('the daily counts of the overview', () => {
  test("validates are counted in memory: a burst adds no command to any of them, and reaches the database in one $inc per write for the license's product and day", async () => {
    const { key, product } = await system.license();
    /** The statements of the daily counts' writes for this product, and what each added. */
    const writes = () =>
      commands
        .filter(
          (command) => command.collection === DAILY_COUNTS_COLLECTION && command.name === 'update',
        )
        .flatMap((command) => command.command.updates as Array<{ q: object; u: object }>)
        .filter(({ q }) => (q as { product_id?: number }).product_id === product.id);
    const validations = () =>
      writes().reduce(
        (sum, { u }) =>
          sum + ((u as { $inc: Record<string, number> }).$inc['counts.validations'] ?? 0),
        0,
      );
    /** The timer writes within a second or so. */
    const written = (count: number) =>
      eventually(`${count} validations written`, () => validations() >= count);
    await system.post('validate', { license_key: key }).expect(200);
    await written(1);
    commands.length = 0;
    const burst = 20;
    await Promise.all(
      Array.from({ length: burst }, () =>
        system.post('validate', { license_key: key }).expect(200),
      ),
    );
    expect(requestCommands()).toEqual(Array(burst).fill('license.licenses findAndModify'));
    await written(burst);
    expect(validations()).toBe(burst);
    expect(writes().length).toBeLessThan(burst);
  });
});
