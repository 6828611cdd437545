import request from 'supertest';
import type { AdminWithToken, AuditEntry, WebhookDelivery } from '../../libs/contracts/index.js';
import { keyFingerprint } from '../../libs/logging/index.js';
import { AUDIT_COLLECTION } from '../../services/management/models.js';
import { managementRoutes } from '../../services/management/routes.js';
import { databaseOf } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { storeFixture } from '../support/store-fixtures.js';
import { SECRET, signedHeaders } from '../support/store-service-harness.js';
import { ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';

/**
 * The audit log through real HTTP (docs/api-decisions.md, "Audit log"): every change route of
 * the route table writes an entry, with who, what, the target and the fields before and after,
 * never a secret; the log is filtered, paged and exported as CSV, kept AUDIT_RETENTION_DAYS and
 * changed by no route.
 */

const RETENTION_DAYS = 90;

let system: TestSystem;
let owner: AdminWithToken;
beforeAll(async () => {
  system = await bootSystem({
    AUDIT_RETENTION_DAYS: String(RETENTION_DAYS),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // The test delivery's second attempt an hour after its first: none starts while the
    // examples retry it (a retry during an attempt is refused, docs/webhooks.md).
    WEBHOOK_RETRY_SCHEDULE: '1h',
  });
  const res = await system
    .admin()
    .post(`${BASE}/admins`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ name: 'Olga Owner', role: 'owner' });
  owner = res.body.data as AdminWithToken;
});
afterAll(() => system?.stop());

const BASE = '/admin/v1';

const as = (token: () => string) => ({
  get: (path: string) =>
    system
      .admin()
      .get(BASE + path)
      .set('Authorization', `Bearer ${token()}`),
  post: (path: string, body?: object) =>
    system
      .admin()
      .post(BASE + path)
      .set('Authorization', `Bearer ${token()}`)
      .send(body),
  patch: (path: string, body: object) =>
    system
      .admin()
      .patch(BASE + path)
      .set('Authorization', `Bearer ${token()}`)
      .send(body),
  delete: (path: string) =>
    system
      .admin()
      .delete(BASE + path)
      .set('Authorization', `Bearer ${token()}`),
});
const olga = as(() => owner.token);

async function ok(res: request.Test | Promise<request.Response>, status = 200) {
  const answer = await res;
  expect([answer.status, answer.body]).toEqual([status, answer.body]);
  return answer.body.data;
}

async function entries(query: string): Promise<AuditEntry[]> {
  const page = await ok(olga.get(`/audit-log?${query}`));
  return page.entries as AuditEntry[];
}

let seq = 0;
const unique = (name: string) => `${name} ${Date.now().toString(36)}${(seq++).toString(36)}`;

