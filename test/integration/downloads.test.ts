import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { loadConfig } from '../../libs/config/index.js';
import { metrics } from '../../libs/observability/index.js';
import type { DownloadAccess } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { createTransport, InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import {
  createVersion,
  download,
  downloadLog,
  eventually,
  filesUnder,
  packageBytes,
  sha256,
  sha512,
  uploadFile,
} from '../support/packages.js';
import { deleteQueuesOf, testAmqpPrefix } from '../support/amqp-queues.js';
import { stopChildGroup } from '../../bench/support/process-groups.js';
import { API_BASE, bootSystem, gatewayOn, type TestSystem } from '../support/system.js';

/**
 * Spec 4.5 through the gateway, with real uploads (management API, object storage) and real
 * downloads, compared by SHA-256. docs/api-decisions.md lists the statuses chosen here.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const PAST = '2020-01-01T00:00:00.000Z';
let seq = 0;

async function newProduct(
  download_access: DownloadAccess,
  extra: { bundle_items?: number[] } = {},
) {
  return system.transport.call('update-catalog.createProduct', {
    title: `Download ${download_access} ${seq++}`,
    download_access,
    ...extra,
  });
}

/** A published version with one all-plans file of `size` bytes; returns the bytes. */
async function release(productId: number, size = 40_000, fields: Record<string, string> = {}) {
  const version = await createVersion(system, productId, `1.${seq++}`);
  const bytes = packageBytes(size);
  const file = await uploadFile(system, version.id, bytes, 'plugin-1.2.zip', fields);
  return { version, bytes, file };
}

function expectServed(res: Awaited<ReturnType<typeof download>>, bytes: Buffer) {
  expect([res.status, res.error]).toEqual([200, undefined]);
  expect(res.sha256).toBe(sha256(bytes));
}

function expectRefused(res: Awaited<ReturnType<typeof download>>, status: number, code: string) {
  expect([res.status, res.error?.code]).toEqual([status, code]);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.error?.message).toEqual(expect.any(String));
}

describe('spec 4.5: License key downloads', () => {
  test('the key as dlid (CMS updaters) or license_key: the file, byte for byte, with its headers', async () => {
    const { product, key } = await system.license();
    const { bytes, file } = await release(product.id);
    const digest = sha256(bytes);
    expect(file).toMatchObject({ size: bytes.length, sha256: digest });

    for (const name of ['dlid', 'license_key']) {
      const res = await download(system, product.id, { [name]: key });
      expectServed(res, bytes);
      expect(Object.fromEntries(res.headers)).toMatchObject({
        'content-length': String(bytes.length),
        'content-type': 'application/zip',
        'content-disposition': 'attachment; filename="plugin-1.2.zip"',
        etag: `"${digest}"`,
        'x-checksum-sha256': digest,
        'repr-digest': `sha-256=:${Buffer.from(digest, 'hex').toString('base64')}:`,
        'accept-ranges': 'bytes',
      });
    }
  });

  test('no key, an unknown key, or a license that is not active: LICENSE_INVALID (403)', async () => {
    const { product } = await system.license();
    await release(product.id);
    expectRefused(await download(system, product.id), 403, 'LICENSE_INVALID');
    expectRefused(await download(system, product.id, { dlid: 'nope' }), 403, 'LICENSE_INVALID');
    for (const status of ['suspended', 'revoked', 'cancelled'] as const) {
      const { key } = await system.license({ product, status });
      expectRefused(await download(system, product.id, { dlid: key }), 403, 'LICENSE_INVALID');
    }
  });

  test('a key for another product: PRODUCT_MISMATCH (403)', async () => {
    const { product } = await system.license();
    await release(product.id);
    const other = await system.license();
    expectRefused(await download(system, product.id, { dlid: other.key }), 403, 'PRODUCT_MISMATCH');
  });

  test('an expired key gets the metadata from the update check and LICENSE_EXPIRED from the download', async () => {
    const { product, key } = await system.license({ expires_at: PAST });
    const { version, bytes } = await release(product.id);
    const update = await system.api().get(`${API_BASE}/updates/${product.id}?dlid=${key}`);
    expect(update.status).toBe(200);
    expect(update.body.data).toMatchObject({
      update_available: true,
      version: version.version,
      file_size: bytes.length,
      download_requires: 'license_key',
      license_status: 'expired',
    });
    const stored = await system.license({ product, status: 'expired' });
    for (const expired of [key, stored.key]) {
      expectRefused(await download(system, product.id, { dlid: expired }), 403, 'LICENSE_EXPIRED');
    }
  });

  test('an identifier is optional, but one that is sent must be activated', async () => {
    const { product, key } = await system.license();
    const { bytes } = await release(product.id);
    expectServed(await download(system, product.id, { dlid: key }), bytes);
    expectRefused(
      await download(system, product.id, { dlid: key, identifier: 'other.example' }),
      404,
      'ACTIVATION_NOT_FOUND',
    );
    await system.post('activate', { license_key: key, identifier: 'site.example' });
    expectServed(
      await download(system, product.id, { dlid: key, identifier: 'https://www.SITE.example/' }),
      bytes,
    );
  });
});

