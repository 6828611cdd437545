import type { Connection } from 'mongoose';
import type { LicenseDetail, Plan } from '../../libs/contracts/index.js';
import { licenseModels, type LicenseModels } from '../../services/license/models.js';
import { API_BASE, ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';
import { databaseOf } from '../support/databases.js';

/**
 * The license lifecycle through the management API and the public API: plan changes and
 * renewals (spec 3.3), the scheduled tasks run on demand (3.1, 2.5), the admin's license search,
 * and the customer portal's data (1, 2.3). Real MongoDB and RabbitMQ (CI has both).
 */

let system: TestSystem;
let db: Connection;
let models: LicenseModels;
beforeAll(async () => {
  system = await bootSystem();
  // The license service's own database, to set dates no API sets and read stored statuses.
  db = await databaseOf(system, 'license');
  models = licenseModels(db);
});
afterAll(async () => {
  await db?.close();
  await system?.stop();
});

const BASE = '/admin/v1';
const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const FUTURE = '2099-01-01T00:00:00.000Z';
const PAST = '2020-01-01T00:00:00.000Z';
const DAY = 24 * 60 * 60 * 1000;

const admin = {
  get: (path: string) =>
    system
      .admin()
      .get(BASE + path)
      .set(AUTH),
  post: (path: string, body: object = {}) =>
    system
      .admin()
      .post(BASE + path)
      .set(AUTH)
      .send(body),
  patch: (path: string, body: object) =>
    system
      .admin()
      .patch(BASE + path)
      .set(AUTH)
      .send(body),
};

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}`;

async function plan(fields: Partial<Plan> = {}): Promise<Plan> {
  const res = await admin.post('/plans', {
    name: `Plan ${unique()}`,
    activation_type: 'domain',
    activation_limit: 1,
    ...fields,
  });
  expect(res.status).toBe(201);
  return res.body.data as Plan;
}

const detail = async (key: string) =>
  (await admin.get(`/licenses/${encodeURIComponent(key)}`)).body.data as LicenseDetail;

const activate = (key: string, identifier: string) =>
  system.post('activate', { license_key: key, identifier });

describe('spec 3.3: plan changes', () => {
  test('now: the license takes the new plan, its limit and its type', async () => {
    const { key } = await system.license({ activation_limit: 1 });
    const devices = await plan({ activation_type: 'device', activation_limit: 3 });
    const res = await admin.post(`/licenses/${key}/plan-change`, {
      plan_id: devices.id,
      when: 'now',
      confirm: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      plan_id: devices.id,
      plan: devices.name,
      activation_type: 'device',
      activation_limit: 3,
      pending_plan: null,
    });
  });

  test('at renewal: stored as pending, and applied by the next checkout renewal only', async () => {
    const { key, plan: first } = await system.license({ activation_limit: 1 });
    const bigger = await plan({ activation_limit: 5 });
    const pending = await admin.post(`/licenses/${key}/plan-change`, {
      plan_id: bigger.id,
      when: 'renewal',
    });
    expect(pending.status).toBe(200);
    expect(pending.body.data).toMatchObject({
      plan_id: first.id,
      activation_limit: 1,
      pending_plan: { id: bigger.id, name: bigger.name },
    });
    // An automatic renewal leaves plan, limit and the pending change alone.
    const byGateway = await admin.post(`/licenses/${key}/renewals`, {
      expires_at: FUTURE,
      source: 'gateway',
    });
    expect(byGateway.body.data).toMatchObject({
      plan_id: first.id,
      activation_limit: 1,
      pending_plan: { id: bigger.id },
    });
    const byCheckout = await admin.post(`/licenses/${key}/renewals`, {
      expires_at: FUTURE,
      source: 'checkout',
    });
    expect(byCheckout.status).toBe(200);
    expect(byCheckout.body.data).toMatchObject({
      plan_id: bigger.id,
      plan: bigger.name,
      activation_limit: 5,
      pending_plan: null,
      expires_at: FUTURE,
    });
  });

  test('a change that leaves activations over the new limit or changes the type gets 409 CONFIRMATION_REQUIRED with what it would do, and changes nothing until confirmed', async () => {
    const { key, plan: instances } = await system.license({
      activation_type: 'instance',
      activation_limit: 0,
    });
    for (let n = 1; n <= 6; n += 1) {
      expect((await activate(key, `node-${n}`)).status).toBe(200);
    }
    const single = await plan({ name: `Single site ${unique()}`, activation_limit: 1 });
    for (const when of ['now', 'renewal']) {
      const refused = await admin.post(`/licenses/${key}/plan-change`, {
        plan_id: single.id,
        when,
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toEqual({
        code: 'CONFIRMATION_REQUIRED',
        message: expect.stringMatching(
          /leaves 6 activations on a limit of 1, 5 over it.*changes the activation type from instance to domain/,
        ),
        plan_id: single.id,
        plan: single.name,
        activation_type: 'instance',
        new_activation_type: 'domain',
        type_changes: true,
        activation_limit: 0,
        new_activation_limit: 1,
        activations_used: 6,
        activations_over_limit: 5,
      });
    }
    expect(await detail(key)).toMatchObject({
      plan_id: instances.id,
      activation_type: 'instance',
      pending_plan: null,
    });
    const confirmed = await admin.post(`/licenses/${key}/plan-change`, {
      plan_id: single.id,
      when: 'now',
      confirm: true,
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toMatchObject({
      plan_id: single.id,
      activation_type: 'domain',
      activation_limit: 1,
      activations_used: 6,
    });
  });

  test('a change within the new limit and of the same type needs no confirmation', async () => {
    const { key } = await system.license({ activation_limit: 3 });
    expect((await activate(key, 'a.example')).status).toBe(200);
    const two = await plan({ activation_limit: 2 });
    const res = await admin.post(`/licenses/${key}/plan-change`, { plan_id: two.id, when: 'now' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ plan_id: two.id, activation_limit: 2 });
  });

  test('an unknown plan or license gets 404', async () => {
    const { key } = await system.license();
    const noPlan = await admin.post(`/licenses/${key}/plan-change`, {
      plan_id: 987654321,
      when: 'now',
    });
    expect([noPlan.status, noPlan.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const other = await plan();
    const noLicense = await admin.post('/licenses/no-such-key/plan-change', {
      plan_id: other.id,
      when: 'now',
    });
    expect([noLicense.status, noLicense.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const badWhen = await admin.post(`/licenses/${key}/plan-change`, {
      plan_id: other.id,
      when: 'tomorrow',
    });
    expect(badWhen.status).toBe(400);
  });

  test('a limit left below the activations in use: they stay, new ones wait until under it', async () => {
    const { key } = await system.license({ activation_limit: 3 });
    for (const site of ['a.example', 'b.example', 'c.example']) {
      expect((await activate(key, site)).status).toBe(200);
    }
    const single = await plan({ activation_limit: 1 });
    const changed = await admin.post(`/licenses/${key}/plan-change`, {
      plan_id: single.id,
      when: 'now',
      confirm: true,
    });
    expect(changed.status).toBe(200);
    expect((await detail(key)).activations.map((a) => a.identifier).sort()).toEqual([
      'a.example',
      'b.example',
      'c.example',
    ]);
    // Still activated: validate and an activation of an active identifier succeed.
    expect((await activate(key, 'a.example')).status).toBe(200);
    const refused = await activate(key, 'd.example');
    expect([refused.status, refused.body.error]).toEqual([
      403,
      expect.objectContaining({
        code: 'ACTIVATION_LIMIT_REACHED',
        activation_limit: 1,
        activations_used: 3,
      }),
    ]);
    await system.post('deactivate', { license_key: key, identifier: 'b.example' });
    await system.post('deactivate', { license_key: key, identifier: 'c.example' });
    // One activation on a limit of one: still not under it.
    expect((await activate(key, 'd.example')).status).toBe(403);
    await system.post('deactivate', { license_key: key, identifier: 'a.example' });
    expect((await activate(key, 'd.example')).status).toBe(200);
  });
});

describe('spec 3.3: renewals', () => {
  test('gateway renewal keeps an admin-set limit; checkout renewal resets it to the plan', async () => {
    const { key } = await system.license({ activation_limit: 2 });
    await admin.patch(`/licenses/${key}`, { activation_limit: 7 });
    const next = '2099-02-01T00:00:00.000Z';
    const byGateway = await admin.post(`/licenses/${key}/renewals`, {
      expires_at: FUTURE,
      source: 'gateway',
      next_payment_at: next,
    });
    expect(byGateway.body.data).toMatchObject({
      activation_limit: 7,
      expires_at: FUTURE,
      next_payment_at: next,
    });
    const byCheckout = await admin.post(`/licenses/${key}/renewals`, {
      expires_at: FUTURE,
      source: 'checkout',
    });
    expect(byCheckout.body.data).toMatchObject({ activation_limit: 2, next_payment_at: next });
  });

  test('an expired license becomes active again, and can be activated', async () => {
    const { key } = await system.license({ status: 'expired', expires_at: PAST });
    expect((await activate(key, 'a.example')).body.error.code).toBe('LICENSE_INVALID');
    const renewed = await admin.post(`/licenses/${key}/renewals`, {
      expires_at: FUTURE,
      source: 'gateway',
    });
    expect(renewed.body.data).toMatchObject({ status: 'active', expires_at: FUTURE });
    expect((await activate(key, 'a.example')).status).toBe(200);
  });

  test('a suspended license keeps its status; a revoked or cancelled one cannot be renewed', async () => {
    const suspended = await system.license({ status: 'suspended' });
    const kept = await admin.post(`/licenses/${suspended.key}/renewals`, {
      expires_at: FUTURE,
      source: 'checkout',
    });
    expect(kept.body.data).toMatchObject({ status: 'suspended', expires_at: FUTURE });
    for (const status of ['revoked', 'cancelled'] as const) {
      const { key } = await system.license({ status });
      const res = await admin.post(`/licenses/${key}/renewals`, {
        expires_at: FUTURE,
        source: 'gateway',
      });
      expect([res.status, res.body.error.code]).toEqual([409, 'LICENSE_INVALID']);
      expect((await detail(key)).expires_at).toBeNull();
    }
  });

  test('a renewal must reach into the future', async () => {
    const { key } = await system.license();
    const res = await admin.post(`/licenses/${key}/renewals`, {
      expires_at: PAST,
      source: 'gateway',
    });
    expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    expect((await detail(key)).expires_at).toBeNull();
  });
});

describe('spec 3.1 and 2.5: the scheduled tasks, run on demand', () => {
  test('license-expiry marks an active license past its date expired, and says how many', async () => {
    const { key } = await system.license({ expires_at: PAST });
    const stored = async () => (await models.License.findOne({ license_key: key }).lean())!.status;
    expect(await stored()).toBe('active');
    const res = await admin.post('/jobs/license-expiry');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      name: 'license-expiry',
      ran_at: expect.any(String),
      affected: expect.any(Number),
    });
    expect(res.body.data.affected).toBeGreaterThanOrEqual(1);
    expect(await stored()).toBe('expired');
  });

  test('rejected-attempt-pruning removes a row of 91 days and keeps one of 89', async () => {
    const { key } = await system.license({ activation_limit: 1 });
    await activate(key, 'kept.example');
    await activate(key, 'old.example');
    await activate(key, 'recent.example');
    const now = Date.now();
    await models.RejectedAttempt.updateOne(
      { license_key: key, identifier: 'old.example' },
      { $set: { last_attempt_at: new Date(now - 91 * DAY) } },
    );
    await models.RejectedAttempt.updateOne(
      { license_key: key, identifier: 'recent.example' },
      { $set: { last_attempt_at: new Date(now - 89 * DAY) } },
    );
    const res = await admin.post('/jobs/rejected-attempt-pruning');
    expect(res.status).toBe(200);
    expect(res.body.data.affected).toBeGreaterThanOrEqual(1);
    expect((await detail(key)).rejected_attempts.map((r) => r.identifier)).toEqual([
      'recent.example',
    ]);
  });

  test('the task list shows each interval and the last run; an unknown task is 404', async () => {
    await admin.post('/jobs/license-expiry');
    const res = await admin.get('/jobs');
    expect(res.status).toBe(200);
    const tasks = res.body.data.tasks as Array<{
      name: string;
      interval: string;
      last_run: unknown;
    }>;
    expect(tasks.map((t) => t.name).sort()).toEqual([
      'activation-lease-release',
      'license-expiry',
      'rejected-attempt-pruning',
    ]);
    expect(tasks.find((t) => t.name === 'license-expiry')).toMatchObject({
      interval: system.config.EXPIRY_TASK_EVERY,
      last_run: { trigger: 'on-demand', affected: expect.any(Number), error: null },
    });
    const unknown = await admin.post('/jobs/everything');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('admin license search', () => {
  test('by key prefix, and by an activated identifier in any spelling', async () => {
    const { key } = await system.license({ activation_limit: 2 });
    await activate(key, `shop-${key.slice(0, 6)}.example`);
    const byPrefix = await admin.get(`/licenses?q=${key.slice(0, 12)}`);
    expect(byPrefix.status).toBe(200);
    expect(byPrefix.body.data.licenses.map((l: LicenseDetail) => l.license_key)).toContain(key);
    const spelled = encodeURIComponent(`https://www.SHOP-${key.slice(0, 6)}.example/cart`);
    const byIdentifier = await admin.get(`/licenses?q=${spelled}`);
    expect(byIdentifier.body.data.licenses.map((l: LicenseDetail) => l.license_key)).toEqual([key]);
    expect(byIdentifier.body.data.licenses[0]).toMatchObject({ activations_used: 1 });
    expect(byIdentifier.body.data.licenses[0].activations).toBeUndefined();
  });

  test('by product, plan and reported status, newest first, paged with a total', async () => {
    const product = await system.transport.call('update-catalog.createProduct', {
      title: `Search ${unique()}`,
    });
    const first = await system.license({ product });
    const second = await system.license({ product, expires_at: PAST });
    const third = await system.license({ product });
    const all = await admin.get(`/licenses?product_id=${product.id}`);
    expect(all.body.data).toMatchObject({ page: 1, total: 3 });
    expect(all.body.data.licenses.map((l: LicenseDetail) => l.license_key)).toEqual([
      third.key,
      second.key,
      first.key,
    ]);
    // Active past its expiry date: reported, and found, as expired.
    const expired = await admin.get(`/licenses?product_id=${product.id}&status=expired`);
    expect(expired.body.data.licenses.map((l: LicenseDetail) => l.license_key)).toEqual([
      second.key,
    ]);
    const active = await admin.get(`/licenses?product_id=${product.id}&status=active`);
    expect(active.body.data.total).toBe(2);
    const byPlan = await admin.get(`/licenses?plan_id=${first.plan.id}`);
    expect(byPlan.body.data.licenses.map((l: LicenseDetail) => l.license_key)).toEqual([first.key]);
    const paged = await admin.get(`/licenses?product_id=${product.id}&per_page=2&page=2`);
    expect(paged.body.data).toMatchObject({ page: 2, per_page: 2, total: 3 });
    expect(paged.body.data.licenses.map((l: LicenseDetail) => l.license_key)).toEqual([first.key]);
  });

  test('bad search input is refused', async () => {
    for (const query of ['status=gone', 'page=0', 'per_page=501', 'colour=red', 'product_id=x']) {
      const res = await admin.get(`/licenses?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
    }
  });
});

describe("spec 1 and 2.3: the customer portal's data", () => {
  test("a bundle key: the bundle's products and its activations with their names, no IPs", async () => {
    const items = await Promise.all(
      ['One', 'Two'].map((title) =>
        system.transport.call('update-catalog.createProduct', { title: `${title} ${unique()}` }),
      ),
    );
    const {
      key,
      product,
      plan: bundlePlan,
    } = await system.license({
      bundle_items: items.map((item) => item.id),
    });
    await system.post('activate', {
      license_key: key,
      identifier: 'portal.example',
      name: 'Main shop',
    });
    const res = await system
      .api()
      .post(`${API_BASE}/portal/license`)
      .type('form')
      .send({ license_key: key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      license_key: key,
      status: 'active',
      product: product.title,
      plan: bundlePlan.name,
      activation_type: 'domain',
      activation_limit: 3,
      activations_used: 1,
      expires_at: null,
      auto_renew: false,
      next_payment_at: null,
      products: items.map((item) => ({ id: item.id, title: item.title })),
      activations: [
        {
          identifier: 'portal.example',
          name: 'Main shop',
          activated_at: expect.any(String),
          lease_expires_at: null,
          exempt: false,
        },
      ],
      lease_seconds: null,
      in_grace: false,
      grace_ends_at: null,
      updates_until: null,
    });
  });

  test('it changes nothing, and shows any status', async () => {
    const { key } = await system.license({ status: 'revoked' });
    const before = await detail(key);
    const res = await system
      .api()
      .post(`${API_BASE}/portal/license`)
      .type('form')
      .send({ dlid: key });
    expect(res.body.data).toMatchObject({ status: 'revoked', activations: [] });
    const after = await detail(key);
    expect(after).toEqual(before);
    expect(after).toMatchObject({ check_count: 0, last_check_at: null });
  });

  test('an unknown key gets LICENSE_INVALID, a missing one INVALID_REQUEST', async () => {
    const portal = (fields: Record<string, string>) =>
      system.api().post(`${API_BASE}/portal/license`).type('form').send(fields);
    const unknown = await portal({ license_key: 'no-such-key' });
    expect([unknown.status, unknown.body.error.code]).toEqual([403, 'LICENSE_INVALID']);
    const missing = await portal({});
    expect([missing.status, missing.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });
});
