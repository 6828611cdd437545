import { LicensingClient } from '../../libs/client/src/index.js';
import { packageBytes, sendJson, serve, specServer, type LocalServer } from './servers.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The update check against a local server that answers as spec 4.4 and 2.6 say, so every shape
 * of the answer can be produced; spec-4.4-4.5-real-system.test.ts runs it against the real system.
 */
let server: LocalServer;
const file = packageBytes(40_000);
beforeAll(async () => {
  server = await specServer({ productId: 12, file, keys: { GOOD: {}, OLD: { expired: true } } });
});
afterAll(() => server.close());

describe('spec 4.4 GET /updates/{product_id} through the client', () => {
  test('without a key: the version, the absolute download_url and file_size, and no license state', async () => {
    const result = await new LicensingClient(server.url, 12, 2000).checkUpdate();
    expect(result).toEqual({
      success: true,
      data: {
        update_available: true,
        name: 'Test Plugin',
        version: '2.1.0',
        download_url: `${server.url}${API_BASE}/downloads/12`,
        download_requires: 'license_key',
        release_notes: 'Fixes.',
        date: '2026-01-15',
        file_size: file.length,
        requires_license: true,
      },
      message: '',
      code: '',
      httpStatus: 200,
    });
    expect(server.requests.at(-1)!.query.has('license_key')).toBe(false);
  });

  test('with a key: sent as license_key, and the license state is added', async () => {
    const result = await new LicensingClient(server.url, 12, 2000).checkUpdate('GOOD');
    expect(server.requests.at(-1)!.query.get('license_key')).toBe('GOOD');
    expect(result).toMatchObject({
      success: true,
      data: { update_available: true, license_status: 'active', license_expires_at: null },
    });
  });

  test('the identifier and a channel other than stable are sent; stable is the default', async () => {
    const client = new LicensingClient(server.url, 12, 2000);
    await client.checkUpdate('GOOD', { identifier: 'shop.example', channel: 'beta' });
    const sent = server.requests.at(-1)!.query;
    expect([sent.get('identifier'), sent.get('channel')]).toEqual(['shop.example', 'beta']);
    await client.checkUpdate('GOOD', { channel: 'stable' });
    expect(server.requests.at(-1)!.query.has('channel')).toBe(false);
  });

  test('an expired license still learns of the new version (rule 6)', async () => {
    const result = await new LicensingClient(server.url, 12, 2000).checkUpdate('OLD');
    expect(result).toMatchObject({
      success: true,
      data: { update_available: true, license_status: 'expired' },
    });
  });

  test('a product without a version answers update_available false, which is a success', async () => {
    const result = await new LicensingClient(server.url, 99, 2000).checkUpdate();
    expect(result).toEqual({
      success: true,
      data: { update_available: false, requires_license: false, download_requires: null },
      message: '',
      code: '',
      httpStatus: 200,
    });
  });

  test('an account-only product has download_url null', async () => {
    const accountOnly = await specServer({ productId: 5, file, access: 'account' });
    try {
      const result = await new LicensingClient(accountOnly.url, 5, 2000).checkUpdate();
      expect(result).toMatchObject({
        success: true,
        data: { download_url: null, download_requires: 'account' },
      });
    } finally {
      await accountOnly.close();
    }
  });

  test('RATE_LIMITED (more than 60 checks a minute) comes back with retryAfter', async () => {
    const limited = await serve((_req, res) =>
      sendJson(
        res,
        429,
        { error: { code: 'RATE_LIMITED', message: 'Slow down.' } },
        { 'Retry-After': '42' },
      ),
    );
    try {
      expect(await new LicensingClient(limited.url, 12, 2000).checkUpdate()).toEqual({
        success: false,
        data: null,
        message: 'Slow down.',
        code: 'RATE_LIMITED',
        httpStatus: 429,
        retryAfter: 42,
      });
    } finally {
      await limited.close();
    }
  });
});
