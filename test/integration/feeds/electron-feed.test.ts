import { CancellationToken, HttpError } from 'builder-util-runtime';
import { DocumentedCalls } from '../../support/documented-calls.js';
import {
  checkAndDownload,
  genericProvider,
  NodeHttpExecutor,
  type ElectronPlatform,
} from '../../support/electron-updater.js';
import { createVersion, packageBytes, sha512, uploadFile } from '../../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../../support/system.js';

/**
 * electron-updater (docs/updaters/electron.md) against the running system: its own generic
 * provider reads the channel file, resolves the files' URLs against the feed's, downloads the
 * platform's file and checks its SHA-512; a refused key is its HttpError 403, a missing channel
 * its own "channel file not found".
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const calls = new DocumentedCalls();
const FEED = `${API_BASE}/updates/{product_id}/electron/{file}`;
const PINNED = `${API_BASE}/downloads/{product_id}/files/{file_id}/{filename}`;

async function feed(
  productId: number,
  file: string,
  options: { query?: string; headers?: Record<string, string> } = {},
) {
  let req = system
    .api()
    .get(`${API_BASE}/updates/${productId}/electron/${file}${options.query ?? ''}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
  return calls.saw('get', FEED, await req);
}

const feedUrl = (productId: number, query = '') =>
  `${system.running.gatewayUrl}${API_BASE}/updates/${productId}/electron${query}`;

/** An app with 1.0.0 and 1.1.0 for Windows, macOS (Intel and Apple silicon) and Linux. */
async function licensedApp() {
  const licensed = await system.license();
  const { product } = licensed;
  const old = await createVersion(system, product.id, '1.0.0');
  await uploadFile(system, old.id, packageBytes(5_000), 'App Setup 1.0.0.exe', {
    platform: 'windows',
  });
  const version = await createVersion(system, product.id, '1.1.0', { release_date: '2026-03-04' });
  const bytes = {
    win32: packageBytes(30_000),
    darwin: packageBytes(20_000),
    linux: packageBytes(10_000),
  } satisfies Record<ElectronPlatform, Buffer>;
  const files = {
    win32: await uploadFile(system, version.id, bytes.win32, 'App Setup 1.1.0.exe', {
      platform: 'windows',
    }),
    darwin: await uploadFile(system, version.id, bytes.darwin, 'App-1.1.0-mac.zip', {
      platform: 'darwin',
      arch: 'x86_64',
    }),
    linux: await uploadFile(system, version.id, bytes.linux, 'App-1.1.0.AppImage', {
      platform: 'linux',
      arch: 'x86_64',
    }),
  };
  await uploadFile(system, version.id, packageBytes(20_000), 'App-1.1.0-arm64-mac.zip', {
    platform: 'darwin',
    arch: 'aarch64',
  });
  return { ...licensed, bytes, files };
}