describe('spec 4.5: License key + activated identifier downloads', () => {
  test('no identifier: ACTIVATION_REQUIRED (403); not activated: ACTIVATION_NOT_FOUND (404); activated: the file', async () => {
    const { product, key } = await system.license({
      product: await newProduct('activated_identifier'),
    });
    const { bytes } = await release(product.id);
    expectRefused(await download(system, product.id, { dlid: key }), 403, 'ACTIVATION_REQUIRED');
    expectRefused(
      await download(system, product.id, { dlid: key, identifier: 'example.com' }),
      404,
      'ACTIVATION_NOT_FOUND',
    );
    await system.post('activate', { license_key: key, identifier: 'example.com' });
    // Normalised as in 2.4: scheme, www., port and path are stripped, letters lower-cased.
    for (const identifier of ['example.com', 'https://www.Example.com:8443/shop/']) {
      expectServed(await download(system, product.id, { dlid: key, identifier }), bytes);
    }
  });

  test('an activated website matches in its Unicode and its ASCII spelling (spec 2.4)', async () => {
    const { product, key } = await system.license({
      product: await newProduct('activated_identifier'),
    });
    const { bytes } = await release(product.id);
    await system.post('activate', { license_key: key, identifier: 'bücher.de' });
    for (const identifier of ['xn--bcher-kva.de', 'https://www.BÜCHER.de./']) {
      expectServed(await download(system, product.id, { dlid: key, identifier }), bytes);
    }
  });

  test('device identifiers are trimmed and compared case-insensitively', async () => {
    const { product, key } = await system.license({
      product: await newProduct('activated_identifier'),
      activation_type: 'device',
    });
    const { bytes } = await release(product.id);
    await system.post('activate', { license_key: key, identifier: 'MacBook-Pro' });
    expectServed(
      await download(system, product.id, { license_key: key, identifier: ' macbook-pro ' }),
      bytes,
    );
  });

  test('seat identifiers (e-mail addresses) match in any letter case (spec 2.4)', async () => {
    const { product, key } = await system.license({
      product: await newProduct('activated_identifier'),
      activation_type: 'seat',
    });
    const { bytes } = await release(product.id);
    await system.post('activate', { license_key: key, identifier: 'Jane.Doe@Example.COM' });
    expectServed(
      await download(system, product.id, { dlid: key, identifier: 'JANE.DOE@example.com' }),
      bytes,
    );
    expectRefused(
      await download(system, product.id, { dlid: key, identifier: 'john@example.com' }),
      404,
      'ACTIVATION_NOT_FOUND',
    );
  });

  test('the key is checked before the identifier: an expired key gets LICENSE_EXPIRED', async () => {
    const { product, key } = await system.license({
      product: await newProduct('activated_identifier'),
      expires_at: PAST,
    });
    await release(product.id);
    expectRefused(await download(system, product.id, { dlid: key }), 403, 'LICENSE_EXPIRED');
  });
});

