import request from 'supertest';
import { managementApp } from '../support/management-app.js';
import { generateSigningKey, parseSigningKeys } from '../../libs/config/index.js';
import type { Product } from '../../libs/contracts/index.js';
import { publishedKeySet } from '../../libs/http/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import { signingKeysView } from '../../services/management/operations/signing-keys.js';
import { unique } from '../support/system.js';
import {
  system,
  BASE,
  AUTH,
  licensePath,
  expectError,
  createProduct,
  createLicense,
  detail,
  get,
  post,
  patch,
  del,
} from '../support/management-api-setup.js';

/** The management API (/admin/v1): bad input, routing, health and the signing keys. */

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
          stores: { status: 'ok', uptime_seconds: expect.any(Number) },
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
    // A transport timeout far above the health check's own wait, so the two cannot be confused
    // however loaded the machine.
    const transport = new InProcessTransport(bus, { timeoutMs: 50_000, logger });
    const app = managementApp(transport);
    const started = Date.now();
    const res = await request(app).get(`${BASE}/health`).set('Authorization', 'Bearer t');
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.body.error.message).toMatch(/download/);
    expect(res.body.error.message).not.toMatch(/license|update-catalog/);
    // The health check waits 2 s per service, not the transport's timeout.
    expect(Date.now() - started).toBeLessThan(20_000);
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
