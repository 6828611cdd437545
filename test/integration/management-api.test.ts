import request from 'supertest';
import { managementApp } from '../support/management-app.js';
import { generateSigningKey, parseSigningKeys } from '../../libs/config/index.js';
import type { LicenseDetail, Plan, Product } from '../../libs/contracts/index.js';
import { publishedKeySet } from '../../libs/http/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import { signingKeysView } from '../../services/management/signing-keys.js';
import { ADMIN_TOKEN, adminOf, bootSystem, unique, type TestSystem } from '../support/system.js';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const BASE = '/admin/v1';
const AUTH = `Bearer ${ADMIN_TOKEN}`;
const PAST = '2020-01-01T00:00:00.000Z';
const FUTURE = '2099-01-01T00:00:00.000Z';

const { get, post, patch, del } = adminOf(() => system);

const licensePath = (key: string) => `/licenses/${encodeURIComponent(key)}`;

function expectError(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({
    error: expect.objectContaining({ code, message: expect.any(String) }),
  });
  expect(res.text).not.toMatch(/<html|at .*\.ts:\d+/i);
}

async function createProduct(body: Record<string, unknown> = {}): Promise<Product> {
  const res = await post('/products', { title: `Product ${unique()}`, ...body });
  expect(res.status).toBe(201);
  return res.body.data as Product;
}