describe('spec 2.6 and 2.7: Account only and public products', () => {
  test('Account only refuses every download with DOWNLOAD_NOT_AVAILABLE (403)', async () => {
    const { product, key } = await system.license({ product: await newProduct('account') });
    await release(product.id);
    await system.post('activate', { license_key: key, identifier: 'example.com' });
    expectRefused(await download(system, product.id), 403, 'DOWNLOAD_NOT_AVAILABLE');
    expectRefused(
      await download(system, product.id, { dlid: key, identifier: 'example.com' }),
      403,
      'DOWNLOAD_NOT_AVAILABLE',
    );
    const update = await system.api().get(`${API_BASE}/updates/${product.id}`);
    expect(update.body.data).toMatchObject({ download_url: null, download_requires: 'account' });
  });

  test('a change of Download API Access applies to the next download (no replica keeps the old one)', async () => {
    const product = await newProduct('public');
    const { bytes } = await release(product.id);
    expectServed(await download(system, product.id), bytes);
    await system.transport.call('update-catalog.updateProduct', {
      id: product.id,
      download_access: 'account',
    });
    expectRefused(await download(system, product.id), 403, 'DOWNLOAD_NOT_AVAILABLE');
    await system.transport.call('update-catalog.updateProduct', {
      id: product.id,
      download_access: 'public',
    });
    expectServed(await download(system, product.id), bytes);
  });

  test('a public product is served without a key; any key is as good as none', async () => {
    const { product, key } = await system.license({ product: await newProduct('public') });
    const { bytes } = await release(product.id);
    expectServed(await download(system, product.id), bytes);
    expectServed(await download(system, product.id, { dlid: 'unknown-key' }), bytes);
    expectServed(await download(system, product.id, { dlid: key, identifier: 'x.example' }), bytes);
  });

  test('the download_url of the update check is the download endpoint', async () => {
    const { product, key } = await system.license();
    const { bytes } = await release(product.id);
    const update = await system.api().get(`${API_BASE}/updates/${product.id}?dlid=${key}`);
    const url = new URL(update.body.data.download_url as string);
    expect(url.pathname).toBe(`${API_BASE}/downloads/${product.id}`);
    expectServed(await download(system, product.id, { dlid: key }), bytes);
  });
});

