import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const detail = (key: string) => system.transport.call('license.getLicense', { license_key: key });

function expectEnvelope(
  res: { status: number; headers: Record<string, string>; body: unknown; text: string },
  status: number,
  code: string,
) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({ error: { code, message: expect.any(String) } });
  expect(res.text).not.toMatch(/<html|at .*\.ts:\d+/i);
}

describe('spec 1 and 7: bad input gets a clear error in the envelope and changes nothing', () => {
  test('a body that is not form-encoded is refused', async () => {
    const { key } = await system.license();
    const res = await system
      .api()
      .post(`${API_BASE}/licenses/activate`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ license_key: key, identifier: 'a.com' }));
    expectEnvelope(res, 400, 'INVALID_REQUEST');
    expect((await detail(key)).activations_used).toBe(0);
  });

  test('a repeated field is refused', async () => {
    const { key } = await system.license();
    const res = await system
      .api()
      .post(`${API_BASE}/licenses/activate`)
      .type('form')
      .send(`license_key=${key}&identifier=a.com&identifier=b.com`);
    expectEnvelope(res, 400, 'INVALID_REQUEST');
    expect((await detail(key)).activations_used).toBe(0);
  });

  test('bracket syntax never reaches a query as an object', async () => {
    const { key } = await system.license();
    await system.post('activate', { license_key: key, identifier: 'a.com' });
    for (const operation of ['activate', 'validate', 'deactivate']) {
      const res = await system
        .api()
        .post(`${API_BASE}/licenses/${operation}`)
        .type('form')
        .send('license_key[$ne]=x&identifier=a.com');
      expectEnvelope(res, 400, 'INVALID_REQUEST');
    }
    const nested = await system
      .api()
      .post(`${API_BASE}/licenses/validate`)
      .type('form')
      .send(`license_key=${key}&identifier[$gt]=`);
    expectEnvelope(nested, 400, 'INVALID_REQUEST');
    expect((await detail(key)).check_count).toBe(0);
    expect((await detail(key)).activations_used).toBe(1);
  });

  test('a non-integer product_id is refused', async () => {
    const { key } = await system.license();
    for (const productId of ['abc', '1.5', '-1', '0x10']) {
      const res = await system.post('activate', {
        license_key: key,
        identifier: 'a.com',
        product_id: productId,
      });
      expectEnvelope(res, 400, 'INVALID_REQUEST');
    }
    expect((await detail(key)).activations_used).toBe(0);
  });

  test('a NUL byte in a value is refused', async () => {
    const { key } = await system.license({ activation_type: 'device' });
    const res = await system
      .api()
      .post(`${API_BASE}/licenses/activate`)
      .type('form')
      .send(`license_key=${key}&identifier=pc%00one`);
    expectEnvelope(res, 400, 'INVALID_REQUEST');
    expect((await detail(key)).activations_used).toBe(0);
  });

  test('an oversized body gets 413 in the error envelope', async () => {
    const res = await system
      .api()
      .post(`${API_BASE}/licenses/activate`)
      .type('form')
      .send(`license_key=k&identifier=${'a'.repeat(64 * 1024)}`);
    expectEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('a body that is not UTF-8 is refused', async () => {
    // fetch sends the bytes as they are (supertest serialises a Buffer sent as a form).
    const res = await fetch(`${system.running.gatewayUrl}${API_BASE}/licenses/validate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: Buffer.from('license_key=\xff', 'latin1'),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'INVALID_REQUEST', message: 'The request body is not valid UTF-8.' },
    });
  });

  test('a body that cannot be decompressed is a client error, not a server fault', async () => {
    const res = await system
      .api()
      .post(`${API_BASE}/licenses/validate`)
      .type('form')
      .set('Content-Encoding', 'gzip')
      .send('license_key=not-gzip-at-all');
    expectEnvelope(res, 400, 'INVALID_REQUEST');
  });

  test('unknown routes get 404 in the error envelope, never an HTML page', async () => {
    for (const path of [
      '/nope',
      `${API_BASE}/licenses/nope`,
      `${API_BASE}/licenses`,
      '/api/index.php',
    ]) {
      expectEnvelope(await system.api().get(path), 404, 'NOT_FOUND');
    }
    expectEnvelope(await system.api().get(`${API_BASE}/licenses/activate`), 404, 'NOT_FOUND');
  });

  test('fields the operation does not use are ignored, as clients send extra fields', async () => {
    const { key } = await system.license();
    const res = await system.post('validate', { license_key: key, edd_action: 'check_license' });
    expect(res.status).toBe(200);
  });

  test('an empty POST without a body reports the missing field', async () => {
    const res = await system.api().post(`${API_BASE}/licenses/activate`);
    expectEnvelope(res, 400, 'INVALID_REQUEST');
  });
});

describe('browser clients (CORS)', () => {
  test('answers carry Access-Control-Allow-Origin and expose the headers clients read', async () => {
    const res = await system.post('validate', { license_key: 'any' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toMatch(/X-Checksum-SHA256/);
    expect(res.headers['access-control-expose-headers']).toMatch(/Retry-After/);
  });

  test('a pre-flight request is answered with 204 and the allowed methods', async () => {
    const res = await system
      .api()
      .options(`${API_BASE}/licenses/activate`)
      .set('Origin', 'https://app.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-methods']).toMatch(/POST/);
    expect(res.headers['access-control-allow-headers']).toMatch(/Content-Type/);
  });
});