async function createPlan(body: Record<string, unknown> = {}): Promise<Plan> {
  const res = await post('/plans', {
    name: `Plan ${unique()}`,
    activation_type: 'domain',
    activation_limit: 3,
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body.data as Plan;
}

async function createLicense(
  options: { plan?: Record<string, unknown>; license?: Record<string, unknown> } = {},
): Promise<LicenseDetail> {
  const product = await createProduct();
  const plan = await createPlan(options.plan);
  const res = await post('/licenses', {
    product_id: product.id,
    plan_id: plan.id,
    ...options.license,
  });
  expect(res.status).toBe(201);
  return res.body.data as LicenseDetail;
}

async function detail(key: string): Promise<LicenseDetail> {
  const res = await get(licensePath(key));
  expect(res.status).toBe(200);
  return res.body.data as LicenseDetail;
}

describe('authentication: every /admin/v1 route needs a bearer admin token', () => {
  test('a request without a token gets 401 UNAUTHORIZED and a Bearer challenge', async () => {
    const res = await system.admin().get(`${BASE}/products`);
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
  });

  test('a wrong token, another scheme or an empty bearer gets 401 UNAUTHORIZED', async () => {
    for (const header of [
      'Bearer wrong-token',
      `Bearer ${ADMIN_TOKEN}x`,
      `Bearer ${ADMIN_TOKEN.slice(0, -1)}`,
      `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`,
      'Bearer ',
      ADMIN_TOKEN,
    ]) {
      const res = await system.admin().get(`${BASE}/products`).set('Authorization', header);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
    }
  });

  test('the right token works, whatever the case of the scheme', async () => {
    for (const header of [AUTH, `bearer ${ADMIN_TOKEN}`]) {
      const res = await system.admin().get(`${BASE}/products`).set('Authorization', header);
      expect(res.status).toBe(200);
    }
  });

  test('any of several configured tokens works', async () => {
    const app = managementApp(system.transport, { adminTokens: ['first-token', 'second-token'] });
    for (const token of ['first-token', 'second-token']) {
      const res = await request(app).get(`${BASE}/plans`).set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
    }
    const res = await request(app).get(`${BASE}/plans`).set('Authorization', AUTH);
    expectError(res, 401, 'UNAUTHORIZED');
  });

  test('authentication comes first: unknown admin routes and oversized bodies get 401', async () => {
    expectError(await system.admin().get(`${BASE}/no-such-thing`), 401, 'UNAUTHORIZED');
    const big = await system
      .admin()
      .post(`${BASE}/products`)
      .send({ title: 'x'.repeat(100_000) });
    expectError(big, 401, 'UNAUTHORIZED');
  });

  test('admin answers are not cacheable', async () => {
    const res = await get('/products');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('GET /openapi.json, GET /healthz and GET /readyz need no token', async () => {
    const doc = await system.admin().get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    const health = await system.admin().get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ data: { status: 'ok' } });
    const ready = await system.admin().get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.data).toMatchObject({
      status: 'ready',
      checks: { mongodb: 'ok', object_storage: 'ok' },
    });
  });
});

describe('products', () => {
  test('POST creates a product with the defaults and answers 201 with its location', async () => {
    const title = `Product ${unique()}`;
    const res = await post('/products', { title });
    expect(res.status).toBe(201);
    const product = res.body.data as Product;
    expect(product).toEqual({
      id: expect.any(Number),
      title,
      requires_license: true,
      download_access: 'license_key',
      bundle_items: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.headers.location).toBe(`${BASE}/products/${product.id}`);
  });

  test('every setting can be given at creation', async () => {
    for (const download_access of ['license_key', 'activated_identifier', 'account', 'public']) {
      const product = await createProduct({ requires_license: false, download_access });
      expect(product).toMatchObject({ requires_license: false, download_access });
    }
  });

  test('an explicit id is used, and a duplicate explicit id gets 409 ALREADY_EXISTS', async () => {
    const id = 900_000 + Math.floor(Math.random() * 100_000);
    const product = await createProduct({ id });
    expect(product.id).toBe(id);
    const again = await post('/products', { id, title: 'Other' });
    expectError(again, 409, 'ALREADY_EXISTS');
    expect((await get(`/products/${id}`)).body.data.title).toBe(product.title);
  });

  test('GET /products/:id returns the product and GET /products lists it', async () => {
    const product = await createProduct();
    const one = await get(`/products/${product.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ data: product });
    const list = await get('/products');
    expect(list.status).toBe(200);
    expect(list.body.data.products).toContainEqual(product);
  });

  test('an unknown product id gets 404 NOT_FOUND', async () => {
    expectError(await get('/products/987654321'), 404, 'NOT_FOUND');
    expectError(await patch('/products/987654321', { title: 'x' }), 404, 'NOT_FOUND');
  });

  test('PATCH changes only the fields sent', async () => {
    const product = await createProduct();
    const res = await patch(`/products/${product.id}`, {
      title: 'Renamed',
      download_access: 'public',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: product.id,
      title: 'Renamed',
      download_access: 'public',
      requires_license: true,
      bundle_items: [],
    });
    expect((await get(`/products/${product.id}`)).body.data.title).toBe('Renamed');
  });

  test('PATCH with an empty body gets 400 INVALID_REQUEST', async () => {
    const product = await createProduct();
    expectError(await patch(`/products/${product.id}`, {}), 400, 'INVALID_REQUEST');
  });

  test('PATCH refuses the id in the body (the id is in the path)', async () => {
    const product = await createProduct();
    const res = await patch(`/products/${product.id}`, { id: product.id + 1, title: 'x' });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/id/);
  });

  describe('bundles (spec 2.2)', () => {
    test('a bundle lists existing products', async () => {
      const a = await createProduct();
      const b = await createProduct();
      const bundle = await createProduct({ bundle_items: [a.id, b.id] });
      expect(bundle.bundle_items).toEqual([a.id, b.id]);
    });

    test('bundle_items naming an unknown product gets 400 and creates nothing', async () => {
      const title = `Bundle ${unique()}`;
      const res = await post('/products', { title, bundle_items: [987654321] });
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toMatch(/987654321/);
      const list = await get('/products');
      expect(list.body.data.products.map((p: Product) => p.title)).not.toContain(title);
    });

    test('a bundle containing itself gets 400, on create and on PATCH', async () => {
      const id = 800_000 + Math.floor(Math.random() * 100_000);
      expectError(
        await post('/products', { id, title: 'Self', bundle_items: [id] }),
        400,
        'INVALID_REQUEST',
      );
      expectError(await get(`/products/${id}`), 404, 'NOT_FOUND');
      const product = await createProduct();
      expectError(
        await patch(`/products/${product.id}`, { bundle_items: [product.id] }),
        400,
        'INVALID_REQUEST',
      );
      expect((await get(`/products/${product.id}`)).body.data.bundle_items).toEqual([]);
    });

    test('a product listed twice gets 400', async () => {
      const a = await createProduct();
      const res = await post('/products', { title: 'Twice', bundle_items: [a.id, a.id] });
      expectError(res, 400, 'INVALID_REQUEST');
    });

    test('PATCH bundle_items turns a product into a bundle whose license covers the items', async () => {
      const item = await createProduct();
      const bundle = await createProduct();
      const res = await patch(`/products/${bundle.id}`, { bundle_items: [item.id] });
      expect(res.status).toBe(200);
      expect(res.body.data.bundle_items).toEqual([item.id]);
      const plan = await createPlan();
      const license = (await post('/licenses', { product_id: bundle.id, plan_id: plan.id })).body
        .data as LicenseDetail;
      const activate = await system.post('activate', {
        license_key: license.license_key,
        identifier: 'bundle.example',
        product_id: item.id,
      });
      expect(activate.status).toBe(200);
      expect(activate.body.data.product).toBe(bundle.title);
    });
  });
});

describe('plans (spec 2.1)', () => {
  test('POST creates a plan and answers 201 with its location', async () => {
    const name = `Plan ${unique()}`;
    const res = await post('/plans', { name, activation_type: 'seat', activation_limit: 0 });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      name,
      activation_type: 'seat',
      activation_limit: 0,
      lease_seconds: null,
      exempt_identifiers: [],
      exempt_limit: 3,
      created_at: expect.any(String),
    });
    expect(res.headers.location).toBe(`${BASE}/plans/${res.body.data.id}`);
  });

  test('GET /plans/:id returns the plan and GET /plans lists it', async () => {
    const plan = await createPlan();
    expect((await get(`/plans/${plan.id}`)).body).toEqual({ data: plan });
    expect((await get('/plans')).body.data.plans).toContainEqual(plan);
  });

  test('an explicit id is used, and a duplicate explicit id gets 409 ALREADY_EXISTS', async () => {
    const id = 700_000 + Math.floor(Math.random() * 100_000);
    const plan = await createPlan({ id });
    expect(plan.id).toBe(id);
    expectError(
      await post('/plans', { id, name: 'x', activation_type: 'device', activation_limit: 1 }),
      409,
      'ALREADY_EXISTS',
    );
  });

  test('an unknown plan id gets 404 NOT_FOUND', async () => {
    expectError(await get('/plans/987654321'), 404, 'NOT_FOUND');
  });

  test('the activation type must be one of the four and the limit a non-negative integer', async () => {
    for (const body of [
      { name: 'x', activation_type: 'website', activation_limit: 1 },
      { name: 'x', activation_type: 'domain', activation_limit: -1 },
      { name: 'x', activation_type: 'domain', activation_limit: 1.5 },
      { name: 'x', activation_type: 'domain', activation_limit: '3' },
      { name: 'x', activation_type: 'domain' },
      { activation_type: 'domain', activation_limit: 1 },
    ]) {
      expectError(await post('/plans', body), 400, 'INVALID_REQUEST');
    }
  });
});

describe('licenses: create', () => {
  test('a generated key is 32 hex characters and different every time', async () => {
    const product = await createProduct();
    const plan = await createPlan();
    const keys = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await post('/licenses', { product_id: product.id, plan_id: plan.id });
      expect(res.status).toBe(201);
      expect(res.body.data.license_key).toMatch(/^[0-9a-f]{32}$/);
      keys.add(res.body.data.license_key);
    }
    expect(keys.size).toBe(5);
  });

  test("the license copies the plan's limit and type and starts empty", async () => {
    const product = await createProduct();
    const plan = await createPlan({ activation_type: 'instance', activation_limit: 7 });
    const res = await post('/licenses', { product_id: product.id, plan_id: plan.id });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      license_key: expect.stringMatching(/^[0-9a-f]{32}$/),
      status: 'active',
      product_id: product.id,
      plan_id: plan.id,
      product: product.title,
      plan: plan.name,
      activation_type: 'instance',
      activation_limit: 7,
      activations_used: 0,
      lease_seconds: null,
      exempt_identifiers: [],
      exempt_limit: 3,
      exempt_used: 0,
      expires_at: null,
      auto_renew: false,
      next_payment_at: null,
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      created_at: expect.any(String),
      pending_plan: null,
      customer: null,
      metadata: {},
      activations: [],
      rejected_attempts: [],
    });
    expect(res.headers.location).toBe(`${BASE}/licenses/${res.body.data.license_key}`);
  });

  test('status, expiry and renewal data are stored as sent', async () => {
    const license = await createLicense({
      license: {
        status: 'suspended',
        expires_at: FUTURE,
        auto_renew: true,
        next_payment_at: '2098-06-01T12:00:00+02:00',
      },
    });
    expect(license).toMatchObject({
      status: 'suspended',
      expires_at: FUTURE,
      auto_renew: true,
      next_payment_at: '2098-06-01T10:00:00.000Z',
    });
  });

  test('an explicit key is kept, and a duplicate key gets 409 ALREADY_EXISTS', async () => {
    const key = `KEY-${unique()}`;
    const license = await createLicense({ license: { license_key: key } });
    expect(license.license_key).toBe(key);
    const res = await post('/licenses', {
      license_key: key,
      product_id: license.product_id,
      plan_id: license.plan_id,
    });
    expectError(res, 409, 'ALREADY_EXISTS');
  });

  test('an unknown plan or product gets 400 INVALID_REQUEST', async () => {
    const product = await createProduct();
    const plan = await createPlan();
    const noPlan = await post('/licenses', { product_id: product.id, plan_id: 987654321 });
    expectError(noPlan, 400, 'INVALID_REQUEST');
    expect(noPlan.body.error.message).toMatch(/Plan 987654321/);
    const noProduct = await post('/licenses', { product_id: 987654321, plan_id: plan.id });
    expectError(noProduct, 400, 'INVALID_REQUEST');
    expect(noProduct.body.error.message).toMatch(/Product 987654321/);
  });

  test('expires_at must be an ISO 8601 timestamp or null; status one of the five', async () => {
    const product = await createProduct();
    const plan = await createPlan();
    const base = { product_id: product.id, plan_id: plan.id };
    for (const extra of [
      { expires_at: 'tomorrow' },
      { expires_at: '2030-02-30T00:00:00Z' },
      { expires_at: 1893456000 },
      { status: 'invalid' },
      { license_key: ' padded ' },
      { license_key: '' },
    ]) {
      const res = await post('/licenses', { ...base, ...extra });
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toMatch(new RegExp(`^${Object.keys(extra)[0]}: `));
    }
  });
});

describe('licenses: GET /licenses/:key shows every spec 2.2 field', () => {
  test('the detail has the fields of spec 2.2 plus a pending plan, the customer and metadata, activations and rejected attempts', async () => {
    const license = await createLicense();
    expect(Object.keys(await detail(license.license_key)).sort()).toEqual(
      [
        'license_key',
        'status',
        'product',
        'plan',
        'activation_type',
        'activation_limit',
        'activations_used',
        'lease_seconds',
        'exempt_identifiers',
        'exempt_limit',
        'exempt_used',
        'expires_at',
        'last_check_at',
        'last_check_ip',
        'check_count',
        'product_id',
        'plan_id',
        'auto_renew',
        'next_payment_at',
        'created_at',
        'pending_plan',
        'customer',
        'metadata',
        'activations',
        'rejected_attempts',
      ].sort(),
    );
  });

  test('a public activation shows identifier, name, IP and time (spec 2.3)', async () => {
    const license = await createLicense();
    const before = Date.now();
    const res = await system.post('activate', {
      license_key: license.license_key,
      identifier: 'https://www.Shop.example/cart',
      name: 'Main shop',
    });
    expect(res.status).toBe(200);
    const shown = await detail(license.license_key);
    expect(shown.activations_used).toBe(1);
    expect(shown.activations).toEqual([
      {
        identifier: 'shop.example',
        name: 'Main shop',
        ip: '127.0.0.1',
        activated_at: expect.any(String),
        last_checkout_at: null,
        lease_expires_at: null,
        exempt: false,
      },
    ]);
    expect(Date.parse(shown.activations[0]!.activated_at)).toBeGreaterThanOrEqual(before - 1000);
  });

  test("GET /licenses/:key/activations pages through a license's activations, oldest first, and finds one by identifier", async () => {
    const license = await createLicense({ plan: { activation_limit: 0 } });
    for (let i = 0; i < 5; i++) {
      const res = await system.post('activate', {
        license_key: license.license_key,
        identifier: `https://site-${i}.example/`,
      });
      expect(res.status).toBe(200);
    }
    const page = async (query: string) => {
      const res = await get(`${licensePath(license.license_key)}/activations?${query}`);
      expect(res.status).toBe(200);
      return res.body.data as {
        activations: Array<{ identifier: string }>;
        page: number;
        per_page: number;
        total: number;
      };
    };
    const second = await page('page=2&per_page=2');
    expect(second).toMatchObject({ page: 2, per_page: 2, total: 5 });
    expect(second.activations.map((a) => a.identifier)).toEqual([
      'site-2.example',
      'site-3.example',
    ]);
    expect((await page('page=3&per_page=2')).activations).toHaveLength(1);
    expect((await page('page=4&per_page=2')).activations).toEqual([]);
    // The identifier as the license's type normalises it (spec 2.4).
    const found = await page(`q=${encodeURIComponent('https://WWW.Site-4.example/x')}`);
    expect(found.total).toBe(1);
    expect(found.activations[0]).toMatchObject({ identifier: 'site-4.example', ip: '127.0.0.1' });
    expect((await page('q=nowhere.example')).total).toBe(0);
    expect((await detail(license.license_key)).activations).toHaveLength(5);
    expectError(await get(`${licensePath('no-such-key')}/activations`), 404, 'NOT_FOUND');
    expectError(
      await get(`${licensePath(license.license_key)}/activations?per_page=1000`),
      400,
      'INVALID_REQUEST',
    );
  });

  test('validate sets last_check_at, last_check_ip and check_count (spec 4.2 rule 3)', async () => {
    const license = await createLicense();
    await system.post('validate', { license_key: license.license_key });
    await system.post('validate', { license_key: license.license_key });
    const shown = await detail(license.license_key);
    expect(shown.check_count).toBe(2);
    expect(shown.last_check_ip).toBe('127.0.0.1');
    expect(Date.parse(shown.last_check_at!)).toBeGreaterThan(Date.now() - 60_000);
  });

  test('refusals on a full license are rejected attempts, one row per identifier with its tries', async () => {
    const license = await createLicense({ plan: { activation_limit: 1 } });
    const key = license.license_key;
    expect(
      (await system.post('activate', { license_key: key, identifier: 'a.example' })).status,
    ).toBe(200);
    for (const identifier of ['b.example', 'https://www.B.example/x', 'c.example']) {
      const res = await system.post('activate', { license_key: key, identifier, name: 'Shop' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('ACTIVATION_LIMIT_REACHED');
    }
    const attempts = (await detail(key)).rejected_attempts;
    expect(attempts).toHaveLength(2);
    const attempt = {
      name: 'Shop',
      reason: 'limit_reached',
      source: 'api',
      last_attempt_at: expect.any(String),
    };
    expect(attempts).toEqual(
      expect.arrayContaining([
        { identifier: 'b.example', tries: 2, ...attempt },
        { identifier: 'c.example', tries: 1, ...attempt },
      ]),
    );
  });

  test('refusals on an expired license are rejected attempts too', async () => {
    const license = await createLicense({ license: { expires_at: PAST } });
    const res = await system.post('activate', {
      license_key: license.license_key,
      identifier: 'late.example',
    });
    expect(res.body.error.code).toBe('LICENSE_EXPIRED');
    const shown = await detail(license.license_key);
    expect(shown.status).toBe('expired');
    expect(shown.rejected_attempts).toEqual([
      {
        identifier: 'late.example',
        name: null,
        reason: 'expired',
        source: 'api',
        tries: 1,
        last_attempt_at: expect.any(String),
      },
    ]);
  });

  test('an unknown key gets 404 NOT_FOUND', async () => {
    expectError(await get('/licenses/no-such-key'), 404, 'NOT_FOUND');
  });

  test('a key with URL-special characters cannot be given (one stored before is still found)', async () => {
    // text-input.test.ts finds such a key, stored before keys had an alphabet, URL-encoded.
    const product = await createProduct();
    const plan = await createPlan();
    const key = `a/b c?d#e%f+${unique()}`;
    const res = await post('/licenses', {
      product_id: product.id,
      plan_id: plan.id,
      license_key: key,
    });
    expectError(res, 400, 'INVALID_REQUEST');
    expectError(await get(licensePath(key)), 404, 'NOT_FOUND');
  });

  test('a key over 255 characters or with a NUL byte gets 400 INVALID_REQUEST', async () => {
    expectError(await get(licensePath('k'.repeat(256))), 400, 'INVALID_REQUEST');
    expectError(await get('/licenses/a%00b'), 400, 'INVALID_REQUEST');
  });

  test('a path that is not valid percent-encoding gets 400 INVALID_REQUEST', async () => {
    expectError(await get('/licenses/%E0%A4%A'), 400, 'INVALID_REQUEST');
  });
});

describe('licenses: PATCH /licenses/:key (spec 3.3)', () => {
  async function withActivations(limit: number, identifiers: string[]) {
    const license = await createLicense({ plan: { activation_limit: limit } });
    for (const identifier of identifiers) {
      const res = await post(`${licensePath(license.license_key)}/activations`, { identifier });
      expect(res.status).toBe(201);
    }
    return license.license_key;
  }

  test('a limit below the activations in use gets 409 ACTIVATION_LIMIT_TOO_LOW and changes nothing', async () => {
    const key = await withActivations(3, ['a.example', 'b.example']);
    const before = await detail(key);
    const res = await patch(licensePath(key), { activation_limit: 1, status: 'suspended' });
    expectError(res, 409, 'ACTIVATION_LIMIT_TOO_LOW');
    expect(res.body.error).toMatchObject({ activation_limit: 1, activations_used: 2 });
    expect(await detail(key)).toEqual(before);
  });

  test('a limit equal to the activations in use is accepted', async () => {
    const key = await withActivations(3, ['a.example', 'b.example']);
    const res = await patch(licensePath(key), { activation_limit: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ activation_limit: 2, activations_used: 2 });
  });

  test('a raised limit takes effect at once: a refused activation now succeeds', async () => {
    const key = await withActivations(1, ['a.example']);
    const refused = await system.post('activate', { license_key: key, identifier: 'b.example' });
    expect(refused.body.error.code).toBe('ACTIVATION_LIMIT_REACHED');
    const res = await patch(licensePath(key), { activation_limit: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data.activation_limit).toBe(2);
    const allowed = await system.post('activate', { license_key: key, identifier: 'b.example' });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data).toMatchObject({ activation_limit: 2, activations_used: 2 });
  });

  test('limit 0 means unlimited', async () => {
    const key = await withActivations(1, ['a.example']);
    expect((await patch(licensePath(key), { activation_limit: 0 })).status).toBe(200);
    for (const identifier of ['b.example', 'c.example', 'd.example']) {
      expect((await system.post('activate', { license_key: key, identifier })).status).toBe(200);
    }
    expect((await detail(key)).activations_used).toBe(4);
  });

  test('status changes take effect at once for the public API', async () => {
    const key = await withActivations(3, []);
    expect((await patch(licensePath(key), { status: 'suspended' })).body.data.status).toBe(
      'suspended',
    );
    const refused = await system.post('activate', { license_key: key, identifier: 'a.example' });
    expect(refused.body.error.code).toBe('LICENSE_INVALID');
    expect((await patch(licensePath(key), { status: 'active' })).status).toBe(200);
    expect(
      (await system.post('activate', { license_key: key, identifier: 'a.example' })).status,
    ).toBe(200);
  });

  test('expires_at can be set and cleared with null', async () => {
    const key = await withActivations(3, []);
    expect((await patch(licensePath(key), { expires_at: FUTURE })).body.data.expires_at).toBe(
      FUTURE,
    );
    expect((await patch(licensePath(key), { expires_at: null })).body.data.expires_at).toBeNull();
  });

  test('an empty patch, an unknown field or a bad value gets 400 and changes nothing', async () => {
    const key = await withActivations(3, []);
    const before = await detail(key);
    for (const body of [
      {},
      { plan_id: 1 },
      { activation_limit: -1 },
      { activation_limit: 2.5 },
      { status: 'paused' },
      { expires_at: 'soon' },
      { license_key: 'other' },
    ]) {
      expectError(await patch(licensePath(key), body), 400, 'INVALID_REQUEST');
    }
    expect(await detail(key)).toEqual(before);
  });

  test('an unknown key gets 404 NOT_FOUND', async () => {
    expectError(await patch('/licenses/no-such-key', { activation_limit: 5 }), 404, 'NOT_FOUND');
    expectError(await patch('/licenses/no-such-key', { status: 'active' }), 404, 'NOT_FOUND');
  });
});

describe('activations: admin Add (spec 3.2)', () => {
  const add = (key: string, body: unknown) => post(`${licensePath(key)}/activations`, body);

  test('the identifier is normalised like an API call, the IP is empty and 201 shows the license', async () => {
    const license = await createLicense();
    const res = await add(license.license_key, {
      identifier: 'https://WWW.Example.com:8080/path',
      name: 'Added by support',
    });
    expect(res.status).toBe(201);
    const shown = res.body.data as LicenseDetail;
    expect(shown.license_key).toBe(license.license_key);
    expect(shown.activations_used).toBe(1);
    expect(shown.activations).toEqual([
      {
        identifier: 'example.com',
        name: 'Added by support',
        ip: '',
        activated_at: expect.any(String),
        last_checkout_at: null,
        lease_expires_at: null,
        exempt: false,
      },
    ]);
  });

  test('a seat identifier is lowercased and the name is optional', async () => {
    const license = await createLicense({ plan: { activation_type: 'seat' } });
    const res = await add(license.license_key, { identifier: 'Jane.Doe@Example.COM' });
    expect(res.status).toBe(201);
    expect(res.body.data.activations[0]).toMatchObject({
      identifier: 'jane.doe@example.com',
      name: null,
    });
  });

  test('an added activation counts against the limit of the public API', async () => {
    const license = await createLicense({ plan: { activation_limit: 1 } });
    expect((await add(license.license_key, { identifier: 'a.example' })).status).toBe(201);
    const refused = await system.post('activate', {
      license_key: license.license_key,
      identifier: 'b.example',
    });
    expect(refused.body.error).toMatchObject({
      code: 'ACTIVATION_LIMIT_REACHED',
      activation_limit: 1,
      activations_used: 1,
    });
  });

  test('a suspended license refuses with 409 LICENSE_INVALID', async () => {
    const license = await createLicense({ license: { status: 'suspended' } });
    expectError(
      await add(license.license_key, { identifier: 'a.example' }),
      409,
      'LICENSE_INVALID',
    );
  });

  test('a license whose stored status is expired refuses with 409 LICENSE_INVALID (not active)', async () => {
    const license = await createLicense({ license: { status: 'expired', expires_at: PAST } });
    expectError(
      await add(license.license_key, { identifier: 'a.example' }),
      409,
      'LICENSE_INVALID',
    );
    const shown = await detail(license.license_key);
    expect(shown.activations_used).toBe(0);
    expect(shown.rejected_attempts).toEqual([
      expect.objectContaining({ identifier: 'a.example', reason: 'expired', source: 'admin' }),
    ]);
  });

  test('an expired license refuses with 409 LICENSE_EXPIRED', async () => {
    const license = await createLicense({ license: { expires_at: PAST } });
    expectError(
      await add(license.license_key, { identifier: 'a.example' }),
      409,
      'LICENSE_EXPIRED',
    );
  });

  test('a full license refuses with 409 ACTIVATION_LIMIT_REACHED', async () => {
    const license = await createLicense({ plan: { activation_limit: 1 } });
    expect((await add(license.license_key, { identifier: 'a.example' })).status).toBe(201);
    const res = await add(license.license_key, { identifier: 'b.example' });
    expectError(res, 409, 'ACTIVATION_LIMIT_REACHED');
    expect(res.body.error).toMatchObject({ activation_limit: 1, activations_used: 1 });
  });

  test('an identifier already present (after normalisation) refuses with 409 ACTIVATION_EXISTS', async () => {
    const license = await createLicense();
    expect((await add(license.license_key, { identifier: 'example.com' })).status).toBe(201);
    const res = await add(license.license_key, { identifier: 'http://www.EXAMPLE.com/' });
    expectError(res, 409, 'ACTIVATION_EXISTS');
    expect((await detail(license.license_key)).activations_used).toBe(1);
  });

  test('a refused Add is a rejected attempt with the reason the activate call gets, the name sent, and the admin as its source', async () => {
    const full = await createLicense({ plan: { activation_limit: 1 } });
    await add(full.license_key, { identifier: 'a.example' });
    expectError(
      await add(full.license_key, { identifier: 'b.example', name: 'Second shop' }),
      409,
      'ACTIVATION_LIMIT_REACHED',
    );
    expect((await detail(full.license_key)).rejected_attempts).toEqual([
      {
        identifier: 'b.example',
        name: 'Second shop',
        reason: 'limit_reached',
        source: 'admin',
        tries: 1,
        last_attempt_at: expect.any(String),
      },
    ]);
    const expired = await createLicense({ license: { expires_at: PAST } });
    expectError(
      await add(expired.license_key, { identifier: 'b.example' }),
      409,
      'LICENSE_EXPIRED',
    );
    expect((await detail(expired.license_key)).rejected_attempts).toEqual([
      expect.objectContaining({ identifier: 'b.example', reason: 'expired', source: 'admin' }),
    ]);
  });

  test('a domain that normalises to nothing gets 400 INVALID_REQUEST', async () => {
    const license = await createLicense();
    expectError(await add(license.license_key, { identifier: 'https://' }), 400, 'INVALID_REQUEST');
    expect((await detail(license.license_key)).activations_used).toBe(0);
  });

  test('a Unicode spelling is stored in the ASCII form and matches it (spec 2.4)', async () => {
    const license = await createLicense();
    const res = await add(license.license_key, { identifier: 'https://www.Bücher.de/' });
    expect(res.status).toBe(201);
    expect(res.body.data.activations.map((a: { identifier: string }) => a.identifier)).toEqual([
      'xn--bcher-kva.de',
    ]);
    expectError(
      await add(license.license_key, { identifier: 'xn--bcher-kva.de.' }),
      409,
      'ACTIVATION_EXISTS',
    );
  });

  test('a domain that is not a website gets 400 INVALID_REQUEST', async () => {
    const license = await createLicense();
    for (const identifier of ['..', 'javascript:alert(1)', '\u200bexample.com']) {
      expectError(await add(license.license_key, { identifier }), 400, 'INVALID_REQUEST');
    }
    expect((await detail(license.license_key)).activations_used).toBe(0);
  });

  test('an unknown key gets 404 NOT_FOUND', async () => {
    expectError(await add('no-such-key', { identifier: 'a.example' }), 404, 'NOT_FOUND');
  });

  test('a missing identifier or an unknown field gets 400', async () => {
    const license = await createLicense();
    for (const body of [{}, { name: 'x' }, { identifier: 'a.example', ip: '1.2.3.4' }]) {
      expectError(await add(license.license_key, body), 400, 'INVALID_REQUEST');
    }
  });
});

describe('activations: admin Remove (spec 3.2)', () => {
  const remove = (key: string, identifier: string) =>
    del(`${licensePath(key)}/activations/${encodeURIComponent(identifier)}`);

  test('removing frees the slot: a new public activation succeeds', async () => {
    const license = await createLicense({ plan: { activation_limit: 1 } });
    const key = license.license_key;
    expect(
      (await system.post('activate', { license_key: key, identifier: 'a.example' })).status,
    ).toBe(200);
    const res = await remove(key, 'a.example');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ license_key: key, activations_used: 0, activations: [] });
    expect(
      (await system.post('activate', { license_key: key, identifier: 'b.example' })).status,
    ).toBe(200);
  });

  test('the identifier is normalised like an API call', async () => {
    const license = await createLicense();
    const key = license.license_key;
    await system.post('activate', { license_key: key, identifier: 'example.com' });
    const res = await remove(key, 'https://WWW.Example.com:8080/path');
    expect(res.status).toBe(200);
    expect(res.body.data.activations_used).toBe(0);
  });

  test('an identifier that is not activated gets 404 ACTIVATION_NOT_FOUND', async () => {
    const license = await createLicense();
    expectError(await remove(license.license_key, 'never.example'), 404, 'ACTIVATION_NOT_FOUND');
  });

  test('an unknown key gets 404 NOT_FOUND', async () => {
    expectError(await remove('no-such-key', 'a.example'), 404, 'NOT_FOUND');
  });
});