describe('spec 4.4 rules 4 and 5 on downloads: which file', () => {
  test('a key of the plan gets the plan-restricted file over the all-plans file; others get the all-plans file', async () => {
    const { product, plan, key } = await system.license();
    const other = await system.license({ product });
    const version = await createVersion(system, product.id, '2.0.0');
    const forAll = packageBytes(30_000);
    const forPlan = packageBytes(31_000);
    await uploadFile(system, version.id, forAll, 'all.zip');
    await uploadFile(system, version.id, forPlan, 'pro.zip', { plan_id: String(plan.id) });

    const mine = await download(system, product.id, { dlid: key });
    expectServed(mine, forPlan);
    expect(mine.headers.get('content-disposition')).toBe('attachment; filename="pro.zip"');
    expectServed(await download(system, product.id, { dlid: other.key }), forAll);
  });

  test('a public product: a covering key still gets its plan file, no key the all-plans file', async () => {
    const { product, plan, key } = await system.license({ product: await newProduct('public') });
    const version = await createVersion(system, product.id, '1.0.0');
    const forAll = packageBytes(20_000);
    const forPlan = packageBytes(21_000);
    await uploadFile(system, version.id, forPlan, 'pro.zip', { plan_id: String(plan.id) });
    await uploadFile(system, version.id, forAll, 'all.zip');
    expectServed(await download(system, product.id), forAll);
    expectServed(await download(system, product.id, { dlid: key }), forPlan);
  });

  test('a bundle key works for each product of the bundle, with the all-plans file', async () => {
    const first = await newProduct('license_key');
    const second = await newProduct('activated_identifier');
    const bundle = await newProduct('license_key', { bundle_items: [first.id, second.id] });
    const { key, plan } = await system.license({ product: bundle });
    const a = await release(first.id);
    const b = await release(second.id);
    // A file restricted to the bundle's plan is not for the bundle's products (rule 5).
    const restricted = await createVersion(system, first.id, '9.9.9');
    await uploadFile(system, restricted.id, packageBytes(1000), 'x.zip', {
      plan_id: String(plan.id),
    });

    expectServed(await download(system, first.id, { dlid: key }), a.bytes);
    expectRefused(await download(system, second.id, { dlid: key }), 403, 'ACTIVATION_REQUIRED');
    await system.post('activate', {
      license_key: key,
      identifier: 'bundle.example',
      product_id: second.id,
    });
    expectServed(
      await download(system, second.id, { dlid: key, identifier: 'bundle.example' }),
      b.bytes,
    );
  });

  test('only published versions and ticked files; none left: NOT_FOUND (404)', async () => {
    const { product, key } = await system.license();
    expectRefused(await download(system, product.id, { dlid: key }), 404, 'NOT_FOUND');
    const unticked = await createVersion(system, product.id, '1.0.0');
    await uploadFile(system, unticked.id, packageBytes(1000), 'a.zip', {
      include_in_updates: 'false',
    });
    const draft = await createVersion(system, product.id, '2.0.0', { published: false });
    await uploadFile(system, draft.id, packageBytes(1000), 'b.zip');
    expectRefused(await download(system, product.id, { dlid: key }), 404, 'NOT_FOUND');
  });

  test('a product that does not exist: NOT_FOUND (404)', async () => {
    expectRefused(await download(system, 987654321, { dlid: 'x' }), 404, 'NOT_FOUND');
  });
});

