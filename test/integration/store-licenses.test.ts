import type request from 'supertest';
import type {
  CreateStoreLicenseRequest,
  LicenseDetail,
  LicenseSummary,
} from '../../libs/contracts/index.js';
import { nextConnectionId } from '../support/store-license-contract.js';
import { API_BASE, adminOf, bootSystem, unique, type TestSystem } from '../support/system.js';

/**
 * The licenses of store sales (docs/stores.md), as the stores service asks for them over RPC
 * (`license.createStoreLicense`, `license.findStoreLicense`, through RabbitMQ to two license
 * replicas), and as admins and clients then see them over HTTP.
 */
let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem({}, { licenseReplicas: 2 });
});
afterAll(() => system?.stop());

const { get, patch } = adminOf(() => system);

/** A product and a plan, and a sale's license request on them, of a connection of its own. */
async function saleRequest(
  store: Partial<CreateStoreLicenseRequest['store']> = {},
): Promise<CreateStoreLicenseRequest> {
  const product = await system.transport.call('update-catalog.createProduct', {
    title: `Product ${unique()}`,
    bundle_items: [],
  });
  const plan = await system.transport.call('license.createPlan', {
    name: `Plan ${unique()}`,
    activation_type: 'domain',
    activation_limit: 3,
    lease_seconds: null,
    exempt_identifiers: [],
    exempt_limit: 3,
    entitlements: [],
  });
  return {
    product_id: product.id,
    plan_id: plan.id,
    expires_at: '2030-01-01T00:00:00.000Z',
    auto_renew: true,
    next_payment_at: '2030-01-01T00:00:00.000Z',
    customer: { email: 'buyer@example.com', name: null },
    metadata: {},
    store: {
      connection_id: nextConnectionId(),
      order_id: null,
      subscription_id: null,
      customer_id: null,
      ...store,
    },
  };
}

const createStoreLicense = (req: CreateStoreLicenseRequest) =>
  system.transport.call('license.createStoreLicense', req);

const keysOf = (res: request.Response) =>
  (res.body.data.licenses as LicenseSummary[]).map((license) => license.license_key);

describe('a store sale has one license', () => {
  test('ten calls at once for one subscription make one license, created once', async () => {
    const req = await saleRequest({ subscription_id: `sub_${unique()}`, customer_id: 'cus_1' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => createStoreLicense(req)));
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.license.license_key)).size).toBe(1);
    const [first] = answers;
    expect(first!.license).toMatchObject({
      status: 'active',
      product_id: req.product_id,
      plan_id: req.plan_id,
      auto_renew: true,
      next_payment_at: req.next_payment_at,
      store: req.store,
    });
    const listed = await get(`/licenses?product_id=${req.product_id}`);
    expect(keysOf(listed)).toEqual([first!.license.license_key]);
  });

  test('an order, then its subscription: one license, found by either', async () => {
    const order_id = `ord_${unique()}`;
    const req = await saleRequest({ order_id });
    const byOrder = await createStoreLicense(req);
    const subscription_id = `sub_${unique()}`;
    const bySubscription = await createStoreLicense({
      ...req,
      store: { ...req.store, subscription_id },
    });
    expect([byOrder.created, bySubscription.created]).toEqual([true, false]);
    const key = byOrder.license.license_key;
    expect(bySubscription.license).toMatchObject({
      license_key: key,
      store: { ...req.store, subscription_id },
    });
    const { connection_id } = req.store;
    for (const sale of [
      { connection_id, order_id, subscription_id: null },
      { connection_id, order_id: null, subscription_id },
      { connection_id, order_id: `ord_${unique()}`, subscription_id },
    ]) {
      const found = await system.transport.call('license.findStoreLicense', sale);
      expect(found.license?.license_key).toBe(key);
    }
    const none = await system.transport.call('license.findStoreLicense', {
      connection_id: nextConnectionId(),
      order_id,
      subscription_id,
    });
    expect(none).toEqual({ license: null });
  });

  test('a sale without an order or subscription id, or on an unknown plan, is refused and makes nothing', async () => {
    const req = await saleRequest();
    await expect(createStoreLicense(req)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    const unknownPlan = { ...req, plan_id: 999_999, store: { ...req.store, order_id: 'o-1' } };
    await expect(createStoreLicense(unknownPlan)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect(keysOf(await get(`/licenses?product_id=${req.product_id}`))).toEqual([]);
  });
});

describe("an admin's search finds a sale's license", () => {
  test('by its store order id or subscription id, exactly', async () => {
    const order_id = `ord_${unique()}`;
    const subscription_id = `sub_${unique()}`;
    const { license } = await createStoreLicense(await saleRequest({ order_id, subscription_id }));
    for (const q of [order_id, subscription_id]) {
      const res = await get(`/licenses?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      expect(keysOf(res)).toEqual([license.license_key]);
      expect(res.body.data.licenses[0].store).toEqual(license.store);
    }
    expect(keysOf(await get(`/licenses?q=${encodeURIComponent(order_id.toUpperCase())}`))).toEqual(
      [],
    );
    const detail = await get(`/licenses/${license.license_key}`);
    expect((detail.body.data as LicenseDetail).store).toEqual(license.store);
  });

  test('a license issued by an admin has no store', async () => {
    const { key } = await system.license();
    expect((await get(`/licenses/${key}`)).body.data.store).toBeNull();
  });
});

describe('the store ids are never shown to clients (spec 2.2)', () => {
  test('activate, validate and the portal answer without them', async () => {
    const { license } = await createStoreLicense(
      await saleRequest({ order_id: `ord_${unique()}`, customer_id: 'cus_secret' }),
    );
    const key = license.license_key;
    const fields = { license_key: key, identifier: 'shop.example' };
    const answers = [
      await system.post('activate', fields),
      await system.post('validate', fields),
      await system.api().post(`${API_BASE}/portal/license`).type('form').send({ license_key: key }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body.data).not.toHaveProperty('store');
      expect(JSON.stringify(res.body)).not.toContain(license.store!.order_id!);
      expect(JSON.stringify(res.body)).not.toContain('cus_secret');
    }
  });
});

describe('an admin changes automatic renewal and the next payment date', () => {
  test('a PATCH sets auto_renew and next_payment_at, and clears the date with null', async () => {
    const { key, license } = await system.license();
    expect(license).toMatchObject({ auto_renew: false, next_payment_at: null });
    const next = '2031-02-03T04:05:06.000Z';
    const set = await patch(`/licenses/${key}`, { auto_renew: true, next_payment_at: next });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ auto_renew: true, next_payment_at: next });
    const cleared = await patch(`/licenses/${key}`, { auto_renew: false, next_payment_at: null });
    expect(cleared.body.data).toMatchObject({ auto_renew: false, next_payment_at: null });
    expect((await get(`/licenses/${key}`)).body.data).toMatchObject({
      auto_renew: false,
      next_payment_at: null,
    });
    const bad = await patch(`/licenses/${key}`, { auto_renew: 'yes' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });
});