describe('bad input gets the error envelope and changes nothing', () => {
  async function productTitles(): Promise<string[]> {
    return (await get('/products')).body.data.products.map((p: Product) => p.title);
  }

  test('malformed JSON gets 400 INVALID_REQUEST', async () => {
    const before = await productTitles();
    const res = await system
      .admin()
      .post(`${BASE}/products`)
      .set('Authorization', AUTH)
      .set('Content-Type', 'application/json')
      .send('{"title": "x",');
    expectError(res, 400, 'INVALID_REQUEST');
    expect(await productTitles()).toEqual(before);
  });

  test('a body that is not JSON, or no body at all, gets 400 INVALID_REQUEST', async () => {
    const before = await productTitles();
    const form = await system
      .admin()
      .post(`${BASE}/products`)
      .set('Authorization', AUTH)
      .type('form')
      .send('title=Form');
    expectError(form, 400, 'INVALID_REQUEST');
    const text = await system
      .admin()
      .post(`${BASE}/products`)
      .set('Authorization', AUTH)
      .set('Content-Type', 'text/plain')
      .send('{"title":"Text"}');
    expectError(text, 400, 'INVALID_REQUEST');
    const none = await system.admin().post(`${BASE}/products`).set('Authorization', AUTH);
    expectError(none, 400, 'INVALID_REQUEST');
    expect(await productTitles()).toEqual(before);
  });

  test('JSON that is not an object gets 400 INVALID_REQUEST', async () => {
    for (const body of ['[]', '"title"', 'null', '42']) {
      const res = await system
        .admin()
        .post(`${BASE}/plans`)
        .set('Authorization', AUTH)
        .set('Content-Type', 'application/json')
        .send(body);
      expectError(res, 400, 'INVALID_REQUEST');
    }
  });

  test('wrong types get 400 naming the field', async () => {
    for (const [body, field] of [
      [{ title: 5 }, 'title'],
      [{ title: 'x', requires_license: 'yes' }, 'requires_license'],
      [{ title: 'x', download_access: 'anyone' }, 'download_access'],
      [{ title: 'x', bundle_items: '1' }, 'bundle_items'],
      [{ title: 'x', bundle_items: [1, 'two'] }, 'bundle_items[1]'],
      [{ title: 'x', id: 1.5 }, 'id'],
      [{ title: 'x', id: 0 }, 'id'],
      [{ title: 'x', id: '7' }, 'id'],
      [{ title: null }, 'title'],
    ] as const) {
      const res = await post('/products', body);
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message.startsWith(`${field}: `)).toBe(true);
    }
  });

  test('an empty title gets "title: must not be empty"', async () => {
    const res = await post('/products', { title: '   ' });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toBe('title: must not be empty');
  });

  test('unknown fields get 400 naming them', async () => {
    const before = await productTitles();
    const res = await post('/products', { title: `Unknown ${unique()}`, colour: 'red' });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/colour/);
    const proto = await system
      .admin()
      .post(`${BASE}/products`)
      .set('Authorization', AUTH)
      .set('Content-Type', 'application/json')
      .send('{"title":"Proto","__proto__":{"requires_license":false}}');
    expectError(proto, 400, 'INVALID_REQUEST');
    expect(await productTitles()).toEqual(before);
  });

  test('strings over 255 characters get 400', async () => {
    const long = 'x'.repeat(256);
    expectError(await post('/products', { title: long }), 400, 'INVALID_REQUEST');
    expectError(
      await post('/plans', { name: long, activation_type: 'device', activation_limit: 1 }),
      400,
      'INVALID_REQUEST',
    );
    const license = await createLicense({ plan: { activation_type: 'device' } });
    const add = `${licensePath(license.license_key)}/activations`;
    expectError(await post(add, { identifier: long }), 400, 'INVALID_REQUEST');
    expectError(await post(add, { identifier: 'pc', name: long }), 400, 'INVALID_REQUEST');
    expectError(
      await post('/licenses', {
        license_key: long,
        product_id: license.product_id,
        plan_id: license.plan_id,
      }),
      400,
      'INVALID_REQUEST',
    );
    // 255 characters (not UTF-16 units) are fine: each emoji is one character.
    expect((await post(add, { identifier: '😀'.repeat(255) })).status).toBe(201);
    expect((await detail(license.license_key)).activations_used).toBe(1);
  });

  test('NUL bytes get 400', async () => {
    const before = await productTitles();
    expectError(await post('/products', { title: 'a\u0000b' }), 400, 'INVALID_REQUEST');
    expect(await productTitles()).toEqual(before);
    const license = await createLicense({ plan: { activation_type: 'device' } });
    const add = `${licensePath(license.license_key)}/activations`;
    expectError(await post(add, { identifier: 'pc\u0000' }), 400, 'INVALID_REQUEST');
    expect((await detail(license.license_key)).activations_used).toBe(0);
  });

  test('a path id that is not a positive integer gets 400', async () => {
    for (const id of ['abc', '1.5', '0', '-1', '1e3', '01', '9007199254740993', '%201']) {
      expectError(await get(`/products/${id}`), 400, 'INVALID_REQUEST');
      expectError(await get(`/plans/${id}`), 400, 'INVALID_REQUEST');
    }
    const product = await createProduct();
    expectError(await patch(`/products/${product.id}.0`, { title: 'x' }), 400, 'INVALID_REQUEST');
    expect((await get(`/products/${product.id}`)).body.data.title).toBe(product.title);
  });

  test('an oversized body gets 413 PAYLOAD_TOO_LARGE', async () => {
    const before = await productTitles();
    const res = await post('/products', { title: 'x', padding: 'y'.repeat(70 * 1024) });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(await productTitles()).toEqual(before);
  });

  test('a body that cannot be decompressed gets 400 INVALID_REQUEST', async () => {
    const res = await system
      .admin()
      .post(`${BASE}/products`)
      .set('Authorization', AUTH)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .send('{"title":"not gzip"}');
    expectError(res, 400, 'INVALID_REQUEST');
  });

  test('an unsupported charset gets 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await system
      .admin()
      .post(`${BASE}/products`)
      .set('Authorization', AUTH)
      .set('Content-Type', 'application/json; charset=iso-8859-1')
      .send('{"title":"x"}');
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('routing', () => {
  test('unknown routes get the 404 NOT_FOUND envelope', async () => {
    expectError(await system.admin().get('/nope'), 404, 'NOT_FOUND');
    expectError(await get('/nope'), 404, 'NOT_FOUND');
    expectError(await get('/licenses/some-key/nope'), 404, 'NOT_FOUND');
    expectError(await del('/products/1'), 404, 'NOT_FOUND');
    expectError(await system.admin().post('/admin/v2/products').send({}), 404, 'NOT_FOUND');
  });

  test('OPTIONS gets the 404 envelope, not a text list of methods', async () => {
    expectError(await system.admin().options('/healthz'), 404, 'NOT_FOUND');
    expectError(
      await system.admin().options(`${BASE}/products`).set('Authorization', AUTH),
      404,
      'NOT_FOUND',
    );
  });
});

describe('health', () => {
  test('GET /admin/v1/health answers ok with every service', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        status: 'ok',
        services: {
          license: { status: 'ok', uptime_seconds: expect.any(Number) },
          'update-catalog': { status: 'ok', uptime_seconds: expect.any(Number) },
          download: { status: 'ok', uptime_seconds: expect.any(Number) },
          webhooks: { status: 'ok', uptime_seconds: expect.any(Number) },
        },
      },
    });
  });

  test('a service that does not answer gives 503 SERVICE_UNAVAILABLE naming it', async () => {
    // A bus on which the download service never started; the others answer their health check.
    const bus = new InProcessBus();
    const logger = createLogger('management', 'silent');
    const health = (service: string) => async () => ({ service, status: 'ok', uptime_seconds: 1 });
    bus.register('license', { 'license.health': health('license') });
    bus.register('update-catalog', { 'update-catalog.health': health('update-catalog') });
    const transport = new InProcessTransport(bus, { timeoutMs: 10_000, logger });
    const app = managementApp(transport);
    const started = Date.now();
    const res = await request(app).get(`${BASE}/health`).set('Authorization', 'Bearer t');
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.body.error.message).toMatch(/download/);
    expect(res.body.error.message).not.toMatch(/license|update-catalog/);
    // The health check waits 2 s per service, not the transport's 10 s default.
    expect(Date.now() - started).toBeLessThan(5000);
    await transport.close();
  });
});