describe('resuming with Range', () => {
  test('an interrupted download resumes to the full file', async () => {
    const { product, key } = await system.license();
    const { bytes } = await release(product.id, 100_000);
    const etag = `"${sha256(bytes)}"`;

    const first = await download(system, product.id, { dlid: key }, { range: 'bytes=0-39999' });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-39999/${bytes.length}`);
    expect(first.headers.get('content-length')).toBe('40000');
    expect(first.headers.get('etag')).toBe(etag);

    const rest = await download(
      system,
      product.id,
      { dlid: key },
      { range: 'bytes=40000-', 'if-range': etag },
    );
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(
      `bytes 40000-${bytes.length - 1}/${bytes.length}`,
    );
    expect(sha256(Buffer.concat([first.body, rest.body]))).toBe(sha256(bytes));
  });

  test('suffix and one-byte ranges; a changed file (If-Range) or bad range gets the whole file', async () => {
    const { product, key } = await system.license();
    const { bytes } = await release(product.id, 5000);
    const tail = await download(system, product.id, { dlid: key }, { range: 'bytes=-10' });
    expect([tail.status, tail.body.equals(bytes.subarray(-10))]).toEqual([206, true]);
    const one = await download(system, product.id, { dlid: key }, { range: 'bytes=0-0' });
    expect([one.status, one.body.length, one.body[0]]).toEqual([206, 1, bytes[0]]);
    const stale = await download(
      system,
      product.id,
      { dlid: key },
      { range: 'bytes=100-', 'if-range': `"${'0'.repeat(64)}"` },
    );
    expectServed(stale, bytes);
    expectServed(await download(system, product.id, { dlid: key }, { range: 'bytes=9-1' }), bytes);
  });

  test('a range past the end: RANGE_NOT_SATISFIABLE (416) with Content-Range', async () => {
    const { product, key } = await system.license();
    const { bytes } = await release(product.id, 5000);
    for (const range of ['bytes=5000-', 'bytes=99999999999999999999-', 'bytes=9007199254740993-']) {
      const res = await download(system, product.id, { dlid: key }, { range });
      expectRefused(res, 416, 'RANGE_NOT_SATISFIABLE');
      expect(res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    }
  });

  test('a client that goes away mid-file: the stream from storage is closed, and the next download is whole', async () => {
    const { product, key } = await system.license();
    // Far more than the socket buffers hold, so a stream left open would stay open.
    const { bytes } = await release(product.id, 32 * 1024 * 1024);
    // The gateway's relays from the store (every service runs in this process).
    const transfers = async () => (await metrics.downloadRelays.get()).values[0]?.value ?? 0;
    expect(await transfers()).toBe(0);
    const url = `${system.running.gatewayUrl}${API_BASE}/downloads/${product.id}?dlid=${key}`;
    await new Promise<void>((resolve, reject) => {
      const req = httpGet(url, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', () => {
          // Stop reading: the rest of the file waits in the buffers of every hop.
          res.pause();
          transfers().then((open) => {
            expect(open).toBe(1);
            req.destroy();
            resolve();
          }, reject);
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ECONNRESET') reject(error);
      });
    });
    await eventually(
      'the gateway closes the stream from the store',
      async () => (await transfers()) === 0,
    );
    expectServed(await download(system, product.id, { dlid: key }), bytes);
  });

  test('HEAD answers the headers without the body', async () => {
    const { product, key } = await system.license();
    const { bytes } = await release(product.id, 5000);
    const res = await fetch(
      `${system.running.gatewayUrl}${API_BASE}/downloads/${product.id}?dlid=${key}`,
      { method: 'HEAD' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('x-checksum-sha256')).toBe(sha256(bytes));
  });
});

describe('the download log (Refused Downloads with the reason)', () => {
  test('every refusal is logged with its error code, served downloads too, newest first', async () => {
    const { product, key } = await system.license({
      product: await newProduct('activated_identifier'),
    });
    const { version, file } = await release(product.id);
    await download(system, product.id, { dlid: 'wrong' });
    await download(system, product.id, { dlid: key });
    await download(system, product.id, { dlid: key, identifier: 'nowhere.example' });
    await system.post('activate', { license_key: key, identifier: 'here.example' });
    await download(system, product.id, { dlid: key, identifier: 'here.example' });

    const all = await downloadLog(system, { product_id: product.id });
    expect(all.total).toBe(4);
    expect(all.entries.map((e) => [e.outcome, e.reason])).toEqual([
      ['served', null],
      ['refused', 'ACTIVATION_NOT_FOUND'],
      ['refused', 'ACTIVATION_REQUIRED'],
      ['refused', 'LICENSE_INVALID'],
    ]);
    expect(all.entries[0]).toMatchObject({
      product_id: product.id,
      license_key: key,
      identifier: 'here.example',
      ip: '127.0.0.1',
      file_id: file.id,
      version: version.version,
      at: expect.any(String),
    });
    expect(all.entries[3]).toMatchObject({ license_key: 'wrong', file_id: null, version: null });

    const refused = await downloadLog(system, { product_id: product.id, refused: 'true' });
    expect(refused.entries.map((e) => e.reason)).toEqual([
      'ACTIVATION_NOT_FOUND',
      'ACTIVATION_REQUIRED',
      'LICENSE_INVALID',
    ]);
    const served = await downloadLog(system, { product_id: product.id, refused: 'false' });
    expect(served.total).toBe(1);
    const page = await downloadLog(system, { product_id: product.id, per_page: 3, page: 2 });
    expect(page).toMatchObject({ page: 2, per_page: 3, total: 4 });
    expect(page.entries.map((e) => e.reason)).toEqual(['LICENSE_INVALID']);
  });

  test('refusals before the license check (unknown product, Account only) are logged too', async () => {
    const account = await newProduct('account');
    await download(system, account.id);
    await download(system, 987654320);
    expect((await downloadLog(system, { product_id: account.id })).entries).toEqual([
      expect.objectContaining({ outcome: 'refused', reason: 'DOWNLOAD_NOT_AVAILABLE' }),
    ]);
    expect((await downloadLog(system, { product_id: 987654320 })).entries).toEqual([
      expect.objectContaining({ outcome: 'refused', reason: 'NOT_FOUND' }),
    ]);
  });
});

describe('the download log: every refusal, wherever it is decided, with its reason', () => {
  const entriesOf = async (productId: number) =>
    (await downloadLog(system, { product_id: productId })).entries;

  test('LICENSE_EXPIRED and PRODUCT_MISMATCH are logged as refused', async () => {
    const { product, key } = await system.license({ expires_at: PAST });
    await release(product.id);
    const other = await system.license();
    await download(system, product.id, { dlid: key });
    await download(system, product.id, { dlid: other.key });
    expect((await entriesOf(product.id)).map((e) => [e.outcome, e.reason, e.license_key])).toEqual([
      ['refused', 'PRODUCT_MISMATCH', other.key],
      ['refused', 'LICENSE_EXPIRED', key],
    ]);
  });

  test('RANGE_NOT_SATISFIABLE is a refusal, not a served download', async () => {
    const { product, key } = await system.license();
    const { file, version } = await release(product.id, 5000);
    expectRefused(
      await download(system, product.id, { dlid: key }, { range: 'bytes=5000-' }),
      416,
      'RANGE_NOT_SATISFIABLE',
    );
    expect(await entriesOf(product.id)).toEqual([
      expect.objectContaining({
        outcome: 'refused',
        reason: 'RANGE_NOT_SATISFIABLE',
        file_id: file.id,
        version: version.version,
      }),
    ]);
  });

  test('a file missing from storage is a refusal (NOT_FOUND), not a served download', async () => {
    const product = await newProduct('public');
    const version = await createVersion(system, product.id, '1.0.0');
    await uploadFile(system, version.id, packageBytes(1000));
    const [stored] = (await system.transport.call('update-catalog.getVersion', { id: version.id }))
      .files;
    await system.running.download.storage.remove(stored!.object_key);
    expectRefused(await download(system, product.id), 404, 'NOT_FOUND');
    expect(await entriesOf(product.id)).toEqual([
      expect.objectContaining({ outcome: 'refused', reason: 'NOT_FOUND', file_id: stored!.id }),
    ]);
  });

  test('refusals of the gateway itself (INVALID_REQUEST) are logged, with keys and identifiers cut to 255 characters', async () => {
    const { product, key } = await system.license();
    await release(product.id);
    const long = 'i'.repeat(300);
    for (const query of [
      `dlid=${key}&identifier=${long}`,
      `dlid=${key}&license_key=other-key`,
      `dlid=${key}&dlid=${key}`,
      'license_key=%20',
      `license_key=${'k'.repeat(256)}`,
    ]) {
      expectRefused(await download(system, product.id, query), 400, 'INVALID_REQUEST');
    }
    const entries = await entriesOf(product.id);
    expect(entries.map((e) => [e.outcome, e.reason])).toEqual(
      Array(5).fill(['refused', 'INVALID_REQUEST']),
    );
    expect(entries.map((e) => [e.license_key, e.identifier])).toEqual([
      ['k'.repeat(255), null],
      [' ', null],
      [key, null],
      ['other-key', null],
      [key, 'i'.repeat(255)],
    ]);
    expect(entries[0]).toMatchObject({ product_id: product.id, ip: '127.0.0.1', file_id: null });
  });

  test('a path that names no product is logged with product_id null', async () => {
    const marker = `marker-${seq++}`;
    expectRefused(await download(system, 'abc', { dlid: marker }), 400, 'INVALID_REQUEST');
    const refused = await downloadLog(system, { refused: 'true', per_page: 500 });
    expect(refused.entries.filter((e) => e.license_key === marker)).toEqual([
      expect.objectContaining({ product_id: null, reason: 'INVALID_REQUEST' }),
    ]);
  });

  test('a HEAD request is logged like a GET', async () => {
    const { product, key } = await system.license();
    await release(product.id, 5000);
    const res = await fetch(
      `${system.running.gatewayUrl}${API_BASE}/downloads/${product.id}?dlid=${key}`,
      { method: 'HEAD' },
    );
    expect(res.status).toBe(200);
    expect((await entriesOf(product.id)).map((e) => e.outcome)).toEqual(['served']);
  });
});

describe('the download log when the bytes fail after authorisation (gateway and a stand-in download service)', () => {
  /** A gateway on its own bus, whose download service authorises to a link nobody answers. */
  async function gatewayWith(logRefusal: (request: unknown) => Promise<{ logged: boolean }>) {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const { port } = dead.address() as AddressInfo;
    await new Promise((resolve) => dead.close(resolve));
    const bus = new InProcessBus();
    const logger = createLogger('download-log-test', 'silent');
    bus.register('download', {
      'download.authorize': async () => ({
        url: `http://127.0.0.1:${port}/packages/a.zip?X-Amz-Signature=x`,
        last_modified: '2026-01-01T00:00:00.000Z',
        filename: 'a.zip',
        size: 10,
        sha256: 'a'.repeat(64),
        content_type: 'application/zip',
        version: '1.0',
        log_id: '0123456789abcdef01234567',
      }),
      'download.logRefusal': logRefusal,
    });
    const transport = new InProcessTransport(bus, { timeoutMs: 5000, logger });
    const app = await gatewayOn(transport);
    return { app, close: () => transport.close() };
  }

  test('the served entry becomes a refusal with the code the client got (INTERNAL_ERROR)', async () => {
    const reports: unknown[] = [];
    const { app, close } = await gatewayWith(async (request) => {
      reports.push(request);
      return { logged: true };
    });
    try {
      const res = await supertest(app).get(`${API_BASE}/downloads/7?dlid=key-1`);
      expect([res.status, res.body.error.code]).toEqual([500, 'INTERNAL_ERROR']);
      expect(reports).toEqual([
        {
          entry_id: '0123456789abcdef01234567',
          product_id: 7,
          license_key: 'key-1',
          identifier: null,
          ip: '127.0.0.1',
          reason: 'INTERNAL_ERROR',
        },
      ]);
    } finally {
      await close();
    }
  });

  test('a download service that does not take the report does not hold up the answer for ever', async () => {
    const { app, close } = await gatewayWith(() => new Promise(() => {}));
    try {
      const res = await supertest(app).get(`${API_BASE}/downloads/7?dlid=key-1`);
      expect([res.status, res.body.error.code]).toEqual([500, 'INTERNAL_ERROR']);
    } finally {
      await close();
    }
  });
});

