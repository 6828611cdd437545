import { LATER_PLAN_SETTINGS, oldPlanDocument } from '../support/plan-defaults.js';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { UsesReset } from '../../libs/contracts/index.js';
import { databaseOf } from '../support/databases.js';
import { API_BASE, adminOf, bootSystem, unique, type TestSystem } from '../support/system.js';

/**
 * Usage counters (docs/api-decisions.md, "Usage counters") through HTTP and the services'
 * transport: the cap holds under concurrency, an idempotency key counts once, a daily counter
 * starts again in a new day, validate counts nothing, and plans stored before have no counter.
 */

const FUTURE = '2099-01-01T00:00:00.000Z';
const PAST = '2020-01-01T00:00:00.000Z';

/** A license on a new plan with a usage cap. */
async function meteredLicense(
  system: TestSystem,
  usage: { max_uses: number | null; uses_reset?: UsesReset },
  license: { status?: 'active' | 'suspended'; expires_at?: string | null } = {},
) {
  const product = await system.transport.call('update-catalog.createProduct', {
    title: `Metered ${unique()}`,
    bundle_items: [],
  });
  const plan = await system.transport.call('license.createPlan', {
    name: `Metered ${unique()}`,
    activation_type: 'device',
    activation_limit: 3,
    lease_seconds: null,
    exempt_identifiers: [],
    exempt_limit: 3,
    ...usage,
  });
  const created = await system.transport.call('license.createLicense', {
    product_id: product.id,
    plan_id: plan.id,
    status: license.status ?? 'active',
    expires_at: license.expires_at ?? null,
  });
  return { key: created.license_key, product, plan };
}

const use = (
  system: TestSystem,
  fields: { product_id: number } & Record<string, string | number>,
) => system.post('usage', { idempotency_key: randomUUID(), ...fields });

describe.each([1, 2])('usage counters under concurrency (%i license replicas)', (replicas) => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await bootSystem({}, { licenseReplicas: replicas });
  });
  afterAll(() => system?.stop());

  test('100 simultaneous increments on a cap of 50: exactly 50 counted, 50 refused', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 50 });
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => use(system, { license_key: key, product_id: product.id })),
    );
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 403);
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(50);
    // Each counted call saw its own total: 1 to 50, once each.
    expect(ok.map((r) => r.body.data.uses).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    for (const r of refused) {
      expect(r.body.error).toMatchObject({ code: 'USAGE_LIMIT_REACHED', max_uses: 50 });
      expect(Number.isInteger(r.body.error.uses)).toBe(true);
    }
    const after = await use(system, { license_key: key, product_id: product.id });
    expect(after.body.error).toMatchObject({ code: 'USAGE_LIMIT_REACHED', uses: 50, max_uses: 50 });
  });

  test('one idempotency key sent 20 times at once counts once, every call answered', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 50 });
    const fields = { license_key: key, product_id: product.id, idempotency_key: randomUUID() };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => system.post('usage', { ...fields, increment: 3 })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const r of responses) expect(r.body.data.uses).toBe(3);
    const next = await use(system, { license_key: key, product_id: product.id });
    expect(next.body.data.uses).toBe(4);
  });
});

