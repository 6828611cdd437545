import { readFileSync } from 'node:fs';
import { managementApp } from '../support/management-app.js';
import express from 'express';
import request from 'supertest';
import { createLogger } from '../../libs/logging/index.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import { publicOpenApi } from '../../services/gateway/openapi.js';
import { managementOpenApi } from '../../services/management/openapi.js';
import {
  checkedAgainst,
  documents,
  operations,
  undocumented,
  type Doc,
  type Method,
} from '../support/openapi-documents.js';
import { eventually } from '../support/eventually.js';
import { API_BASE, bootSystem, gatewayOn } from '../support/system.js';
import {
  feedOperationIds,
  storeEventOperationIds,
  storeOperationIds,
} from '../support/documented-calls.js';
import { AUTH, system, receiver, concrete, send } from '../support/openapi-system.js';

/**
 * Keeps both OpenAPI documents true: they are valid, they list exactly the routes the apps
 * register, and real responses match the schema documented for their path, method and status.
 */

// ---- Real responses against the documented schemas ----

const seen = new Set<string>();

/** Checks a real response against the document, and records that its status was seen. */
function expectDocumented(doc: Doc, method: Method, template: string, res: request.Response) {
  const where = `${method.toUpperCase()} ${template} -> ${res.status}`;
  expect(undocumented(doc, method, template, res)).toBeNull();
  seen.add(`${doc.info.title} ${where}`);
}