describe("the download service's own port", () => {
  test('serves and stores nothing without a link it signed', async () => {
    const base = system.running.download.url;
    const token = Buffer.from(JSON.stringify({ kind: 'upload', key: 'x', exp: 9e15 })).toString(
      'base64url',
    );
    for (const [method, path] of [
      ['PUT', '/uploads/garbage'],
      ['PUT', `/uploads/${token}.${'A'.repeat(43)}`],
    ] as const) {
      const res = await fetch(`${base}${path}`, {
        method,
        ...(method === 'PUT' ? { body: 'bytes' } : {}),
      });
      expect([method, path, res.status]).toEqual([method, path, 403]);
      expect(await res.json()).toEqual({
        error: { code: 'UNAUTHORIZED', message: expect.any(String) },
      });
    }
  });
});

describe('request parsing', () => {
  test('the query is parsed strictly; unknown fields are ignored', async () => {
    const { product, key } = await system.license();
    const { bytes } = await release(product.id);
    expectRefused(
      await download(system, product.id, `dlid=${key}&dlid=${key}`),
      400,
      'INVALID_REQUEST',
    );
    expectRefused(await download(system, product.id, `dlid[$ne]=x`), 400, 'INVALID_REQUEST');
    expectRefused(
      await download(system, product.id, `dlid=${key}&license_key=other`),
      400,
      'INVALID_REQUEST',
    );
    expectRefused(
      await download(system, product.id, `identifier=${'x'.repeat(256)}`),
      400,
      'INVALID_REQUEST',
    );
    expectRefused(await download(system, 'abc', `dlid=${key}`), 400, 'INVALID_REQUEST');
    expectServed(await download(system, product.id, `dlid=${key}&channel=stable`), bytes);
  });
});