describe('POST {api_base}/licenses/usage', () => {
  let system: TestSystem;
  let licenseDb: Connection;
  const admin = adminOf(() => system);
  beforeAll(async () => {
    system = await bootSystem();
    licenseDb = await databaseOf(system, 'license');
  });
  afterAll(async () => {
    await licenseDb?.close();
    await system?.stop();
  });

  test('answers the uses of the period, the cap and when it resets; increment defaults to 1', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 10 });
    const first = await use(system, { license_key: key, product_id: product.id });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { uses: 1, max_uses: 10, resets_at: null } });
    const more = await use(system, { dlid: key, product_id: product.id, increment: 4 });
    expect(more.body.data).toEqual({ uses: 5, max_uses: 10, resets_at: null });
  });

  test('the same idempotency key twice counts once, answered with the uses as they are then', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 10 });
    const fields = { license_key: key, product_id: product.id, idempotency_key: 'order-1' };
    expect((await system.post('usage', { ...fields, increment: 2 })).body.data.uses).toBe(2);
    await use(system, { license_key: key, product_id: product.id });
    const again = await system.post('usage', { ...fields, increment: 2 });
    expect(again.status).toBe(200);
    expect(again.body.data.uses).toBe(3);
  });

  test('a refused increment is not remembered: sent again once the cap allows it, it counts', async () => {
    const { key, product, plan } = await meteredLicense(system, { max_uses: 2 });
    const fields = { license_key: key, product_id: product.id, idempotency_key: 'batch-7' };
    const refused = await system.post('usage', { ...fields, increment: 3 });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'USAGE_LIMIT_REACHED', uses: 0, max_uses: 2 });
    // The plan's cap applies at once, through PATCH /admin/v1/plans.
    const patched = await admin.patch(`/plans/${plan.id}`, { max_uses: 5 });
    expect(patched.body.data).toMatchObject({ max_uses: 5, uses_reset: 'never' });
    const counted = await system.post('usage', { ...fields, increment: 3 });
    expect(counted.body.data).toEqual({ uses: 3, max_uses: 5, resets_at: null });
  });

  test('a daily counter starts again once its stored period is an earlier day', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 3, uses_reset: 'daily' });
    const res = await use(system, { license_key: key, product_id: product.id, increment: 3 });
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(res.body.data).toEqual({ uses: 3, max_uses: 3, resets_at: midnight.toISOString() });
    expect((await use(system, { license_key: key, product_id: product.id })).status).toBe(403);
    const yesterday = new Date(midnight.getTime() - 2 * 24 * 60 * 60 * 1000);
    await licenseDb
      .collection('licenses')
      .updateOne({ license_key: key }, { $set: { uses_period_start: yesterday } });
    const next = await use(system, { license_key: key, product_id: product.id, increment: 2 });
    expect(next.status).toBe(200);
    expect(next.body.data.uses).toBe(2);
  });

  test('validate counts no usage', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 10 });
    const fields = { license_key: key, product_id: product.id, idempotency_key: 'once' };
    expect((await system.post('usage', { ...fields, increment: 2 })).body.data.uses).toBe(2);
    for (let i = 0; i < 3; i++) {
      const valid = await system.post('validate', { license_key: key, product_id: product.id });
      expect(valid.body.data.valid).toBe(true);
    }
    expect((await system.post('usage', fields)).body.data.uses).toBe(2);
  });

  test('refused as activate refuses, in its order, then an identifier not activated', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 10 });
    const refusal = async (fields: Record<string, string | number>) => {
      const res = await system.post('usage', { idempotency_key: randomUUID(), ...fields });
      return [res.status, res.body.error.code];
    };
    expect(await refusal({ license_key: 'no-such-key', product_id: product.id })).toEqual([
      403,
      'LICENSE_INVALID',
    ]);
    const suspended = await meteredLicense(system, { max_uses: 10 }, { status: 'suspended' });
    expect(await refusal({ license_key: suspended.key, product_id: suspended.product.id })).toEqual(
      [403, 'LICENSE_INVALID'],
    );
    expect(await refusal({ license_key: key, product_id: product.id + 1000 })).toEqual([
      403,
      'PRODUCT_MISMATCH',
    ]);
    const expired = await meteredLicense(system, { max_uses: 10 }, { expires_at: PAST });
    expect(await refusal({ license_key: expired.key, product_id: expired.product.id })).toEqual([
      403,
      'LICENSE_EXPIRED',
    ]);
    expect(
      await refusal({ license_key: key, product_id: product.id, identifier: 'laptop' }),
    ).toEqual([404, 'ACTIVATION_NOT_FOUND']);
    await system.post('activate', { license_key: key, identifier: 'laptop' });
    const ok = await use(system, {
      license_key: key,
      product_id: product.id,
      identifier: 'laptop',
    });
    expect(ok.body.data.uses).toBe(1);
  });

  test('INVALID_REQUEST for missing fields and increments out of bounds; nothing counted', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 10 });
    const base = { license_key: key, product_id: product.id, idempotency_key: 'k' };
    for (const fields of [
      { license_key: key, product_id: product.id },
      { license_key: key, idempotency_key: 'k' },
      { product_id: product.id, idempotency_key: 'k' },
      { ...base, idempotency_key: 'x'.repeat(256) },
      { ...base, increment: 0 },
      { ...base, increment: -1 },
      { ...base, increment: 1.5 },
      { ...base, increment: 1_000_001 },
    ]) {
      const res = await system.post('usage', fields);
      expect([fields, res.status, res.body.error.code]).toEqual([fields, 400, 'INVALID_REQUEST']);
    }
    expect((await system.post('usage', base)).body.data.uses).toBe(1);
  });

  test('a plan that counts no usage is refused with INVALID_REQUEST', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: null });
    const res = await use(system, { license_key: key, product_id: product.id });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: "This license's plan counts no usage.",
    });
  });

  test('a plan stored before usage counters answers as before and counts no usage', async () => {
    const id = 900_000 + Math.floor(Math.random() * 99_999);
    const name = `Old ${unique()}`;
    await licenseDb.collection<{ _id: number }>('plans').insertOne(oldPlanDocument(id, name));
    const plan = await admin.get(`/plans/${id}`);
    expect(plan.status).toBe(200);
    expect(plan.body.data).toEqual({
      id,
      name,
      activation_type: 'domain',
      activation_limit: 2,
      lease_seconds: null,
      exempt_identifiers: [],
      exempt_limit: 3,
      ...LATER_PLAN_SETTINGS,
      created_at: '2025-01-01T00:00:00.000Z',
    });
    const product = await system.transport.call('update-catalog.createProduct', {
      title: `Old ${unique()}`,
      bundle_items: [],
    });
    const { license_key } = await system.transport.call('license.createLicense', {
      product_id: product.id,
      plan_id: id,
      status: 'active',
      expires_at: FUTURE,
    });
    const activated = await system.post('activate', { license_key, identifier: 'old.example' });
    expect(activated.status).toBe(200);
    expect(activated.body.data).toMatchObject({ plan: name, activations_used: 1 });
    const res = await use(system, { license_key, product_id: product.id });
    expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });

  test('POST /admin/v1/plans takes the usage settings and refuses values out of bounds', async () => {
    const created = await admin.post('/plans', {
      name: `Metered ${unique()}`,
      activation_type: 'seat',
      activation_limit: 5,
      max_uses: 1000,
      uses_reset: 'monthly',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ max_uses: 1000, uses_reset: 'monthly' });
    const plain = await admin.post('/plans', {
      name: `Plain ${unique()}`,
      activation_type: 'seat',
      activation_limit: 5,
    });
    expect(plain.body.data).toMatchObject({ max_uses: null, uses_reset: 'never' });
    for (const wrong of [{ max_uses: 0 }, { max_uses: 2.5 }, { uses_reset: 'weekly' }]) {
      const res = await admin.post('/plans', {
        name: `Wrong ${unique()}`,
        activation_type: 'seat',
        activation_limit: 5,
        ...wrong,
      });
      expect([wrong, res.status]).toEqual([wrong, 400]);
    }
  });
});