describe('docs/updaters/electron.md: electron-updater', () => {
  test.each(['win32', 'darwin', 'linux'] as const)(
    '%s: finds the version, downloads its file and checks its SHA-512 (key in the query)',
    async (platform) => {
      const { product, key, bytes, files } = await licensedApp();
      const found = await checkAndDownload({
        feedUrl: feedUrl(product.id, `?license_key=${key}`),
        channel: 'latest',
        platform,
      });
      expect(found.version).toBe('1.1.0');
      expect(found.updateInfo.releaseDate).toBe('2026-03-04T00:00:00.000Z');
      expect(found.sha512Ok).toBe(true);
      expect(sha512(found.bytes!)).toBe(sha512(bytes[platform]));
      expect(files[platform].sha512).toBe(sha512(bytes[platform]));
      // The file's pinned download, with the feed's query repeated by electron-updater.
      expect(found.url.pathname).toBe(
        `${API_BASE}/downloads/${product.id}/files/${files[platform].id}/` +
          encodeURIComponent(files[platform].filename),
      );
      expect(found.url.searchParams.get('license_key')).toBe(key);
    },
  );

  test('Linux on arm64 reads latest-linux-arm64.yml and gets the arm64 file', async () => {
    const { product, key } = await licensedApp();
    const version = await createVersion(system, product.id, '1.2.0');
    const bytes = packageBytes(8_000);
    await uploadFile(system, version.id, bytes, 'App-1.2.0-arm64.AppImage', {
      platform: 'linux',
      arch: 'aarch64',
    });
    const check = { feedUrl: feedUrl(product.id, `?dlid=${key}`), channel: 'latest' } as const;
    const arm = await checkAndDownload({ ...check, platform: 'linux', arch: 'arm64' });
    expect([arm.version, sha512(arm.bytes!)]).toEqual(['1.2.0', sha512(bytes)]);
    const x64 = await checkAndDownload({ ...check, platform: 'linux' });
    expect(x64.version).toBe('1.1.0');
  });

  test('the key in electron-updater requestHeaders: the feed and the download take it', async () => {
    const { product, key, bytes } = await licensedApp();
    const found = await checkAndDownload({
      feedUrl: feedUrl(product.id),
      channel: 'latest',
      platform: 'win32',
      requestHeaders: { Authorization: `License ${key}` },
    });
    expect([found.version, found.sha512Ok, found.url.search]).toEqual(['1.1.0', true, '']);
    expect(sha512(found.bytes!)).toBe(sha512(bytes.win32));
  });

  test('a bad key fails with HttpError 403, never the 404 electron-updater reads as no channel', async () => {
    const { product } = await licensedApp();
    for (const check of [
      { feedUrl: feedUrl(product.id, '?license_key=nope') },
      { feedUrl: feedUrl(product.id) },
      { feedUrl: feedUrl(product.id), requestHeaders: { Authorization: 'License nope' } },
    ]) {
      const error = await checkAndDownload({
        ...check,
        channel: 'latest',
        platform: 'win32',
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).statusCode).toBe(403);
    }
    const res = await feed(product.id, 'latest.yml', { query: '?license_key=nope' });
    expect([res.status, res.body.error.code]).toEqual([403, 'LICENSE_INVALID']);
  });

  test("a channel there is no file for: electron-updater's own ERR_UPDATER_CHANNEL_FILE_NOT_FOUND", async () => {
    const { product, key } = await licensedApp();
    const query = `?license_key=${key}`;
    for (const channel of ['nightly', 'dev']) {
      const error = await checkAndDownload({
        feedUrl: feedUrl(product.id, query),
        channel,
        platform: 'darwin',
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'ERR_UPDATER_CHANNEL_FILE_NOT_FOUND' });
    }
    const res = await feed(product.id, 'nightly-mac.yml', { query });
    expect([res.status, res.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('beta.yml offers the beta version; latest.yml still the stable one', async () => {
    const { product, key } = await licensedApp();
    const beta = await createVersion(system, product.id, '1.2.0-beta.1', { channel: 'beta' });
    await uploadFile(system, beta.id, packageBytes(3_000), 'App Setup 1.2.0-beta.1.exe', {
      platform: 'windows',
    });
    const check = {
      feedUrl: feedUrl(product.id, `?license_key=${key}`),
      platform: 'win32',
    } as const;
    expect((await checkAndDownload({ ...check, channel: 'beta' })).version).toBe('1.2.0-beta.1');
    expect((await checkAndDownload({ ...check, channel: 'latest' })).version).toBe('1.1.0');
  });

  test('a version rolled out to 0 % is not offered to a key: the previous one is', async () => {
    const { product, key } = await licensedApp();
    const staged = await createVersion(system, product.id, '1.3.0', { rollout_percent: 0 });
    await uploadFile(system, staged.id, packageBytes(3_000), 'App Setup 1.3.0.exe', {
      platform: 'windows',
    });
    const found = await checkAndDownload({
      feedUrl: feedUrl(product.id, `?license_key=${key}`),
      channel: 'latest',
      platform: 'win32',
    });
    expect(found.version).toBe('1.1.0');
  });

  test('ETag and 304: the same channel file for the same caller is not sent twice', async () => {
    const { product, key } = await licensedApp();
    const query = `?license_key=${key}`;
    const first = await feed(product.id, 'latest.yml', { query });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/yaml/);
    const etag = first.headers.etag as string;
    const again = await feed(product.id, 'latest.yml', {
      query,
      headers: { 'If-None-Match': etag },
    });
    expect([again.status, again.text, again.headers.etag]).toEqual([304, '', etag]);
    const mac = await feed(product.id, 'latest-mac.yml', {
      query,
      headers: { 'If-None-Match': etag },
    });
    expect(mac.status).toBe(200);
  });

  test('the blockmaps electron-updater asks for next to a listed file are 404s: it then downloads the whole file', async () => {
    const { product, key } = await licensedApp();
    const check = {
      feedUrl: feedUrl(product.id, `?license_key=${key}`),
      channel: 'latest',
      platform: 'win32',
    } as const;
    const found = await checkAndDownload(check);
    // NsisUpdater's differential download: the old and new blockmaps by electron-updater's rule.
    const blockmaps = await genericProvider(check).getBlockMapFiles(found.url, '1.0.0', '1.1.0');
    expect(blockmaps.map((url) => url.pathname.endsWith('.exe.blockmap'))).toEqual([true, true]);
    for (const url of blockmaps) {
      const error = await new NodeHttpExecutor()
        .downloadToBuffer(url, { headers: {}, cancellationToken: new CancellationToken() })
        .catch((e: unknown) => e);
      // Any failure here makes electron-updater fall back to the full download.
      expect(error).toMatchObject({ message: expect.stringMatching(/status 404/) });
      const res = calls.saw('get', PINNED, await system.api().get(`${url.pathname}${url.search}`));
      expect([res.status, res.body.error.code]).toEqual([404, 'NOT_FOUND']);
    }
  });

  test('bad input gets the error envelope', async () => {
    const { product, key } = await licensedApp();
    const query = `?license_key=${key}`;
    for (const file of ['latest.json', 'latest%20x.yml', `${'a'.repeat(70)}.yml`]) {
      const res = await feed(product.id, file, { query });
      expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    }
    for (const [options, code] of [
      [{ headers: { Authorization: 'Basic eDp5' } }, 'INVALID_REQUEST'],
      [{ query: `${query}&dlid=other` }, 'INVALID_REQUEST'],
      [{ query: '?license_key=' + 'k'.repeat(300) }, 'INVALID_REQUEST'],
    ] as const) {
      const res = await feed(product.id, 'latest.yml', options);
      expect([res.status, res.body.error.code]).toEqual([400, code]);
    }
    const zero = await feed(0, 'latest.yml', { query });
    expect([zero.status, zero.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    const missing = await feed(99_999_999, 'latest.yml');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('every documented success of these routes was seen above', () => {
    expect(calls.unseenSuccesses(['electronFeed'])).toEqual([]);
  });
});
