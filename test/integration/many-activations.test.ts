import { randomBytes } from 'node:crypto';
import type { Collection } from 'mongodb';
import type { Connection } from 'mongoose';
import type { Response } from 'supertest';
import type {
  Activation,
  ActivationPage,
  LicenseDetail,
  LicensePage,
  Plan,
  Product,
} from '../../libs/contracts/index.js';
import type { Transport } from '../../libs/transport/index.js';
import type { LicenseDocument } from '../../services/license/models.js';
import { activationBytes } from '../../services/license/licenses/mongo-license-documents.js';
import { countStoredActivations } from '../../services/license/mongo-stores.js';
import type { ActivationRecord } from '../../services/license/records.js';
import {
  monitorCommands,
  WARM_CACHES,
  monitoredMongoUrl,
  requestCommands,
  type MonitoredCommand,
} from '../support/command-monitor.js';
import { databaseOf } from '../support/databases.js';
import { storeManyActivations } from '../../bench/support/many-activations.js';
import { ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';

/**
 * A license holding 20,000 activations (docs/architecture.md, "Activations: embedded in the
 * license document, read a few at a time"): the hot paths and the admin pages answer on it with
 * the same database commands as on a small license, and neither those commands' replies, nor the
 * license service's RPC replies, nor the HTTP answers carry its activations.
 *
 * The license is put in place as one document, the way a license stored before the counts existed
 * is, and counted by the function the license service runs at start (support/many-activations.ts).
 * The tests run in order, each on the license as the one before left it.
 */

const MANY = 20_000;
/** Far above any answer or reply about one license without its activations... */
const HOT_PATH_BYTES = 2048;
/** ...and above a page of 100 activations, far below the 20,000 of them. */
const ADMIN_BYTES = 64 * 1024;
/** The test database is slow on the big document (the stand-in scans it for each command). */
const SLOW = 120_000;

const host = (n: number) => `host-${String(n).padStart(5, '0')}.example`;
/** Far in the past, so that every activation the tests add is later than these. */
const FIRST_ACTIVATED_AT = new Date('2026-01-01T00:00:00.000Z');

let system: TestSystem;
let commands: MonitoredCommand[];
/**
 * Each reply the gateway's transport handed over (decoded against its method's contract), with
 * the bytes of its JSON, in order.
 */
const rpcReplies: Array<{ method: string; bytes: number }> = [];
let db: Connection;
let licenses: Collection<LicenseDocument>;
let product: Product;
let plan: Plan;
/** The license with 20,000 activations, and an ordinary one of the same product and plan. */
let bigKey: string;
let smallKey: string;
let seeded: ActivationRecord[];
/** What `countStoredActivations` answered once the license was in place. */
let countedAtStart: number;

const ADMIN = '/admin/v1';
const adminGet = (path: string) =>
  system
    .admin()
    .get(ADMIN + path)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
const adminPost = async <T>(path: string, body: object): Promise<T> => {
  const res = await system
    .admin()
    .post(ADMIN + path)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send(body);
  expect(res.status).toBe(201);
  return res.body.data as T;
};
const licensePath = (key: string) => `/licenses/${encodeURIComponent(key)}`;

beforeAll(async () => {
  system = await bootSystem({ MONGODB_URL: monitoredMongoUrl(), ...WARM_CACHES });
  // What a request costs its services: the webhooks service takes the events it publishes after
  // the answer, in its own time (test/integration/hot-path-indexes.test.ts sees its queries).
  commands = monitorCommands(system.config.MONGODB_DB_PREFIX, { leaveOut: ['webhooks', 'stores'] });
  // The gateway calls the services through this transport: each reply is measured as it arrives.
  const transport = system.transport;
  const call = transport.call.bind(transport);
  transport.call = (async (method, request, options) => {
    const reply = await call(method, request, options);
    rpcReplies.push({ method, bytes: Buffer.byteLength(JSON.stringify(reply)) });
    return reply;
  }) as Transport['call'];

  const id = randomBytes(4).toString('hex');
  product = await adminPost<Product>('/products', { title: `Site network ${id}` });
  plan = await adminPost<Plan>('/plans', {
    name: `Unlimited sites ${id}`,
    activation_type: 'domain',
    activation_limit: 0,
  });
  smallKey = (
    await adminPost<LicenseDetail>('/licenses', { product_id: product.id, plan_id: plan.id })
  ).license_key;

  // Opened after monitorCommands: what the test itself sends is not counted.
  db = await databaseOf(system, 'license');
  licenses = db.db!.collection<LicenseDocument>('licenses');
  ({
    licenseKey: bigKey,
    activations: seeded,
    counted: countedAtStart,
  } = await storeManyActivations(licenses, {
    productId: product.id,
    planId: plan.id,
    activationType: 'domain',
    count: MANY,
    identifier: host,
    firstActivatedAt: FIRST_ACTIVATED_AT,
  }));
}, SLOW);

afterAll(async () => {
  await db?.close();
  await system?.stop();
});

/**
 * The database commands `work` causes, with their replies' sizes, and the RPC replies it gets.
 * Whatever ran before has settled first, and what `work` might write after its answer is waited
 * for (database-commands.test.ts counts the same way); the daily counts' timer is no request's.
 */
async function observe(work: () => Promise<unknown>) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  commands.length = 0;
  rpcReplies.length = 0;
  await work();
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { commands: requestCommands(commands), replies: [...rpcReplies] };
}