describe('GET /admin/v1/licenses/{key}/usage and POST .../usage/reset', () => {
  let system: TestSystem;
  const admin = adminOf(() => system);
  beforeAll(async () => {
    system = await bootSystem();
  });
  afterAll(() => system?.stop());

  test('the admin reads the counter and resets it; the reset is in the audit log', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 3, uses_reset: 'monthly' });
    await use(system, { license_key: key, product_id: product.id, increment: 3 });
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const read = await admin.get(`/licenses/${key}/usage`);
    expect(read.body.data).toEqual({
      uses: 3,
      max_uses: 3,
      uses_reset: 'monthly',
      resets_at: nextMonth.toISOString(),
    });
    const reset = await admin.post(`/licenses/${key}/usage/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body.data.uses).toBe(0);
    const after = await use(system, { license_key: key, product_id: product.id, increment: 3 });
    expect(after.body.data.uses).toBe(3);
    const entries = await admin.get('/audit-log?action=resetLicenseUsage&per_page=1');
    expect(entries.body.data.entries[0]).toMatchObject({ action: 'resetLicenseUsage' });
  });

  test('a license whose plan counts no usage reads 0 uses and no cap', async () => {
    const { key } = await meteredLicense(system, { max_uses: null });
    const read = await admin.get(`/licenses/${key}/usage`);
    expect(read.body.data).toEqual({
      uses: 0,
      max_uses: null,
      uses_reset: 'never',
      resets_at: null,
    });
  });
});

describe('the customer portal', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await bootSystem();
  });
  afterAll(() => system?.stop());

  const portal = (key: string) =>
    system
      .api()
      .post(`${API_BASE}/portal/license`)
      .type('form')
      .send(new URLSearchParams({ license_key: key }).toString());

  test('shows the uses when the plan counts them, and nothing of usage otherwise', async () => {
    const { key, product } = await meteredLicense(system, { max_uses: 9, uses_reset: 'never' });
    await use(system, { license_key: key, product_id: product.id, increment: 4 });
    const metered = await portal(key);
    expect(metered.status).toBe(200);
    expect(metered.body.data.usage).toEqual({
      uses: 4,
      max_uses: 9,
      uses_reset: 'never',
      resets_at: null,
    });
    const plain = await meteredLicense(system, { max_uses: null });
    const answer = await portal(plain.key);
    expect(answer.status).toBe(200);
    expect(answer.body.data).not.toHaveProperty('usage');
  });
});
