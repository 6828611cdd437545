import request from 'supertest';
import { managementApp } from '../support/management-app.js';
import type { LicenseDetail, Product } from '../../libs/contracts/index.js';
import { ADMIN_TOKEN, unique } from '../support/system.js';
import {
  system,
  BASE,
  AUTH,
  expectError,
  createProduct,
  createPlan,
  get,
  post,
  patch,
} from '../support/management-api-setup.js';

/** The management API (/admin/v1): authentication, products and plans (spec 2.1). */

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
      // No updater settings until an admin gives them (docs/updaters.md).
      joomla: null,
      wordpress: null,
      // No trial until an admin names its plan (docs/api-decisions.md, "Trials").
      trial_plan_id: null,
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
      max_uses: null,
      uses_reset: 'never',
      trial_days: null,
      entitlements: [],
      expiry_strategy: 'revoke',
      grace_days: 0,
      renewal_basis: 'from_expiry',
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