/** What database-commands.test.ts compares: database, collection and command, in order. */
const named = (seen: readonly MonitoredCommand[]) =>
  seen.map((command) => `${command.database}.${command.collection} ${command.name}`);

/** The commands of the same work on the small license, its caches warmed by a first round. */
async function onSmallLicense(work: (round: number) => Promise<unknown>) {
  await work(0);
  return named((await observe(() => work(1))).commands);
}

/**
 * Every database reply, every RPC reply the gateway got (the management API calls through a
 * transport of its own: its HTTP answer stands for its reply) and the HTTP answer are under
 * `bound` bytes.
 */
function expectSmall(seen: Awaited<ReturnType<typeof observe>>, answer: Response, bound: number) {
  expect(seen.commands.length).toBeGreaterThan(0);
  // Listed with their sizes, so that a failure says which reply was too big.
  const big = [
    ...seen.commands.map((command) => [named([command])[0], command.replyBytes] as const),
    ...seen.replies.map((reply) => [reply.method, reply.bytes] as const),
    ['HTTP answer', Buffer.byteLength(answer.text)] as const,
  ].filter(([, bytes]) => !(bytes !== undefined && bytes < bound));
  expect(big).toEqual([]);
}

describe('a license holding 20,000 activations in its document', () => {
  test(
    'licenses stored without counts are counted from their activations (countStoredActivations)',
    async () => {
      expect(countedAtStart).toBe(1);
      const counted = await licenses.findOne(
        { license_key: bigKey },
        { projection: { activations_used: 1, activations_bytes: 1 } },
      );
      expect(counted).toMatchObject({
        activations_used: MANY,
        activations_bytes: seeded.reduce((sum, a) => sum + activationBytes(a), 0),
      });
      // What a read that moved the activations would weigh: the bounds below are far from it.
      expect(counted!.activations_bytes).toBeGreaterThan(40 * ADMIN_BYTES);
      // Counted once: nothing is left to count.
      expect(await countStoredActivations(licenses)).toBe(0);
    },
    SLOW,
  );

  test(
    'spec 4.2 validate of an activated identifier: valid, activated, 20,000 used, in the one command of a small license',
    async () => {
      const validate = (key: string, identifier: string) =>
        system
          .post('validate', { license_key: key, identifier, product_id: product.id })
          .expect(200);
      await system.post('activate', { license_key: smallKey, identifier: 'v.example' }).expect(200);
      const small = await onSmallLicense(() => validate(smallKey, 'v.example'));
      let answer: Response | undefined;
      const seen = await observe(async () => {
        answer = await validate(bigKey, host(MANY - 1));
      });
      expect(answer!.body.data).toMatchObject({
        valid: true,
        status: 'active',
        license_key: bigKey,
        identifier_activated: true,
        activations_used: MANY,
        activation_limit: 0,
      });
      // As database-commands.test.ts asserts for a small license.
      expect(named(seen.commands)).toEqual(['license.licenses findAndModify']);
      expect(small).toEqual(['license.licenses findAndModify']);
      expect(seen.replies.map((reply) => reply.method)).toEqual(['license.validate']);
      expectSmall(seen, answer!, HOT_PATH_BYTES);
    },
    SLOW,
  );

  test(
    'spec 4.1 activate of a new identifier: claimed (20,001 used) with the commands of a small license',
    async () => {
      const activate = (key: string, identifier: string) =>
        system
          .post('activate', { license_key: key, identifier, product_id: product.id })
          .expect(200);
      const small = await onSmallLicense((round) => activate(smallKey, `new-${round}.example`));
      let answer: Response | undefined;
      const seen = await observe(async () => {
        answer = await activate(bigKey, 'fresh.example');
      });
      expect(answer!.body.data).toMatchObject({
        status: 'active',
        license_key: bigKey,
        identifier: 'fresh.example',
        activations_used: MANY + 1,
      });
      expect(named(seen.commands)).toEqual(small);
      // A new activation also looks for an open trial of its identifier (docs/api-decisions.md,
      // "Trials"): one indexed read.
      expect(small).toEqual([
        'license.licenses aggregate',
        'license.licenses findAndModify',
        'license.trials find',
      ]);
      expect(seen.replies.map((reply) => reply.method)).toEqual(['license.activate']);
      expectSmall(seen, answer!, HOT_PATH_BYTES);
    },
    SLOW,
  );

  test(
    'spec 4.1 activate of an identifier already active: idempotent, still 20,001, with the command of a small license',
    async () => {
      const activate = (key: string, identifier: string) =>
        system
          .post('activate', { license_key: key, identifier, product_id: product.id })
          .expect(200);
      const small = await onSmallLicense(() => activate(smallKey, 'same.example'));
      let answer: Response | undefined;
      const seen = await observe(async () => {
        answer = await activate(bigKey, 'https://www.FRESH.example/again');
      });
      expect(answer!.body.data).toMatchObject({
        identifier: 'fresh.example',
        activations_used: MANY + 1,
      });
      expect(named(seen.commands)).toEqual(small);
      expect(small).toEqual(['license.licenses aggregate']);
      expect(seen.replies.map((reply) => reply.method)).toEqual(['license.activate']);
      expectSmall(seen, answer!, HOT_PATH_BYTES);
    },
    SLOW,
  );

  test(
    'spec 4.3 deactivate: one activation among 20,001 freed (20,000 used) with the commands of a small license',
    async () => {
      const deactivate = (key: string, identifier: string) =>
        system
          .post('deactivate', { license_key: key, identifier, product_id: product.id })
          .expect(200);
      for (const round of [0, 1]) {
        await system
          .post('activate', { license_key: smallKey, identifier: `gone-${round}.example` })
          .expect(200);
      }
      const small = await onSmallLicense((round) => deactivate(smallKey, `gone-${round}.example`));
      let answer: Response | undefined;
      // One from the middle of the list.
      const seen = await observe(async () => {
        answer = await deactivate(bigKey, host(10_000));
      });
      expect(answer!.body.data).toMatchObject({
        identifier: host(10_000),
        activations_used: MANY,
      });
      expect(named(seen.commands)).toEqual(small);
      expect(small).toEqual(['license.licenses aggregate', 'license.licenses findAndModify']);
      expect(seen.replies.map((reply) => reply.method)).toEqual(['license.deactivate']);
      expectSmall(seen, answer!, HOT_PATH_BYTES);
      // Counted right: what is left, once counted again from the document itself.
      const stored = await licenses
        .aggregate<{ used: number; size: number }>([
          { $match: { license_key: bigKey } },
          { $project: { used: '$activations_used', size: { $size: '$activations' } } },
        ])
        .toArray();
      expect(stored).toEqual([{ _id: expect.anything(), used: MANY, size: MANY }]);
    },
    SLOW,
  );

  test(
    'admin detail: the first 100 activations, oldest first, and the count of all, with the commands of a small license',
    async () => {
      const small = await onSmallLicense(() => adminGet(licensePath(smallKey)).expect(200));
      let answer: Response | undefined;
      const seen = await observe(async () => {
        answer = await adminGet(licensePath(bigKey)).expect(200);
      });
      const detail = answer!.body.data as LicenseDetail;
      expect(detail).toMatchObject({ license_key: bigKey, activations_used: MANY });
      expect(detail.activations.map((a) => a.identifier)).toEqual(
        Array.from({ length: 100 }, (_, i) => host(i + 1)),
      );
      expect(detail.activations[0]).toEqual({
        identifier: host(1),
        name: null,
        ip: '203.0.113.7',
        activated_at: FIRST_ACTIVATED_AT.toISOString(),
        last_checkout_at: null,
        lease_expires_at: null,
        exempt: false,
      });
      // The detail's reads run together: their order is not the rule, their number is.
      expect(named(seen.commands).sort()).toEqual([...small].sort());
      expectSmall(seen, answer!, ADMIN_BYTES);
    },
    SLOW,
  );

  test(
    'admin activations: pages through all 20,000, oldest first, and q finds one identifier among them',
    async () => {
      const page = async (query: string) => {
        let answer: Response | undefined;
        const seen = await observe(async () => {
          answer = await adminGet(`${licensePath(bigKey)}/activations?${query}`).expect(200);
        });
        expectSmall(seen, answer!, ADMIN_BYTES);
        return answer!.body.data as ActivationPage;
      };
      const identifiers = (activations: Activation[]) => activations.map((a) => a.identifier);

      // Without host-10000 (deactivated above), and with fresh.example last, as it came last.
      const last = await page('page=200&per_page=100');
      expect(last).toMatchObject({ page: 200, per_page: 100, total: MANY });
      expect(identifiers(last.activations)).toEqual([
        ...Array.from({ length: 99 }, (_, i) => host(19_902 + i)),
        'fresh.example',
      ]);
      expect((await page('page=201&per_page=100')).activations).toEqual([]);
      // Where host-10000 was, the one after it follows.
      const middle = await page('page=100&per_page=100');
      expect(identifiers(middle.activations).slice(-2)).toEqual([host(9999), host(10_001)]);

      // Normalised as the license's type says (spec 2.4), then looked for among all of them.
      const found = await page(`q=${encodeURIComponent('https://HOST-12345.Example/page')}`);
      expect(found.total).toBe(1);
      expect(identifiers(found.activations)).toEqual([host(12_345)]);
      expect((await page(`q=${host(10_000)}`)).total).toBe(0);
    },
    SLOW,
  );

  test(
    'admin search by an identifier activated among 20,000 finds the license, without its activations',
    async () => {
      let answer: Response | undefined;
      const seen = await observe(async () => {
        answer = await adminGet(`/licenses?q=${host(15_000)}`).expect(200);
      });
      const found = answer!.body.data as LicensePage;
      expect(found.total).toBe(1);
      expect(found.licenses).toHaveLength(1);
      expect(found.licenses[0]).toMatchObject({ license_key: bigKey, activations_used: MANY });
      expectSmall(seen, answer!, ADMIN_BYTES);
      const gone = await adminGet(`/licenses?q=${host(10_000)}`).expect(200);
      expect((gone.body.data as LicensePage).total).toBe(0);
    },
    SLOW,
  );
});