describe('every change route of the route table writes an entry', () => {
  /**
   * One real change per change route, in order, each keyed by its operation id: a route added to
   * the table without one here fails the test below, and so does one whose change writes no entry.
   */
  const state: Record<string, unknown> = {};
  const id = (name: string) => state[name] as number;
  const key = () => state.key as string;
  const examples: Array<[string, () => Promise<unknown>]> = [
    [
      'createProduct',
      async () =>
        (state.product = (await ok(olga.post('/products', { title: unique('P') }), 201)).id),
    ],
    ['updateProduct', () => ok(olga.patch(`/products/${id('product')}`, { title: unique('Q') }))],
    [
      'createPlan',
      async () =>
        (state.plan = (
          await ok(
            olga.post('/plans', {
              name: unique('Plan'),
              activation_type: 'domain',
              activation_limit: 3,
            }),
            201,
          )
        ).id),
    ],
    ['updatePlan', () => ok(olga.patch(`/plans/${id('plan')}`, { name: unique('Plan') }))],
    [
      'createEntitlement',
      async () =>
        (state.entitlement = (
          await ok(
            olga.post('/entitlements', { code: `audit-${(seq++).toString(36)}`, name: 'A' }),
            201,
          )
        ).code),
    ],
    [
      'updateEntitlement',
      () => ok(olga.patch(`/entitlements/${state.entitlement as string}`, { name: 'B' })),
    ],
    [
      'createLicense',
      async () =>
        (state.key = (
          await ok(olga.post('/licenses', { product_id: id('product'), plan_id: id('plan') }), 201)
        ).license_key),
    ],
    ['updateLicense', () => ok(olga.patch(`/licenses/${key()}`, { activation_limit: 4 }))],
    [
      'changeLicenses',
      () =>
        ok(
          olga.post('/licenses/bulk-changes', {
            action: 'set_expiry',
            expires_at: '2098-01-01T00:00:00Z',
            license_keys: [key()],
          }),
        ),
    ],
    [
      'changePlan',
      () =>
        ok(olga.post(`/licenses/${key()}/plan-change`, { plan_id: id('plan'), when: 'renewal' })),
    ],
    [
      'renewLicense',
      () =>
        ok(
          olga.post(`/licenses/${key()}/renewals`, {
            expires_at: '2099-01-01T00:00:00Z',
            source: 'gateway',
          }),
        ),
    ],
    ['resetLicenseUsage', () => ok(olga.post(`/licenses/${key()}/usage/reset`))],
    [
      'addActivation',
      () => ok(olga.post(`/licenses/${key()}/activations`, { identifier: 'shop.example' }), 201),
    ],
    ['removeActivation', () => ok(olga.delete(`/licenses/${key()}/activations/shop.example`))],
    [
      'grantEntitlement',
      () =>
        ok(
          olga.post(`/licenses/${key()}/entitlements`, {
            code: state.entitlement as string,
            expires_at: null,
          }),
        ),
    ],
    [
      'revokeEntitlement',
      () => ok(olga.delete(`/licenses/${key()}/entitlements/${state.entitlement as string}`)),
    ],
    ['deleteEntitlement', () => ok(olga.delete(`/entitlements/${state.entitlement as string}`))],
    [
      'createVersion',
      async () =>
        (state.version = (
          await ok(olga.post(`/products/${id('product')}/versions`, { version: '1.0.0' }), 201)
        ).id),
    ],
    ['updateVersion', () => ok(olga.patch(`/versions/${id('version')}`, { published: false }))],
    [
      'uploadFile',
      async () =>
        (state.file = (
          await ok(
            system
              .admin()
              .post(`${BASE}/versions/${id('version')}/files`)
              .set('Authorization', `Bearer ${owner.token}`)
              .attach('file', Buffer.from('package bytes'), 'pkg.zip'),
            201,
          )
        ).id),
    ],
    ['updateFile', () => ok(olga.patch(`/files/${id('file')}`, { include_in_updates: false }))],
    ['deleteFile', () => ok(olga.delete(`/files/${id('file')}`))],
    ['runJob', () => ok(olga.post('/jobs/license-expiry'))],
    [
      'createWebhook',
      async () =>
        (state.webhook = (
          await ok(olga.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] }), 201)
        ).id),
    ],
    ['updateWebhook', () => ok(olga.patch(`/webhooks/${id('webhook')}`, { description: 'Shop' }))],
    ['rotateWebhookSecret', () => ok(olga.post(`/webhooks/${id('webhook')}/secret`))],
    [
      'sendWebhookTest',
      async () =>
        (state.delivery = (await ok(olga.post(`/webhooks/${id('webhook')}/test`), 202)).id),
    ],
    [
      'retryWebhookDelivery',
      async () => {
        // Retried once its first attempt is listed: during that attempt a retry is refused.
        await eventually('the test delivery has been attempted once', async () => {
          const listed = await ok(olga.get(`/webhooks/${id('webhook')}/deliveries`));
          const delivery = (listed as { deliveries: WebhookDelivery[] }).deliveries.find(
            (d) => d.id === state.delivery,
          );
          return (delivery?.attempts.length ?? 0) > 0;
        });
        return ok(
          olga.post(`/webhooks/${id('webhook')}/deliveries/${state.delivery as string}/retry`),
        );
      },
    ],
    ['deleteWebhook', () => ok(olga.delete(`/webhooks/${id('webhook')}`))],
    [
      'createStoreConnection',
      async () =>
        (state.connection = (
          await ok(
            olga.post('/store-connections', {
              name: unique('Shop'),
              provider: 'lemonsqueezy',
              mode: 'live',
              signing_secret: SECRET,
            }),
            201,
          )
        ).id),
    ],
    [
      'updateStoreConnection',
      () => ok(olga.patch(`/store-connections/${id('connection')}`, { grace_days: 5 })),
    ],
    [
      'createStoreMapping',
      async () =>
        (state.mapping = (
          await ok(
            olga.post(`/store-connections/${id('connection')}/mappings`, {
              external_id: '455',
              product_id: id('product'),
              plan_id: id('plan'),
            }),
            201,
          )
        ).id),
    ],
    [
      'updateStoreMapping',
      () => ok(olga.patch(`/store-mappings/${id('mapping')}`, { renewal: 'checkout' })),
    ],
    ['deleteStoreMapping', () => ok(olga.delete(`/store-mappings/${id('mapping')}`))],
    [
      'applyStoreEventAgain',
      async () => {
        // An order no mapping names (its mapping was just deleted) is recorded as unmapped.
        const body = storeFixture('lemonsqueezy', 'order_created');
        await system.transport.call('stores.receiveEvent', {
          connection_id: id('connection'),
          body: body.toString('base64'),
          headers: signedHeaders('lemonsqueezy', body, new Date()),
        });
        const unmapped = async () =>
          (
            await system.transport.call('stores.listEvents', {
              connection_id: id('connection'),
              outcome: 'unmapped',
            })
          ).events[0];
        await eventually(
          'the order recorded as unmapped',
          async () => (await unmapped()) !== undefined,
        );
        return ok(olga.post(`/store-events/${(await unmapped())!.id}/apply`));
      },
    ],
    ['deleteStoreConnection', () => ok(olga.delete(`/store-connections/${id('connection')}`))],
    [
      'createAdmin',
      async () =>
        (state.admin = (
          await ok(olga.post('/admins', { name: unique('Sam'), role: 'support' }), 201)
        ).id),
    ],
    ['updateAdmin', () => ok(olga.patch(`/admins/${id('admin')}`, { role: 'viewer' }))],
    [
      'createAdminToken',
      async () => (state.token = (await ok(olga.post(`/admins/${id('admin')}/tokens`), 201)).id),
    ],
    [
      'revokeAdminToken',
      () => ok(olga.delete(`/admins/${id('admin')}/tokens/${state.token as string}`)),
    ],
    ['removeAdmin', () => ok(olga.delete(`/admins/${id('admin')}`))],
  ];

  const changeRoutes = managementRoutes.filter(
    (route) => route.access === 'admin' && route.method !== 'get',
  );

  test('every change route has an example here', () => {
    const covered = new Set(examples.map(([operationId]) => operationId));
    const missing = changeRoutes.map((r) => r.operationId).filter((op) => !covered.has(op));
    expect(missing).toEqual([]);
  });

  test.each(changeRoutes.map((route) => ({ route, op: route.operationId })))(
    '$op writes an entry naming the admin, the action and the target',
    async ({ op }) => {
      // The examples run in order up to this one, each once.
      for (const [name, run] of examples) {
        if (state[`ran ${name}`] === undefined) {
          state[`ran ${name}`] = true;
          await run();
        }
        if (name === op) break;
      }
      const [entry] = await entries(`action=${op}&per_page=1`);
      expect(entry).toMatchObject({
        admin: { id: owner.id, name: 'Olga Owner' },
        source: { kind: 'admin' },
        action: op,
        target: expect.stringMatching(/^[a-z-]+(:.+)?$/),
      });
      expect(Date.now() - Date.parse(entry!.at)).toBeLessThan(60_000);
    },
  );
});