describe('signing keys (GET /admin/v1/signing-keys)', () => {
  const app = (signingKeys?: ReturnType<typeof signingKeysView>) =>
    managementApp(system.transport, { ...(signingKeys ? { signingKeys } : {}) });
  const shown = async (signingKeys?: ReturnType<typeof signingKeysView>) => {
    const res = await request(app(signingKeys))
      .get(`${BASE}/signing-keys`)
      .set('Authorization', 'Bearer t');
    expect(res.status).toBe(200);
    return res.body.data;
  };

  test('ids only, the signer first, and the key set at PUBLIC_URL', async () => {
    const rotated = parseSigningKeys(generateSigningKey() + generateSigningKey());
    if (typeof rotated === 'string') throw new Error(rotated);
    const keySet = await publishedKeySet(rotated);
    const data = await shown(signingKeysView(keySet, 'https://licensing.example.com/'));
    expect(data).toEqual({
      current_kid: keySet.keys[0]!.kid,
      kids: keySet.keys.map((key) => key.kid),
      key_set_url: 'https://licensing.example.com/api/index.php/v1/licensing/keys',
    });
    expect(JSON.stringify(data)).not.toContain(keySet.keys[0]!.x);
  });

  test('without PUBLIC_URL the path alone; without a key, none', async () => {
    const keys = parseSigningKeys(generateSigningKey());
    if (typeof keys === 'string') throw new Error(keys);
    const keySet = await publishedKeySet(keys);
    expect((await shown(signingKeysView(keySet, undefined))).key_set_url).toBe(
      '/api/index.php/v1/licensing/keys',
    );
    expect(await shown()).toEqual({
      current_kid: null,
      kids: [],
      key_set_url: '/api/index.php/v1/licensing/keys',
    });
  });
});
