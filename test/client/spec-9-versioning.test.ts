import { API_PATH, DEFAULT_TIMEOUT_MS, LicensingClient } from '../../libs/client/src/index.js';
import { packageBytes, sendJson, serve, type LocalServer } from './servers.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

describe('spec 9: the client takes the store root URL, a product id and an optional timeout', () => {
  test('it appends /api/index.php/v1/licensing to the root URL, with or without a trailing slash', () => {
    expect(API_PATH).toBe('/api/index.php/v1/licensing');
    for (const root of [
      'https://shop.example',
      'https://shop.example/',
      ' https://shop.example// ',
    ]) {
      expect(new LicensingClient(root, 12).apiBase).toBe(
        'https://shop.example/api/index.php/v1/licensing',
      );
    }
    expect(new LicensingClient('https://example.com/store/', '7').apiBase).toBe(
      'https://example.com/store/api/index.php/v1/licensing',
    );
  });

  test('the timeout defaults to 15 seconds (spec 8) and is configurable in milliseconds', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(15_000);
    expect(new LicensingClient('https://shop.example', 1).timeout).toBe(15_000);
    expect(new LicensingClient('https://shop.example', 1, 300).timeout).toBe(300);
    expect(new LicensingClient('https://shop.example', 1, { timeout: 2500 }).timeout).toBe(2500);
  });

  test('a root URL that is not absolute http(s), a product id that is not a positive integer, or a bad timeout is refused at construction', () => {
    expect(() => new LicensingClient('shop.example', 1)).toThrow(TypeError);
    expect(() => new LicensingClient('ftp://shop.example', 1)).toThrow(TypeError);
    for (const id of [0, -1, 1.5, 'abc', '']) {
      expect(() => new LicensingClient('https://shop.example', id)).toThrow(TypeError);
    }
    for (const timeout of [0, -5, Number.NaN, Infinity]) {
      expect(() => new LicensingClient('https://shop.example', 1, timeout)).toThrow(TypeError);
    }
  });
});

describe('spec 4 and 9: every operation sends product_id', () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await serve((_req, res, { path }) => {
      if (path.includes('/downloads/')) {
        res.writeHead(200, { 'Content-Length': 3 });
        res.end(packageBytes(3));
      } else sendJson(res, 200, { data: {} });
    });
  });
  afterAll(() => server.close());

  test('activate, validate and deactivate POST form fields with product_id; the update check and the download carry it in the path', async () => {
    const client = new LicensingClient(`${server.url}/`, 12, 2000);
    await client.activate('KEY', 'https://www.example.com', 'Main shop');
    await client.validate('KEY', 'example.com');
    await client.validate('KEY');
    await client.deactivate('KEY', 'example.com');
    await client.checkUpdate('KEY');
    await client.checkUpdate();
    await client.download('KEY', 'example.com', null);
    const [activate, validate, validateBare, deactivate, update, updateBare, download] =
      server.requests;

    for (const request of server.requests) {
      // Without pinned keys nothing is verified, so no nonce is sent.
      expect(request.headers).not.toHaveProperty('licensing-nonce');
    }
    for (const post of [activate, validate, validateBare, deactivate]) {
      expect(post!.method).toBe('POST');
      expect(post!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
      expect(post!.headers.accept).toBe('application/json');
    }
    expect(activate!.path).toBe(`${API_BASE}/licenses/activate`);
    expect(Object.fromEntries(new URLSearchParams(activate!.body))).toEqual({
      license_key: 'KEY',
      identifier: 'https://www.example.com',
      name: 'Main shop',
      product_id: '12',
    });
    expect(validate!.path).toBe(`${API_BASE}/licenses/validate`);
    expect(Object.fromEntries(new URLSearchParams(validate!.body))).toEqual({
      license_key: 'KEY',
      identifier: 'example.com',
      product_id: '12',
    });
    expect(Object.fromEntries(new URLSearchParams(validateBare!.body))).toEqual({
      license_key: 'KEY',
      product_id: '12',
    });
    expect(deactivate!.path).toBe(`${API_BASE}/licenses/deactivate`);
    expect(Object.fromEntries(new URLSearchParams(deactivate!.body))).toEqual({
      license_key: 'KEY',
      identifier: 'example.com',
      product_id: '12',
    });

    expect(update!.method).toBe('GET');
    expect(update!.path).toBe(`${API_BASE}/updates/12`);
    expect(Object.fromEntries(update!.query)).toEqual({ license_key: 'KEY' });
    expect(Object.fromEntries(updateBare!.query)).toEqual({});
    expect(download!.path).toBe(`${API_BASE}/downloads/12`);
    expect(Object.fromEntries(download!.query)).toEqual({ dlid: 'KEY', identifier: 'example.com' });
  });
});