describe('what an entry keeps', () => {
  test('a license change: its key fingerprint, the fields that moved, never the key', async () => {
    const { key } = await system.license();
    await ok(olga.patch(`/licenses/${key}`, { status: 'suspended' }));
    const [entry] = await entries(
      `action=updateLicense&target=${encodeURIComponent(`license:${keyFingerprint(key)}`)}`,
    );
    expect(entry).toMatchObject({
      target: `license:${keyFingerprint(key)}`,
      before: { status: 'active' },
      after: { status: 'suspended' },
    });
    expect(Object.keys(entry!.after!)).toEqual(['status']);
    const all = await ok(olga.get('/audit-log?per_page=500'));
    expect(JSON.stringify(all)).not.toContain(key);
  });

  test('a product renamed: its title before and after', async () => {
    const product = await ok(olga.post('/products', { title: 'Before' }), 201);
    await ok(olga.patch(`/products/${product.id}`, { title: 'After' }));
    const [created] = await entries(`action=createProduct&target=product:${product.id}`);
    expect(created).toMatchObject({ before: null, after: { id: product.id, title: 'Before' } });
    const [renamed] = await entries(`action=updateProduct&target=product:${product.id}`);
    expect(renamed).toMatchObject({ before: { title: 'Before' }, after: { title: 'After' } });
  });

  test("a version's rollout raised and its channel moved: the values before and after", async () => {
    const product = await ok(olga.post('/products', { title: unique('Rolled') }), 201);
    const version = await ok(
      olga.post(`/products/${product.id}/versions`, { version: '1.0.0', rollout_percent: 10 }),
      201,
    );
    await ok(olga.patch(`/versions/${version.id}`, { rollout_percent: 50, channel: 'beta' }));
    const [entry] = await entries(`action=updateVersion&target=version:${version.id}`);
    expect(entry).toMatchObject({
      before: { rollout_percent: 10, channel: 'stable' },
      after: { rollout_percent: 50, channel: 'beta' },
    });
  });

  test('an activation removed: the activation before, nothing after', async () => {
    const { key } = await system.license();
    await ok(
      olga.post(`/licenses/${key}/activations`, { identifier: 'https://www.Gone.example/' }),
      201,
    );
    await ok(olga.delete(`/licenses/${key}/activations/gone.example`));
    const target = encodeURIComponent(`license:${keyFingerprint(key)}`);
    const [added] = await entries(`action=addActivation&target=${target}`);
    expect(added).toMatchObject({
      before: null,
      after: { activation: { identifier: 'gone.example' } },
    });
    const [removed] = await entries(`action=removeActivation&target=${target}`);
    expect(removed).toMatchObject({
      before: { activation: { identifier: 'gone.example' } },
      after: null,
    });
  });

  const licenseTarget = (key: string) => encodeURIComponent(`license:${keyFingerprint(key)}`);
  const bulkChange = async (status: string, keys: string[]) =>
    ok(olga.post('/licenses/bulk-changes', { action: 'set_status', status, license_keys: keys }));
  const bulkEntries = async () =>
    (await ok(olga.get('/audit-log?action=changeLicenses'))).total as number;

  test('a bulk change: an entry for each license it changed, with its fields before and after', async () => {
    const keys = await Promise.all([1, 2, 3].map(async () => (await system.license()).key));
    const before = await bulkEntries();
    await bulkChange('suspended', keys);
    expect(await bulkEntries()).toBe(before + keys.length);
    for (const key of keys) {
      const found = await entries(`action=changeLicenses&target=${licenseTarget(key)}`);
      expect(found).toEqual([
        expect.objectContaining({
          admin: { id: owner.id, name: 'Olga Owner' },
          target: `license:${keyFingerprint(key)}`,
          before: { status: 'active' },
          after: { status: 'suspended' },
        }),
      ]);
    }
    const all = await ok(olga.get('/audit-log?action=changeLicenses&per_page=500'));
    for (const key of keys) expect(JSON.stringify(all)).not.toContain(key);
  });

  test('a bulk change that leaves every license as it was writes no entry', async () => {
    const keys = await Promise.all([1, 2].map(async () => (await system.license()).key));
    const before = await bulkEntries();
    const result = await bulkChange('active', keys);
    expect(result.succeeded).toBe(2);
    expect(await bulkEntries()).toBe(before);
  });

  test('a bulk change that changes some: entries for those only, none for the unchanged or refused', async () => {
    const { key: changed } = await system.license();
    const { key: already } = await system.license({ status: 'suspended' });
    const missing = `no-such-${unique('key').replace(/ /g, '-')}`;
    const before = await bulkEntries();
    const result = await bulkChange('suspended', [changed, already, missing]);
    expect([result.succeeded, result.failed]).toEqual([2, 1]);
    expect(await bulkEntries()).toBe(before + 1);
    const [entry] = await entries(`action=changeLicenses&target=${licenseTarget(changed)}`);
    expect(entry).toMatchObject({ before: { status: 'active' }, after: { status: 'suspended' } });
    expect(await entries(`action=changeLicenses&target=${licenseTarget(already)}`)).toEqual([]);
  });

  test('no secret is kept: webhook secrets and admin tokens', async () => {
    const hook = await ok(
      olga.post('/webhooks', { url: 'http://127.0.0.1:9/s', events: ['*'] }),
      201,
    );
    const rotated = await ok(olga.post(`/webhooks/${hook.id}/secret`));
    const sam = await ok(olga.post('/admins', { name: unique('Sam'), role: 'viewer' }), 201);
    const token = await ok(olga.post(`/admins/${sam.id}/tokens`), 201);
    const log = JSON.stringify(await ok(olga.get('/audit-log?per_page=500')));
    for (const secret of [hook.secret, rotated.secret, sam.token, token.token]) {
      expect(log).not.toContain(secret);
    }
    const [rotation] = await entries(`action=rotateWebhookSecret&target=webhook:${hook.id}`);
    expect(rotation).toMatchObject({ after: { secret_rotated_at: expect.any(String) } });
  });

  test('a refused change writes no entry', async () => {
    const before = (await ok(olga.get('/audit-log?action=updatePlan'))).total as number;
    const res = await olga.patch('/plans/987654321', { name: 'None' });
    expect(res.status).toBe(404);
    expect((await ok(olga.get('/audit-log?action=updatePlan'))).total).toBe(before);
  });

  test('the bootstrap owner is admin 0', async () => {
    const res = await system
      .admin()
      .post(`${BASE}/products`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ title: unique('By bootstrap') });
    const [entry] = await entries(`admin=0&target=product:${res.body.data.id}`);
    expect(entry?.admin).toEqual({ id: 0, name: 'Bootstrap owner (ADMIN_TOKENS)' });
  });
});