describe('(c) real responses match the documented schemas', () => {
  const pub = publicOpenApi as unknown as Doc;
  const mgmt = managementOpenApi as unknown as Doc;

  /** A public license operation; checks the status it expects, then the document. */
  async function publicCall(
    operation: 'activate' | 'validate' | 'deactivate' | 'checkout' | 'usage',
    status: number,
    fields: Record<string, string | number>,
  ) {
    const res = await system.post(operation, fields);
    expect([operation, res.status]).toEqual([operation, status]);
    expectDocumented(pub, 'post', `${API_BASE}/licenses/${operation}`, res);
    return res;
  }

  /** A public POST whose body is over the gateway's limit. */
  async function oversized(
    operation: 'activate' | 'validate' | 'deactivate' | 'checkout' | 'usage',
  ) {
    const path = `${API_BASE}/licenses/${operation}`;
    const res = await system
      .api()
      .post(path)
      .type('form')
      .send(`x=${'k'.repeat(20_000)}`);
    expect(res.status).toBe(413);
    expectDocumented(pub, 'post', path, res);
  }

  /** A management call; checks the status it expects, then the document. */
  async function admin(
    method: Method,
    template: string,
    status: number,
    options: {
      params?: Record<string, string | number>;
      body?: unknown;
      raw?: { type: string; text: string };
      auth?: string | null;
      /** A query string, without the `?`. */
      query?: string;
    } = {},
  ) {
    const path = concrete(template, options.params) + (options.query ? `?${options.query}` : '');
    let req = send(system.running.managementUrl, method, path);
    if (options.auth !== null) req = req.set('Authorization', options.auth ?? AUTH);
    if (options.raw) req = req.set('Content-Type', options.raw.type).send(options.raw.text);
    else if (options.body !== undefined) req = req.send(options.body as object);
    const res = await req;
    const where = `${method.toUpperCase()} ${template}`;
    expect([where, res.status, res.body]).toEqual([where, status, res.body]);
    expectDocumented(mgmt, method, template, res);
    return res;
  }

  const PRODUCTS = '/admin/v1/products';
  const PRODUCT = '/admin/v1/products/{id}';
  const PLANS = '/admin/v1/plans';
  const PLAN = '/admin/v1/plans/{id}';
  const LICENSES = '/admin/v1/licenses';
  const LICENSE = '/admin/v1/licenses/{key}';
  const ACTIVATIONS = '/admin/v1/licenses/{key}/activations';
  const ACTIVATION = '/admin/v1/licenses/{key}/activations/{identifier}';
  const VERSIONS = '/admin/v1/products/{id}/versions';
  const VERSION = '/admin/v1/versions/{id}';
  const FILE = '/admin/v1/files/{id}';
  const UNKNOWN = 987654321;

  /** The management app over the running system's transport, with a tiny upload limit. */
  function createManagementAppWithLimit(maxUploadBytes: number) {
    const app = managementApp(system.transport, { maxUploadBytes });
    return request(app);
  }

  let plans = 0;
  async function adminLicense(limit: number, extra: Record<string, unknown> = {}) {
    const product = (await admin('post', PRODUCTS, 201, { body: { title: 'Doc' } })).body.data;
    const plan = (
      await admin('post', PLANS, 201, {
        // Plan names are unique.
        body: { name: `Doc ${++plans}`, activation_type: 'domain', activation_limit: limit },
      })
    ).body.data;
    const license = await admin('post', LICENSES, 201, {
      body: { product_id: product.id, plan_id: plan.id, ...extra },
    });
    return license.body.data.license_key as string;
  }

  test('public activate: success, each refusal (with its extra fields) and 413', async () => {
    const { key, product } = await system.license({ activation_limit: 1 });
    await publicCall('activate', 200, { license_key: key, identifier: 'a.example' });
    const full = await publicCall('activate', 403, { license_key: key, identifier: 'b.example' });
    expect(full.body.error).toMatchObject({ activation_limit: 1, activations_used: 1 });
    await publicCall('activate', 400, { license_key: key });
    await publicCall('activate', 403, { license_key: 'nope', identifier: 'a.example' });
    await publicCall('activate', 403, {
      license_key: key,
      identifier: 'a.example',
      product_id: product.id + 1000,
    });
    const expired = await system.license({ expires_at: '2020-01-01T00:00:00.000Z' });
    await publicCall('activate', 403, { license_key: expired.key, identifier: 'a.example' });
    await oversized('activate');
  });

  test('public usage: success, each refusal (with its extra fields) and 413', async () => {
    const { key, product, plan } = await system.license({ activation_type: 'device' });
    const fields = { license_key: key, product_id: product.id };
    await publicCall('usage', 400, { ...fields, idempotency_key: 'no-usage-counted' });
    await system.transport.call('license.updatePlan', { id: plan.id, max_uses: 1 });
    await publicCall('usage', 200, { ...fields, idempotency_key: 'first' });
    const full = await publicCall('usage', 403, { ...fields, idempotency_key: 'second' });
    expect(full.body.error).toMatchObject({ uses: 1, max_uses: 1 });
    await publicCall('usage', 404, { ...fields, idempotency_key: 'third', identifier: 'pc' });
    await oversized('usage');
  });

  test('public checkout: a license file, each refusal and 413', async () => {
    const { key, product } = await system.license();
    await system.post('activate', { license_key: key, identifier: 'a.example' });
    const fields = { license_key: key, identifier: 'a.example', product_id: product.id };
    const file = await publicCall('checkout', 200, { ...fields, ttl: 60 });
    expect(file.body.data.license_file).toEqual(expect.any(String));
    await publicCall('checkout', 400, { ...fields, ttl: 0 });
    await publicCall('checkout', 403, { ...fields, product_id: product.id + 1000 });
    await publicCall('checkout', 404, { ...fields, identifier: 'b.example' });
    await oversized('checkout');
  });

  test('public license operations: a body in an unreadable Content-Encoding gets 415', async () => {
    for (const operation of ['activate', 'validate', 'deactivate'] as const) {
      const path = `${API_BASE}/licenses/${operation}`;
      const res = await system
        .api()
        .post(path)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .set('Content-Encoding', 'x-foo')
        .send('license_key=x&identifier=a.example');
      expect([operation, res.status, res.body.error?.code]).toEqual([
        operation,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ]);
      expectDocumented(pub, 'post', path, res);
    }
  });

  test('public license operations: the per-key and per-IP rate limits get 429', async () => {
    const limited = await bootSystem({
      RATE_LIMIT_PER_IP_PER_MINUTE: '3',
      RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR: '1',
    });
    try {
      const call = async (
        operation: 'activate' | 'validate' | 'deactivate',
        status: number,
        fields: Record<string, string>,
      ) => {
        const res = await limited.post(operation, fields);
        expect([operation, res.status]).toEqual([operation, status]);
        expectDocumented(pub, 'post', `${API_BASE}/licenses/${operation}`, res);
        return res;
      };
      const { key } = await limited.license();
      await call('activate', 200, { license_key: key, identifier: 'a.example' });
      // Spec 8: 20 activate calls per key per hour (1 here), before the per-IP limit (3 here).
      const perKey = await call('activate', 429, { license_key: key, identifier: 'a.example' });
      expect(perKey.body.error.code).toBe('RATE_LIMITED');
      await call('validate', 200, { license_key: key });
      for (const operation of ['activate', 'validate', 'deactivate'] as const) {
        const res = await call(operation, 429, { license_key: key, identifier: 'a.example' });
        expect(res.body.error.code).toBe('RATE_LIMITED');
      }
    } finally {
      await limited.stop();
    }
  });

  test('public validate: known key, unknown key (nulls), errors and 413', async () => {
    const { key, product } = await system.license();
    await publicCall('validate', 200, { license_key: key });
    await publicCall('validate', 200, { license_key: key, identifier: 'not-active.example' });
    await publicCall('validate', 200, { license_key: 'unknown-key' });
    await publicCall('validate', 400, {});
    await publicCall('validate', 403, { license_key: key, product_id: product.id + 1000 });
    await oversized('validate');
  });

  test('public deactivate: success, errors and 413', async () => {
    const { key } = await system.license();
    await system.post('activate', { license_key: key, identifier: 'a.example' });
    await publicCall('deactivate', 200, { license_key: key, identifier: 'a.example' });
    await publicCall('deactivate', 404, { license_key: key, identifier: 'a.example' });
    await publicCall('deactivate', 403, { license_key: 'nope', identifier: 'a.example' });
    await publicCall('deactivate', 400, { license_key: key });
    await oversized('deactivate');
  });

  test('public update check: both shapes, with and without license fields, and unusable input', async () => {
    const UPDATES = `${API_BASE}/updates/{product_id}`;
    const check = async (productId: string | number, query: string, status: number) => {
      const res = await system.api().get(`${API_BASE}/updates/${productId}${query}`);
      expect(res.status).toBe(status);
      expectDocumented(pub, 'get', UPDATES, res);
      return res;
    };
    const { key, product } = await system.license({ expires_at: '2020-01-01T00:00:00.000Z' });
    await check(product.id, '', 200);
    const version = await system.transport.call('update-catalog.createVersion', {
      product_id: product.id,
      version: '1.0.0',
    });
    await system.transport.call('update-catalog.addFile', {
      version_id: version.id,
      filename: 'doc.zip',
      size: 10,
      sha256: 'c'.repeat(64),
      content_type: 'application/zip',
      object_key: 'packages/doc.zip',
    });
    expect((await check(product.id, '', 200)).body.data.update_available).toBe(true);
    expect((await check(product.id, `?license_key=${key}`, 200)).body.data.license_status).toBe(
      'expired',
    );
    await check(UNKNOWN, '', 200);
    // Spec 4.4 errors are only 429 and 500: a path that names no product is answered too.
    expect((await check('abc', '', 200)).body.data.download_requires).toBeNull();
    await check(product.id, '?license_key=a&license_key=b', 200);
  });

  test('public download: the file, a range, and each refusal', async () => {
    const DOWNLOADS = `${API_BASE}/downloads/{product_id}`;
    const fetchFile = async (
      productId: string | number,
      query: string,
      status: number,
      headers: Record<string, string> = {},
    ) => {
      const res = await system
        .api()
        .get(`${API_BASE}/downloads/${productId}${query}`)
        .set({ Accept: 'application/json', ...headers })
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const body = Buffer.concat(chunks);
            const json = /^application\/json/.test(String(response.headers['content-type']));
            done(null, json ? JSON.parse(body.toString('utf8')) : body);
          });
        });
      expect([productId, query, res.status]).toEqual([productId, query, status]);
      expectDocumented(pub, 'get', DOWNLOADS, res);
      return res;
    };
    const product = await system.transport.call('update-catalog.createProduct', {
      title: 'Doc download',
      download_access: 'activated_identifier',
    });
    const { key } = await system.license({ product });
    const version = (
      await admin('post', VERSIONS, 201, { params: { id: product.id }, body: { version: '1.0' } })
    ).body.data;
    const upload = await system
      .admin()
      .post(`/admin/v1/versions/${version.id}/files`)
      .set('Authorization', AUTH)
      .attach('file', Buffer.from('package bytes'), 'doc.zip');
    expect(upload.status).toBe(201);
    expectDocumented(mgmt, 'post', '/admin/v1/versions/{id}/files', upload);

    await system.post('activate', { license_key: key, identifier: 'doc.example' });
    const query = `?dlid=${key}&identifier=doc.example`;
    const whole = await fetchFile(product.id, query, 200);
    expect(Buffer.isBuffer(whole.body) && whole.body.toString()).toBe('package bytes');
    await fetchFile(product.id, query, 206, { Range: 'bytes=8-' });
    await fetchFile(product.id, query, 416, { Range: 'bytes=100-' });
    await fetchFile(product.id, `?dlid=${key}`, 403);
    await fetchFile(product.id, `?dlid=${key}&identifier=other.example`, 404);
    await fetchFile('abc', '', 400);

    // DOWNLOAD_DELIVERY=redirect: a gateway of its own on the same services.
    const redirecting = await gatewayOn(system.transport, { downloadDelivery: 'redirect' });
    const redirected = await request(redirecting).get(
      `${API_BASE}/downloads/${product.id}${query}`,
    );
    expect(redirected.status).toBe(302);
    expectDocumented(pub, 'get', DOWNLOADS, redirected);

    // The file a feed lists, by its id and name (docs/updaters.md): the same answers.
    const PINNED = `${API_BASE}/downloads/{product_id}/files/{file_id}/{filename}`;
    const pinned = `${API_BASE}/downloads/${product.id}/files/${upload.body.data.id}/doc.zip`;
    for (const [headers, status] of [
      [{}, 200],
      [{ Range: 'bytes=8-' }, 206],
    ] as const) {
      const res = await system.api().get(`${pinned}${query}`).set(headers).buffer(true);
      expect(res.status).toBe(status);
      expectDocumented(pub, 'get', PINNED, res);
    }
    const pinnedRedirect = await request(redirecting).get(`${pinned}${query}`);
    expect(pinnedRedirect.status).toBe(302);
    expectDocumented(pub, 'get', PINNED, pinnedRedirect);
  });

  test('admin versions, files and the download log: successes and errors', async () => {
    const product = (await admin('post', PRODUCTS, 201, { body: { title: 'Versions' } })).body.data;
    const params = { id: product.id };
    const version = (
      await admin('post', VERSIONS, 201, { params, body: { version: '2.0', published: false } })
    ).body.data;
    await admin('post', VERSIONS, 400, { params, body: { version: '' } });
    await admin('post', VERSIONS, 404, { params: { id: UNKNOWN }, body: { version: '1' } });
    await admin('get', VERSIONS, 200, { params });
    await admin('get', '/admin/v1/products/{id}/offers', 200, { params });
    await admin('get', '/admin/v1/products/{id}/offers', 404, { params: { id: UNKNOWN } });
    await admin('get', VERSIONS, 404, { params: { id: UNKNOWN } });
    await admin('get', VERSION, 200, { params: { id: version.id } });
    await admin('get', VERSION, 404, { params: { id: UNKNOWN } });
    await admin('patch', VERSION, 200, { params: { id: version.id }, body: { published: true } });
    await admin('patch', VERSION, 400, { params: { id: version.id }, body: {} });
    await admin('patch', VERSION, 404, { params: { id: UNKNOWN }, body: { published: true } });

    const FILES = '/admin/v1/versions/{id}/files';
    await admin('post', FILES, 400, { params: { id: version.id }, body: {} });
    const noVersion = await system
      .admin()
      .post(`/admin/v1/versions/${UNKNOWN}/files`)
      .set('Authorization', AUTH)
      .attach('file', Buffer.from('x'), 'x.zip');
    expect(noVersion.status).toBe(404);
    expectDocumented(mgmt, 'post', FILES, noVersion);
    const tooBig = await createManagementAppWithLimit(4)
      .post(`/admin/v1/versions/${version.id}/files`)
      .set('Authorization', 'Bearer t')
      .attach('file', Buffer.from('12345'), 'big.zip');
    expect(tooBig.status).toBe(413);
    expectDocumented(mgmt, 'post', FILES, tooBig);
    const uploaded = await system
      .admin()
      .post(`/admin/v1/versions/${version.id}/files`)
      .set('Authorization', AUTH)
      .attach('file', Buffer.from('abc'), 'v.zip');
    const file = uploaded.body.data;
    await admin('patch', FILE, 200, {
      params: { id: file.id },
      body: { include_in_updates: false },
    });
    await admin('patch', FILE, 400, { params: { id: file.id }, body: {} });
    await admin('patch', FILE, 404, { params: { id: UNKNOWN }, body: { plan_id: null } });
    await admin('delete', FILE, 200, { params: { id: file.id } });
    await admin('delete', FILE, 404, { params: { id: file.id } });
    await admin('delete', FILE, 400, { params: { id: 'x' } });

    await system.api().get(`${API_BASE}/downloads/${product.id}`);
    const LOG = '/admin/v1/download-log';
    const log = await admin('get', LOG, 200);
    expect(log.body.data.entries.length).toBeGreaterThan(0);
    const bad = await system.admin().get(`${LOG}?refused=maybe`).set('Authorization', AUTH);
    expect(bad.status).toBe(400);
    expectDocumented(mgmt, 'get', LOG, bad);
    await admin('get', LOG, 401, { auth: null });

    const OVERVIEW = '/admin/v1/overview';
    const overview = await admin('get', OVERVIEW, 200, {
      query: `product_id=${product.id}&days=90`,
    });
    expect(overview.body.data.series).toHaveLength(90);
    await admin('get', OVERVIEW, 400, { query: 'days=7' });
    await admin('get', OVERVIEW, 401, { auth: null });
  });

  test('GET / on the public port: a JSON index naming the software, its version and the way on', async () => {
    const res = await system.api().get('/');
    expect(res.status).toBe(200);
    expectDocumented(pub, 'get', '/', res);
    const { name, version } = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { name: string; version: string };
    expect(res.body).toEqual({
      data: { name, version, links: { docs: '/docs', portal: '/portal', api: API_BASE } },
    });
    // Each link leads somewhere.
    expect((await system.api().get('/docs')).status).toBe(200);
    expect((await system.api().get('/portal')).status).toBe(200);
  });

  test('public liveness and readiness, the document itself and its reference page', async () => {
    expectDocumented(pub, 'get', '/healthz', await system.api().get('/healthz'));
    const ready = await system.api().get('/readyz');
    expect(ready.status).toBe(200);
    expectDocumented(pub, 'get', '/readyz', ready);
    expectDocumented(pub, 'get', '/docs', await system.api().get('/docs'));
    expectDocumented(pub, 'get', '/portal', await system.api().get('/portal'));
    const keys = await system.api().get(`${API_BASE}/keys`);
    expect(keys.body.keys).toHaveLength(1);
    expectDocumented(pub, 'get', `${API_BASE}/keys`, keys);
    const doc = await system.api().get('/openapi.json');
    expectDocumented(pub, 'get', '/openapi.json', doc);
    expect(doc.body).toEqual(JSON.parse(JSON.stringify(publicOpenApi)));
  });

  test('admin products: successes and errors', async () => {
    const { id } = (await admin('post', PRODUCTS, 201, { body: { title: 'P' } })).body.data;
    await admin('post', PRODUCTS, 201, { body: { title: 'Bundle', bundle_items: [id] } });
    await admin('post', PRODUCTS, 409, { body: { id, title: 'Duplicate' } });
    await admin('post', PRODUCTS, 400, { body: { title: '' } });
    await admin('post', PRODUCTS, 413, { body: { title: 'x', pad: 'p'.repeat(70_000) } });
    await admin('post', PRODUCTS, 415, {
      raw: { type: 'application/json; charset=iso-8859-1', text: '{"title":"x"}' },
    });
    await admin('post', PRODUCTS, 401, { body: { title: 'x' }, auth: null });
    await admin('get', PRODUCTS, 200);
    await admin('get', PRODUCTS, 401, { auth: 'Bearer wrong' });
    await admin('get', PRODUCT, 200, { params: { id } });
    await admin('get', PRODUCT, 400, { params: { id: 'x' } });
    await admin('get', PRODUCT, 404, { params: { id: UNKNOWN } });
    await admin('patch', PRODUCT, 200, { params: { id }, body: { title: 'New' } });
    await admin('patch', PRODUCT, 400, { params: { id }, body: {} });
    await admin('patch', PRODUCT, 404, { params: { id: UNKNOWN }, body: { title: 'x' } });
  });

  test('admin plans: successes and errors', async () => {
    const body = { name: 'Doc plan', activation_type: 'device', activation_limit: 2 };
    const { id } = (await admin('post', PLANS, 201, { body })).body.data;
    await admin('post', PLANS, 409, { body: { ...body, name: 'Another doc plan', id } });
    // A name another plan has, in another case.
    await admin('post', PLANS, 409, { body: { ...body, name: 'DOC PLAN' } });
    await admin('post', PLANS, 400, { body: { name: 'x' } });
    await admin('get', PLANS, 200);
    await admin('get', PLAN, 200, { params: { id } });
    await admin('get', PLAN, 400, { params: { id: '0' } });
    await admin('get', PLAN, 404, { params: { id: UNKNOWN } });
    await admin('patch', PLAN, 200, {
      params: { id },
      body: { lease_seconds: 3600, exempt_identifiers: ['ci-agent.*'] },
    });
    await admin('patch', PLAN, 400, { params: { id }, body: { exempt_identifiers: ['*'] } });
    await admin('patch', PLAN, 400, { params: { id }, body: {} });
    await admin('patch', PLAN, 404, { params: { id: UNKNOWN }, body: { name: 'x' } });
  });

  test('trials: one started (201), each refusal, and the admin list', async () => {
    const plan = (
      await admin('post', PLANS, 201, {
        body: { name: 'Doc trial', activation_type: 'domain', activation_limit: 1, trial_days: 7 },
      })
    ).body.data;
    const product = (
      await admin('post', PRODUCTS, 201, { body: { title: 'Tried', trial_plan_id: plan.id } })
    ).body.data;
    const path = `${API_BASE}/trials`;
    const trial = async (status: number, fields: Record<string, string | number>) => {
      const res = await system
        .api()
        .post(path)
        .type('form')
        .send(
          new URLSearchParams(
            Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
          ).toString(),
        );
      expect([fields, res.status]).toEqual([fields, status]);
      expectDocumented(pub, 'post', path, res);
    };
    await trial(201, { product_id: product.id, identifier: 'doc.example' });
    await trial(409, { product_id: product.id, identifier: 'www.doc.example' });
    await trial(403, { product_id: UNKNOWN, identifier: 'doc.example' });
    await trial(400, { product_id: product.id });
    await admin('get', '/admin/v1/trials', 200, { query: `product_id=${product.id}` });
    await admin('get', '/admin/v1/trials', 400, { query: 'converted=maybe' });
  });

  test('admin entitlements, a plan granting one and a license carrying its own', async () => {
    const [ENTITLEMENTS, ENTITLEMENT] = ['/admin/v1/entitlements', '/admin/v1/entitlements/{code}'];
    const code = 'doc-pro';
    await admin('post', ENTITLEMENTS, 201, { body: { code, name: 'Pro' } });
    await admin('post', ENTITLEMENTS, 409, { body: { code, name: 'Pro' } });
    await admin('post', ENTITLEMENTS, 400, { body: { code: 'Doc Pro', name: 'Pro' } });
    await admin('get', ENTITLEMENTS, 200);
    await admin('get', ENTITLEMENT, 200, { params: { code } });
    await admin('get', ENTITLEMENT, 404, { params: { code: 'doc-none' } });
    await admin('patch', ENTITLEMENT, 200, { params: { code }, body: { name: 'Pro plus' } });
    const key = await adminLicense(1);
    const own = `${LICENSE}/entitlements`;
    await admin('post', own, 200, { params: { key }, body: { code, expires_at: null } });
    await admin('post', own, 400, { params: { key }, body: { code: 'doc-none' } });
    await admin('post', own, 404, { params: { key: 'doc-no-key' }, body: { code } });
    await admin('delete', ENTITLEMENT, 409, { params: { code } });
    await admin('delete', `${own}/{code}`, 200, { params: { key, code } });
    await admin('delete', `${own}/{code}`, 404, { params: { key, code } });
    await admin('delete', ENTITLEMENT, 200, { params: { code } });
    await admin('delete', ENTITLEMENT, 404, { params: { code } });
  });

  test('admin licenses: create, detail with activations and rejected attempts, patch', async () => {
    const key = await adminLicense(1, { expires_at: '2099-01-01T00:00:00Z' });
    const { product_id, plan_id } = (await admin('get', LICENSE, 200, { params: { key } })).body
      .data;
    await admin('post', LICENSES, 409, { body: { license_key: key, product_id, plan_id } });
    await admin('post', LICENSES, 400, { body: { product_id, plan_id: UNKNOWN } });

    await system.post('validate', { license_key: key });
    await system.post('activate', { license_key: key, identifier: 'a.example' });
    await system.post('activate', { license_key: key, identifier: 'b.example' }); // refused
    const shown = await admin('get', LICENSE, 200, { params: { key } });
    expect(shown.body.data.activations).toHaveLength(1);
    expect(shown.body.data.rejected_attempts).toHaveLength(1);
    expect(shown.body.data.last_check_at).toEqual(expect.any(String));
    await admin('get', LICENSE, 404, { params: { key: 'nope' } });
    await admin('get', LICENSE, 400, { params: { key: 'k'.repeat(256) } });

    await admin('patch', LICENSE, 200, { params: { key }, body: { activation_limit: 0 } });
    await admin('post', ACTIVATIONS, 201, { params: { key }, body: { identifier: 'b.example' } });
    const tooLow = await admin('patch', LICENSE, 409, {
      params: { key },
      body: { activation_limit: 1 },
    });
    expect(tooLow.body.error).toMatchObject({ activation_limit: 1, activations_used: 2 });
    await admin('patch', LICENSE, 400, { params: { key }, body: {} });
    await admin('patch', LICENSE, 404, { params: { key: 'nope' }, body: { status: 'active' } });
    await admin('patch', LICENSE, 200, {
      params: { key },
      body: { customer: { email: 'doc@example.com', name: 'Doc' }, metadata: { order_id: 'D-1' } },
    });
  });

  test('admin lists: sorted searches, CSV exports and bulk changes', async () => {
    const key = await adminLicense(1, { customer: { email: 'csv@example.com' } });
    await admin('get', LICENSES, 200, { query: 'sort=-expires_at&q=csv%40example.com' });
    await admin('get', LICENSES, 400, { query: 'sort=product_id' });
    const EXPORT = '/admin/v1/exports/licenses';
    const csv = await admin('get', EXPORT, 200, { query: 'q=csv%40example.com' });
    expect(csv.text).toContain(key);
    await admin('get', EXPORT, 400, { query: 'sort=nope' });
    await admin('get', EXPORT, 401, { auth: null });
    const LOG_EXPORT = '/admin/v1/exports/download-log';
    await admin('get', LOG_EXPORT, 200, { query: 'refused=true&sort=license_key' });
    await admin('get', LOG_EXPORT, 400, { query: 'from=yesterday' });
    const BULK = '/admin/v1/licenses/bulk-changes';
    const changed = await admin('post', BULK, 200, {
      body: { action: 'extend_expiry', days: 7, license_keys: [key, 'nope'] },
    });
    expect(changed.body.data).toMatchObject({ succeeded: 0, failed: 2 });
    await admin('post', BULK, 400, { body: { action: 'set_status', license_keys: [key] } });
  });

  test('admin Add and Remove activation: successes and every refusal', async () => {
    const key = await adminLicense(1);
    const params = { key };
    await admin('post', ACTIVATIONS, 201, { params, body: { identifier: 'a.example' } });
    await admin('post', ACTIVATIONS, 409, { params, body: { identifier: 'a.example' } });
    const full = await admin('post', ACTIVATIONS, 409, {
      params,
      body: { identifier: 'b.example' },
    });
    expect(full.body.error).toMatchObject({
      code: 'ACTIVATION_LIMIT_REACHED',
      activation_limit: 1,
    });
    await admin('post', ACTIVATIONS, 400, { params, body: { identifier: 'https://' } });
    await admin('post', ACTIVATIONS, 404, {
      params: { key: 'nope' },
      body: { identifier: 'a.example' },
    });
    const suspended = await adminLicense(1, { status: 'suspended' });
    await admin('post', ACTIVATIONS, 409, {
      params: { key: suspended },
      body: { identifier: 'a.example' },
    });

    const listed = await admin('get', ACTIVATIONS, 200, {
      params,
      query: 'per_page=1&q=A.example',
    });
    expect(listed.body.data).toMatchObject({ total: 1, page: 1, per_page: 1 });
    await admin('get', ACTIVATIONS, 400, { params, query: 'per_page=0' });
    await admin('get', ACTIVATIONS, 400, { params, query: 'unknown=1' });
    await admin('get', ACTIVATIONS, 404, { params: { key: 'nope' } });

    await admin('delete', ACTIVATION, 200, { params: { key, identifier: 'a.example' } });
    await admin('delete', ACTIVATION, 404, { params: { key, identifier: 'a.example' } });
    await admin('delete', ACTIVATION, 404, { params: { key: 'nope', identifier: 'a.example' } });
    await admin('delete', ACTIVATION, 400, { params: { key, identifier: 'x'.repeat(256) } });
  });

  test('admins, their tokens, the signed-in admin and the audit log: successes and errors', async () => {
    const ADMINS = '/admin/v1/admins';
    const ADMIN = '/admin/v1/admins/{id}';
    const TOKENS = '/admin/v1/admins/{id}/tokens';
    const TOKEN = '/admin/v1/admins/{id}/tokens/{token_id}';
    await admin('get', '/admin/v1/me', 200);
    await admin('get', '/admin/v1/me', 401, { auth: null });
    const owner = (await admin('post', ADMINS, 201, { body: { name: 'Doc', role: 'owner' } })).body
      .data;
    const viewer = (await admin('post', ADMINS, 201, { body: { name: 'View', role: 'viewer' } }))
      .body.data;
    await admin('post', ADMINS, 400, { body: { name: 'Doc', role: 'boss' } });
    await admin('post', ADMINS, 403, {
      body: { name: 'X', role: 'owner' },
      auth: `Bearer ${viewer.token}`,
    });
    await admin('get', ADMINS, 200);
    await admin('get', ADMINS, 403, { auth: `Bearer ${viewer.token}` });
    await admin('get', ADMIN, 200, { params: { id: owner.id } });
    await admin('get', ADMIN, 404, { params: { id: UNKNOWN } });
    await admin('patch', ADMIN, 200, { params: { id: viewer.id }, body: { name: 'Vera' } });
    await admin('patch', ADMIN, 409, { params: { id: owner.id }, body: { role: 'viewer' } });
    await admin('patch', ADMIN, 404, { params: { id: UNKNOWN }, body: { name: 'None' } });
    const token = (await admin('post', TOKENS, 201, { params: { id: viewer.id } })).body.data;
    await admin('post', TOKENS, 404, { params: { id: UNKNOWN } });
    await admin('delete', TOKEN, 200, { params: { id: viewer.id, token_id: token.id } });
    await admin('delete', TOKEN, 404, { params: { id: viewer.id, token_id: token.id } });
    await admin('delete', TOKEN, 400, { params: { id: viewer.id, token_id: 'nope' } });
    await admin('delete', ADMIN, 409, { params: { id: owner.id } });
    await admin('delete', ADMIN, 200, { params: { id: viewer.id } });
    await admin('delete', ADMIN, 404, { params: { id: viewer.id } });
    await admin('get', '/admin/v1/audit-log', 200, { query: 'action=createAdmin&per_page=5' });
    await admin('get', '/admin/v1/audit-log', 400, { query: 'from=soon' });
    await admin('get', '/admin/v1/audit-log.csv', 200, { query: 'action=createAdmin' });
    await admin('get', '/admin/v1/audit-log.csv', 400, { query: 'admin=me' });
  });

  test('admin signing keys: the kids of the key set the gateway publishes, and its address', async () => {
    const shown = await admin('get', '/admin/v1/signing-keys', 200);
    const published = await system.api().get(`${API_BASE}/keys`);
    expect(shown.body.data).toEqual({
      current_kid: published.body.keys[0].kid,
      kids: [published.body.keys[0].kid],
      key_set_url: `${system.running.gatewayUrl}${API_BASE}/keys`,
    });
    await admin('get', '/admin/v1/signing-keys', 401, { auth: null });
  });

  test('admin webhooks: endpoints, a secret rotation, a test event, deliveries and a retry', async () => {
    const WEBHOOKS = '/admin/v1/webhooks';
    const WEBHOOK = '/admin/v1/webhooks/{id}';
    const RETRY = '/admin/v1/webhooks/{id}/deliveries/{delivery_id}/retry';
    const created = await admin('post', WEBHOOKS, 201, {
      body: { url: receiver.url, events: ['*'], description: 'Doc' },
    });
    const id = created.body.data.id as number;
    await admin('post', WEBHOOKS, 400, { body: { url: 'ftp://hooks.example/', events: ['*'] } });
    await admin('get', WEBHOOKS, 200);
    await admin('get', WEBHOOK, 200, { params: { id } });
    await admin('get', WEBHOOK, 404, { params: { id: UNKNOWN } });
    await admin('get', WEBHOOK, 400, { params: { id: 'x' } });
    await admin('patch', WEBHOOK, 200, { params: { id }, body: { events: ['license.created'] } });
    await admin('patch', WEBHOOK, 400, { params: { id }, body: {} });
    await admin('patch', WEBHOOK, 404, { params: { id: UNKNOWN }, body: { enabled: true } });
    await admin('post', `${WEBHOOK}/secret`, 200, { params: { id } });
    await admin('post', `${WEBHOOK}/secret`, 404, { params: { id: UNKNOWN } });
    const queued = await admin('post', `${WEBHOOK}/test`, 202, { params: { id } });
    await admin('post', `${WEBHOOK}/test`, 404, { params: { id: UNKNOWN } });
    await admin('get', `${WEBHOOK}/deliveries`, 200, { params: { id }, query: 'per_page=10' });
    await admin('get', `${WEBHOOK}/deliveries`, 400, { params: { id }, query: 'status=lost' });
    await admin('get', `${WEBHOOK}/deliveries`, 404, { params: { id: UNKNOWN } });
    const delivery_id = queued.body.data.id as string;
    // Retried once its attempt is listed: during an attempt a retry is refused (409).
    await eventually('the test delivery has been attempted', async () => {
      const listed = await system
        .admin()
        .get(`/admin/v1/webhooks/${id}/deliveries`)
        .set('Authorization', AUTH);
      const deliveries = listed.body.data.deliveries as Array<{ id: string; attempts: unknown[] }>;
      return (deliveries.find((d) => d.id === delivery_id)?.attempts.length ?? 0) > 0;
    });
    await admin('post', RETRY, 200, { params: { id, delivery_id } });
    await admin('post', RETRY, 404, { params: { id, delivery_id: 'msg_unknown' } });
    await admin('post', RETRY, 400, { params: { id, delivery_id: 'unknown' } });
    await admin('delete', WEBHOOK, 200, { params: { id } });
    await admin('delete', WEBHOOK, 404, { params: { id } });
  });

  test('admin health (200 and 503), liveness and the document itself', async () => {
    await admin('get', '/admin/v1/health', 200);
    await admin('get', '/admin/v1/health', 401, { auth: null });
    await admin('get', '/healthz', 200, { auth: null });
    await admin('get', '/readyz', 200, { auth: null });
    await admin('get', '/docs', 200, { auth: null });
    await admin('get', '/', 200, { auth: null });
    const doc = await admin('get', '/openapi.json', 200, { auth: null });
    expect(doc.body).toEqual(JSON.parse(JSON.stringify(managementOpenApi)));

    // 503: a bus on which only the license service answers.
    const bus = new InProcessBus();
    const logger = createLogger('openapi-test', 'silent');
    bus.register('license', {
      'license.health': async () => ({ service: 'license', status: 'ok', uptime_seconds: 1 }),
    });
    const transport = new InProcessTransport(bus, { timeoutMs: 5000, logger });
    const app = managementApp(transport);
    const res = await request(app).get('/admin/v1/health').set('Authorization', 'Bearer t');
    expect(res.status).toBe(503);
    expectDocumented(mgmt, 'get', '/admin/v1/health', res);
    await transport.close();
    // Not ready: the message bus is closed.
    const notReady = await request(app).get('/readyz');
    expect(notReady.status).toBe(503);
    expectDocumented(mgmt, 'get', '/readyz', notReady);
  });

  test('license lifecycle: search, plan change, renewal, jobs, and the portal', async () => {
    const key = await adminLicense(2);
    await admin('get', LICENSES, 200);
    await admin('get', LICENSES, 400, { query: 'page=0' });
    const plan = (
      await admin('post', PLANS, 201, {
        body: { name: 'Lifecycle', activation_type: 'domain', activation_limit: 1 },
      })
    ).body.data;
    await admin('post', `${LICENSE}/plan-change`, 200, {
      params: { key },
      body: { plan_id: plan.id, when: 'renewal' },
    });
    await admin('post', `${LICENSE}/plan-change`, 404, {
      params: { key },
      body: { plan_id: UNKNOWN, when: 'now' },
    });
    const devices = (
      await admin('post', PLANS, 201, {
        body: { name: 'Lifecycle devices', activation_type: 'device', activation_limit: 1 },
      })
    ).body.data;
    await admin('post', `${LICENSE}/plan-change`, 409, {
      params: { key },
      body: { plan_id: devices.id, when: 'now' },
    });
    await admin('post', `${LICENSE}/renewals`, 200, {
      params: { key },
      body: { expires_at: '2099-01-01T00:00:00Z', source: 'checkout' },
    });
    await admin('post', `${LICENSE}/renewals`, 400, {
      params: { key },
      body: { expires_at: '2020-01-01T00:00:00Z', source: 'checkout' },
    });
    await admin('get', `${LICENSE}/usage`, 200, { params: { key } });
    await admin('get', `${LICENSE}/usage`, 404, { params: { key: 'no-such-license' } });
    await admin('post', `${LICENSE}/usage/reset`, 200, { params: { key } });
    await admin('post', `${LICENSE}/usage/reset`, 404, { params: { key: 'no-such-license' } });
    const revoked = await adminLicense(1, { status: 'revoked' });
    await admin('post', `${LICENSE}/renewals`, 409, {
      params: { key: revoked },
      body: { expires_at: '2099-01-01T00:00:00Z', source: 'gateway' },
    });
    await admin('get', '/admin/v1/jobs', 200);
    await admin('post', '/admin/v1/jobs/{name}', 200, { params: { name: 'license-expiry' } });
    await admin('post', '/admin/v1/jobs/{name}', 404, { params: { name: 'nothing' } });

    const PORTAL = `${API_BASE}/portal/license`;
    const portal = async (fields: Record<string, string>, status: number) => {
      const res = await system.api().post(PORTAL).type('form').send(fields);
      expect(res.status).toBe(status);
      expectDocumented(pub, 'post', PORTAL, res);
    };
    await portal({ license_key: key }, 200);
    await portal({ license_key: 'no-such-key' }, 403);
    await portal({}, 400);
  });

  test('every answer the integration tests get is checked: an undocumented one fails', async () => {
    const app = express();
    app.get('/things/:id', (req, res) => {
      if (req.params.id === '1') res.json({ data: { id: 1 } });
      else if (req.params.id === '2') res.json({ data: { id: 'two' } });
      else res.status(418).json({ error: { code: 'TEAPOT', message: 'no' } });
    });
    const doc = {
      openapi: '3.1.0',
      info: { title: 'Things', version: '1' },
      paths: {
        '/things/{id}': {
          get: {
            responses: {
              '200': {
                description: 'A thing.',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: {
                        data: {
                          type: 'object',
                          properties: { id: { type: 'integer' } },
                          required: ['id'],
                        },
                      },
                      required: ['data'],
                    },
                  },
                },
              },
            },
          },
        },
      },
    } as Doc;
    const checked = checkedAgainst(doc, request(app));
    expect((await checked.get('/things/1')).status).toBe(200);
    await expect(checked.get('/things/2')).rejects.toThrow(/Not as documented: .*-> 200/);
    await expect(checked.get('/things/3')).rejects.toThrow(/418: this status is not documented/);
    expect((await checked.get('/other')).status).toBe(404);
  });

  test('every documented success response was seen in a real call above', () => {
    for (const { doc } of documents) {
      // The updater feeds', the store events' and the stores admin routes' files check theirs
      // (test/support/documented-calls.ts).
      const elsewhere = (op: { operationId?: string }) =>
        (
          [
            ...feedOperationIds,
            ...storeEventOperationIds,
            ...storeOperationIds,
          ] as readonly string[]
        ).includes(op.operationId ?? '');
      for (const { path, method, op } of operations(doc).filter(({ op }) => !elsewhere(op))) {
        for (const status of Object.keys(op.responses).filter((s) => s.startsWith('2'))) {
          expect(seen).toContain(`${doc.info.title} ${method.toUpperCase()} ${path} -> ${status}`);
        }
      }
    }
  });
});