describe('rate limit (spec 8: per IP, RATE_LIMIT_DOWNLOADS_PER_MINUTE)', () => {
  test('downloads over the limit get RATE_LIMITED (429) with Retry-After, and are logged', async () => {
    const limited = await bootSystem({ RATE_LIMIT_DOWNLOADS_PER_MINUTE: '2' });
    try {
      const product = await limited.transport.call('update-catalog.createProduct', {
        title: 'Limited',
      });
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push(await download(limited, product.id, { dlid: `key-${i}` }));
      }
      expect(statuses.map((r) => r.status)).toEqual([403, 403, 429]);
      expect(statuses[2]?.error?.code).toBe('RATE_LIMITED');
      expect(statuses[2]?.headers.get('retry-after')).toEqual(expect.any(String));
      const log = await downloadLog(limited, { product_id: product.id });
      expect(log.entries.map((e) => [e.reason, e.license_key])).toEqual([
        ['RATE_LIMITED', 'key-2'],
        ['LICENSE_INVALID', 'key-1'],
        ['LICENSE_INVALID', 'key-0'],
      ]);
    } finally {
      await limited.stop();
    }
  });
});

describe('npm run start:download without S3_ENDPOINT (the embedded store)', () => {
  let child: ChildProcess | undefined;
  let directory: string | undefined;
  let prefix: string | undefined;
  afterAll(async () => {
    if (child) await stopChildGroup(child);
    await deleteQueuesOf([prefix]);
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  // A service of its own process talks over RabbitMQ, which CI always provides.
  (process.env.AMQP_URL ? test : test.skip)(
    'runs an S3-compatible store in-process under STORAGE_DIR, warning that replicas will not share it',
    async () => {
      directory = await mkdtemp(path.join(tmpdir(), 'start-download-'));
      const id = randomBytes(4).toString('hex');
      prefix = testAmqpPrefix('dl');
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        AMQP_PREFIX: prefix,
        MONGODB_DB_PREFIX: `t${id}`,
        DOWNLOAD_SIGNING_KEY: randomBytes(24).toString('base64url'),
        DOWNLOAD_PORT: '0',
        HOST: '127.0.0.1',
        STORAGE_DIR: directory,
        LOG_LEVEL: 'info',
      };
      delete env.S3_ENDPOINT;
      delete env.DOWNLOAD_SERVICE_URL;
      let output = '';
      child = spawn('npm', ['run', 'start:download', '--silent'], {
        env,
        detached: true,
        stdio: 'pipe',
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await new Promise<void>((resolve, reject) => {
        child!.stdout!.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('download service ready')) resolve();
        });
        child!.once('exit', (code) =>
          reject(new Error(`start:download exited (${code}): ${output}`)),
        );
      });
      expect(output).toContain('S3_ENDPOINT is unset');
      expect(output).toContain('other download replicas will not share it');

      const config = loadConfig(env);
      const transport = await createTransport(config, createLogger('test', 'silent'), 'test');
      try {
        const { upload_url, object_key } = await transport.call('download.prepareUpload', {
          filename: 'plugin.zip',
        });
        const bytes = packageBytes(10_000);
        const res = await fetch(upload_url, { method: 'PUT', body: bytes });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { data: object }).data).toEqual({
          object_key,
          size: bytes.length,
          sha256: sha256(bytes),
          sha512: sha512(bytes),
        });
        expect(await filesUnder(directory)).toContain(
          `licensing-packages/${object_key}._S3rver_object`,
        );
      } finally {
        await transport.close();
      }
    },
    60_000,
  );
});