describe('reading the log', () => {
  let sam: AdminWithToken;
  let product: { id: number };
  let before: string;
  beforeAll(async () => {
    before = new Date(Date.now() - 1000).toISOString();
    sam = await ok(olga.post('/admins', { name: '=HYPERLINK("x")', role: 'owner' }), 201);
    const asSam = as(() => sam.token);
    product = await ok(asSam.post('/products', { title: 'By Sam' }), 201);
    await ok(asSam.patch(`/products/${product.id}`, { title: 'By Sam, renamed' }));
    await ok(
      asSam.post('/plans', {
        name: unique('Sam plan'),
        activation_type: 'seat',
        activation_limit: 2,
      }),
      201,
    );
  });

  test('by admin, newest first', async () => {
    const found = await entries(`admin=${sam.id}`);
    expect(found.map((e) => e.action)).toEqual(['createPlan', 'updateProduct', 'createProduct']);
  });

  test('by action, by target, by kind of target', async () => {
    expect((await entries(`admin=${sam.id}&action=updateProduct`)).map((e) => e.target)).toEqual([
      `product:${product.id}`,
    ]);
    expect((await entries(`target=product:${product.id}`)).map((e) => e.action)).toEqual([
      'updateProduct',
      'createProduct',
    ]);
    const plans = await entries(`admin=${sam.id}&target=plan`);
    expect(plans.map((e) => e.action)).toEqual(['createPlan']);
  });

  test("by source: an admin's changes are the admins'; no store made these", async () => {
    expect(await entries(`admin=${sam.id}&source=admin`)).toHaveLength(3);
    expect(await entries(`admin=${sam.id}&source=store_event`)).toEqual([]);
  });

  test('by time: from and to (a timestamp, or a whole day)', async () => {
    expect(await entries(`admin=${sam.id}&from=${encodeURIComponent(before)}`)).toHaveLength(3);
    expect(await entries(`admin=${sam.id}&to=${encodeURIComponent(before)}`)).toHaveLength(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(await entries(`admin=${sam.id}&from=${today}&to=${today}`)).toHaveLength(3);
  });

  test('a page at a time, with the total', async () => {
    const page = await ok(olga.get(`/audit-log?admin=${sam.id}&per_page=2&page=2`));
    expect(page).toMatchObject({ page: 2, per_page: 2, total: 3 });
    expect(page.entries.map((e: AuditEntry) => e.action)).toEqual(['createProduct']);
  });

  test('bad filters get 400 and name the field', async () => {
    for (const query of [
      'admin=x',
      'source=robot',
      'from=yesterday',
      'to=2026-13-40',
      'action=a b',
      'colour=red',
      'page=0',
      'per_page=501',
    ]) {
      const res = await olga.get(`/audit-log?${query}`);
      expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'INVALID_REQUEST']);
    }
    const backwards = await olga.get('/audit-log?from=2026-05-02&to=2026-05-01');
    expect(backwards.body.error.message).toMatch(/from must be before to/);
  });

  test('the CSV export: the filter applied, a header, formula cells made text', async () => {
    const res = await olga.get(`/audit-log.csv?admin=${sam.id}`).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.csv"$/,
    );
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,admin_id,admin_name,action,target,before,after,source,source_detail');
    expect(lines).toHaveLength(4);
    for (const line of lines.slice(1)) expect(line).toMatch(/,admin,$/);
    expect(lines[1]).toMatch(
      new RegExp(`^[^,]+,${sam.id},"'=HYPERLINK\\(""x""\\)",createPlan,plan:\\d+,,`),
    );
    expect(lines[2]).toContain(`updateProduct,product:${product.id},"{""title"":""By Sam"",`);
  });

  test('the CSV of an empty filter is its header alone', async () => {
    const res = await olga.get('/audit-log.csv?action=noSuchAction').buffer(true);
    expect(res.text).toBe(
      'at,admin_id,admin_name,action,target,before,after,source,source_detail\r\n',
    );
  });

  test('a viewer reads the log and its CSV', async () => {
    const viewer = await ok(olga.post('/admins', { name: unique('Vic'), role: 'viewer' }), 201);
    expect((await as(() => viewer.token).get('/audit-log')).status).toBe(200);
    expect((await as(() => viewer.token).get('/audit-log.csv')).status).toBe(200);
  });
});

describe('the log is never changed through the API', () => {
  test('no route but GETs under /audit-log', () => {
    const writes = managementRoutes.filter(
      (route) => route.path.startsWith(`${BASE}/audit-log`) && route.method !== 'get',
    );
    expect(writes).toEqual([]);
  });

  test('PATCH, DELETE, POST and PUT there get the unknown-route 404', async () => {
    for (const method of ['post', 'patch', 'put', 'delete'] as const) {
      const agent = request(system.running.managementUrl);
      const res = await agent[method](`${BASE}/audit-log`)
        .set('Authorization', `Bearer ${owner.token}`)
        .send({});
      expect([method, res.status, res.body.error?.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
  });
});

test(`entries are kept AUDIT_RETENTION_DAYS (${RETENTION_DAYS} here): a TTL index on their time`, async () => {
  const db = await databaseOf(system, 'management');
  try {
    const indexes = await db.collection(AUDIT_COLLECTION).indexes();
    expect(indexes.find((index) => index.expireAfterSeconds !== undefined)).toMatchObject({
      key: { at: 1 },
      expireAfterSeconds: RETENTION_DAYS * 86_400,
    });
  } finally {
    await db.close();
  }
});
