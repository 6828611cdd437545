import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import {
  classifyResult,
  LicensingClient,
  Sha256,
  type DownloadProgress,
} from '../../libs/client/src/index.js';
import {
  keySetOf,
  packageBytes,
  sendJson,
  serve,
  sha256Base64,
  sha256Hex,
  signedStore,
  signingKey,
  specServer,
  type LocalServer,
} from './servers.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

const TIMEOUT_MS = 300;
const file = packageBytes(100_000);
const KEYS = { GOOD: { activated: ['example.com'] }, OLD: { expired: true } };

let dir: string;
const servers: LocalServer[] = [];
async function start<S extends LocalServer>(server: Promise<S>): Promise<S> {
  const started = await server;
  servers.push(started);
  return started;
}
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'licensing-client-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));
afterAll(() => Promise.all(servers.map((s) => s.close())));

/** A server that answers every download with `respond`. */
const scripted = (respond: (res: ServerResponse) => void) =>
  start(serve((_req, res) => respond(res)));

describe('spec 4.5 download: the request', () => {
  test('built from the endpoint: GET /downloads/{product_id} with the key as dlid, the identifier and Accept: application/json', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS }));
    const client = new LicensingClient(server.url, 12, 2000);
    const result = await client.download('GOOD', 'example.com', join(dir, 'p.zip'));
    expect(result.success).toBe(true);
    const request = server.requests.at(-1)!;
    expect(request.method).toBe('GET');
    expect(request.path).toBe(`${API_BASE}/downloads/12`);
    expect(Object.fromEntries(request.query)).toEqual({ dlid: 'GOOD', identifier: 'example.com' });
    expect(request.headers.accept).toBe('application/json');
  });

  test('a channel other than stable is sent, as the update check sent it', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS }));
    const client = new LicensingClient(server.url, 12, 2000);
    await client.download('GOOD', null, join(dir, 'beta.zip'), { channel: 'beta' });
    expect(server.requests.at(-1)!.query.get('channel')).toBe('beta');
    await client.download('GOOD', null, join(dir, 'stable.zip'), { channel: 'stable' });
    expect(server.requests.at(-1)!.query.has('channel')).toBe(false);
  });

  test('built from the download_url of the update check, keeping its own query', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS }));
    const client = new LicensingClient('http://unused.invalid', 12, 2000);
    const url = `${server.url}${API_BASE}/downloads/12?channel=stable`;
    const result = await client.download('GOOD', undefined, join(dir, 'p.zip'), { url });
    expect(result.success).toBe(true);
    expect(Object.fromEntries(server.requests.at(-1)!.query)).toEqual({
      channel: 'stable',
      dlid: 'GOOD',
    });
  });

  test('the update check then the download: the flow an updater follows', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS }));
    const client = new LicensingClient(server.url, 12, 2000);
    const update = await client.checkUpdate('GOOD');
    if (!update.success || !update.data.update_available || !update.data.download_url) {
      throw new Error('no download_url');
    }
    const result = await client.download('GOOD', 'example.com', dir, {
      url: update.data.download_url,
      expectedSize: update.data.file_size,
    });
    expect(result).toMatchObject({ success: true, data: { size: file.length } });
  });
});

describe('spec 4.5 download: the package the signed update check names', () => {
  test('the update option gives the URL, the size and the sha256 of a verified update check', async () => {
    const key = await signingKey();
    const server = await start(signedStore({ productId: 12, key, licenses: { GOOD: {} }, file }));
    const client = new LicensingClient(server.url, 12, { timeout: 2000, keys: keySetOf(key) });
    const update = await client.checkUpdate('GOOD');
    if (!update.success) throw new Error(update.message);
    expect(update.data).toMatchObject({ file_size: file.length, sha256: sha256Hex(file) });
    const saved = await client.download('GOOD', null, join(dir, 'p.zip'), { update: update.data });
    expect(saved).toMatchObject({ success: true, data: { sha256: sha256Hex(file) } });
    expect(server.requests.at(-1)!.path).toBe(`${API_BASE}/downloads/12`);

    // Another package, served with its own (matching) checksum header: only the signed sha256
    // tells it is not the one the update check named.
    server.servedFile = packageBytes(file.length, 7);
    const swapped = await client.download('GOOD', null, join(dir, 'q.zip'), {
      update: update.data,
    });
    expect(swapped).toMatchObject({ success: false, code: '' });
    expect(swapped.message).toMatch(
      /^Download verification failed: the SHA-256 checksum does not match expectedSha256/,
    );
    expect(await readdir(dir)).toEqual(['p.zip']);
  });
});

describe('spec 4.5 download: saving only on HTTP 200', () => {
  test('the package is written to the path, with size and SHA-256 verified, through a temporary file', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS }));
    const target = join(dir, 'plugin.zip');
    const result = await new LicensingClient(server.url, 12, 2000).download('GOOD', null, target);
    expect(result).toEqual({
      success: true,
      data: {
        filename: 'test-plugin-2.1.0.zip',
        path: target,
        blob: null,
        size: file.length,
        sha256: sha256Hex(file),
        contentType: 'application/zip',
        checksumVerified: true,
      },
      message: '',
      code: '',
      httpStatus: 200,
    });
    expect(Buffer.compare(await readFile(target), file)).toBe(0);
    expect(await readdir(dir)).toEqual(['plugin.zip']);
  });

  test('the temporary file is in the destination directory (so the final rename never crosses filesystems) and replaces the old file at the end', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS, chunkSize: 8192 }));
    const target = join(dir, 'plugin.zip');
    await writeFile(target, 'previous version');
    const during: string[][] = [];
    const oldContent: string[] = [];
    const result = await new LicensingClient(server.url, 12, 2000).download('GOOD', null, target, {
      onProgress: (p) => {
        if (p.received === 0 || p.received === file.length) return;
        during.push(readdirSync(dir).sort());
        oldContent.push(readdirSync(dir).includes('plugin.zip') ? 'present' : 'missing');
      },
    });
    expect(result).toMatchObject({ success: true, data: { path: target } });
    expect(during.length).toBeGreaterThan(0);
    for (const listing of during) {
      expect(listing).toEqual([
        expect.stringMatching(/^\.plugin\.zip\.[0-9a-f]+\.part$/),
        'plugin.zip',
      ]);
    }
    // The old package stays in place, whole, until the new one is complete and verified.
    expect(new Set(oldContent)).toEqual(new Set(['present']));
    expect(Buffer.compare(await readFile(target), file)).toBe(0);
    expect(await readdir(dir)).toEqual(['plugin.zip']);
  });

  test('a directory destination gets the Content-Disposition file name, reduced to a safe base name', async () => {
    const server = await start(
      specServer({ productId: 12, file, keys: KEYS, filename: '../../escape.zip' }),
    );
    const result = await new LicensingClient(server.url, 12, 2000).download('GOOD', null, dir);
    expect(result).toMatchObject({
      success: true,
      data: { filename: 'escape.zip', path: join(dir, 'escape.zip') },
    });
    expect(await readdir(dir)).toEqual(['escape.zip']);
  });

  test('filename* (RFC 5987) is preferred, and without any file name product-{id} is used', async () => {
    const names = ['attachment; filename="plain.zip"; filename*=UTF-8\'\'caf%C3%A9%20v2.zip', null];
    let next = 0;
    const server = await start(
      serve((_req, res) => {
        const name = names[next++];
        res.writeHead(200, {
          'Content-Length': 4,
          ...(name ? { 'Content-Disposition': name } : {}),
        });
        res.end('PKG!');
      }),
    );
    const client = new LicensingClient(server.url, 12, 2000);
    expect(await client.download('K', null, dir)).toMatchObject({
      data: { filename: 'café v2.zip' },
    });
    expect(await client.download('K', null, `${dir}/`)).toMatchObject({
      data: { filename: 'product-12', checksumVerified: false },
    });
    expect((await readdir(dir)).sort()).toEqual(['café v2.zip', 'product-12']);
  });

  test.each([
    ['ACTIVATION_REQUIRED', 'activated_identifier' as const, 'GOOD', undefined],
    ['ACTIVATION_NOT_FOUND', 'license_key' as const, 'GOOD', 'other.com'],
    ['LICENSE_EXPIRED', 'license_key' as const, 'OLD', undefined],
  ])(
    'a refusal (%s) returns the JSON error, a license problem, and writes nothing',
    async (code, access, key, identifier) => {
      const server = await start(specServer({ productId: 12, file, keys: KEYS, access }));
      const target = join(dir, 'plugin.zip');
      await writeFile(target, 'previous version');
      const result = await new LicensingClient(server.url, 12, 2000).download(
        key,
        identifier,
        target,
      );
      expect(result).toEqual({
        success: false,
        data: null,
        message: `Refused: ${code}.`,
        code,
        httpStatus: 403,
      });
      expect(classifyResult(result)).toBe('license');
      expect(await readFile(target, 'utf8')).toBe('previous version');
      expect(await readdir(dir)).toEqual(['plugin.zip']);
    },
  );

  test('a non-200 that is not JSON (an HTML page) is an invalid response and writes nothing', async () => {
    const server = await scripted((res) => {
      res.writeHead(404, { 'Content-Type': 'text/html' });
      res.end('<html>Not Found</html>');
    });
    const result = await new LicensingClient(server.url, 12, TIMEOUT_MS).download('K', null, dir);
    expect(result).toMatchObject({
      success: false,
      code: '',
      message: 'Invalid response from server.',
    });
    expect(await readdir(dir)).toEqual([]);
  });

  test('a non-200 with a data envelope is not a package either', async () => {
    const server = await scripted((res) => sendJson(res, 202, { data: { queued: true } }));
    const result = await new LicensingClient(server.url, 12, TIMEOUT_MS).download('K', null, dir);
    expect(result).toMatchObject({ success: false, message: 'Invalid response from server.' });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('spec 4.5 download: a failure never leaves a partial package', () => {
  test('a download cut off midway is a connection error; the old file stays and no temporary file is left', async () => {
    // The server cuts the connection once the client has the first bytes (not after a delay,
    // which a busy machine could outrun).
    let cut: (() => void) | undefined;
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Length': file.length });
      res.write(file.subarray(0, 30_000));
      cut = () => res.destroy();
    });
    const target = join(dir, 'plugin.zip');
    await writeFile(target, 'previous version');
    const progress: DownloadProgress[] = [];
    const result = await new LicensingClient(server.url, 12, 2000).download('K', null, target, {
      onProgress: (p) => {
        progress.push(p);
        if (p.received > 0) cut?.();
      },
    });
    expect(result).toMatchObject({ success: false, data: null, code: '', httpStatus: 200 });
    expect(result.message).toMatch(
      new RegExp(`^Connection error: the download stopped after \\d+ of ${file.length} bytes`),
    );
    expect(classifyResult(result)).toBe('transient');
    expect(progress.at(-1)!.received).toBeGreaterThan(0);
    expect(progress.at(-1)!.received).toBeLessThan(file.length);
    expect(await readFile(target, 'utf8')).toBe('previous version');
    expect(await readdir(dir)).toEqual(['plugin.zip']);
  });

  test('a body that stalls longer than the timeout is a connection error, and nothing is left', async () => {
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Length': file.length });
      res.write(file.subarray(0, 1000));
    });
    const result = await new LicensingClient(server.url, 12, TIMEOUT_MS).download('K', null, dir);
    expect(result.message).toBe(
      `Connection error: the download stopped after 1000 of ${file.length} bytes (no answer from the server within 0.3 seconds).`,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  test('HTTP 200 with a wrong X-Checksum-SHA256 fails verification, keeps nothing and leaves the old file alone', async () => {
    const server = await scripted((res) => {
      res.writeHead(200, {
        'Content-Length': file.length,
        'Content-Disposition': 'attachment; filename="plugin.zip"',
        'X-Checksum-SHA256': 'ab'.repeat(32),
      });
      res.end(file);
    });
    const client = new LicensingClient(server.url, 12, 2000);
    const result = await client.download('K', null, dir);
    expect(result).toEqual({
      success: false,
      data: null,
      code: '',
      httpStatus: 200,
      message: `Download verification failed: the SHA-256 checksum does not match X-Checksum-SHA256 (expected ${'ab'.repeat(32)}, received ${sha256Hex(file)}).`,
    });
    expect(classifyResult(result)).toBe('transient');
    expect(await readdir(dir)).toEqual([]);

    const target = join(dir, 'plugin.zip');
    await writeFile(target, 'previous version');
    expect((await client.download('K', null, target)).success).toBe(false);
    expect((await client.download('K', null, dir)).success).toBe(false);
    expect(await readFile(target, 'utf8')).toBe('previous version');
    expect(await readdir(dir)).toEqual(['plugin.zip']);
  });

  test('a wrong expectedSha256 from the caller fails verification even without a checksum header', async () => {
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Length': file.length });
      res.end(file);
    });
    const client = new LicensingClient(server.url, 12, 2000);
    const wrong = await client.download('K', null, dir, { expectedSha256: '00'.repeat(32) });
    expect(wrong.message).toMatch(/^Download verification failed: .* expectedSha256 /);
    expect(await readdir(dir)).toEqual([]);
    const right = await client.download('K', null, dir, { expectedSha256: sha256Hex(file) });
    expect(right).toMatchObject({ success: true, data: { checksumVerified: true } });
  });

  test('a chunked download (no Content-Length) cut off midway is a connection error and leaves nothing', async () => {
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Type': 'application/zip' });
      res.write(file.subarray(0, 30_000), () => setTimeout(() => res.destroy(), 20));
    });
    const target = join(dir, 'plugin.zip');
    await writeFile(target, 'previous version');
    const result = await new LicensingClient(server.url, 12, 2000).download('K', null, target);
    expect(result).toMatchObject({ success: false, data: null, code: '', httpStatus: 200 });
    expect(result.message).toMatch(/^Connection error: the download stopped after \d+ bytes \(/);
    expect(await readFile(target, 'utf8')).toBe('previous version');
    expect(await readdir(dir)).toEqual(['plugin.zip']);
  });

  test('a body delimited only by the connection closing: saved when whole, refused by the checksum when cut', async () => {
    // HTTP/1.0 style: neither Content-Length nor chunked, so an early close looks like the end.
    const bodies = [file, file.subarray(0, 30_000)];
    const raw: Server = createServer((socket) => {
      socket.once('data', () => {
        const body = bodies.shift()!;
        socket.end(
          Buffer.concat([
            Buffer.from(
              `HTTP/1.1 200 OK\r\nConnection: close\r\nX-Checksum-SHA256: ${sha256Hex(file)}\r\n\r\n`,
            ),
            body,
          ]),
        );
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = raw.address() as { port: number };
      const client = new LicensingClient(`http://127.0.0.1:${port}`, 12, 2000);
      const whole = await client.download('K', null, join(dir, 'whole.zip'));
      expect(whole).toMatchObject({
        success: true,
        data: { size: file.length, checksumVerified: true },
      });
      const cut = await client.download('K', null, join(dir, 'cut.zip'));
      expect(cut.message).toMatch(/^Download verification failed: the SHA-256 checksum/);
      expect(await readdir(dir)).toEqual(['whole.zip']);
    } finally {
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  test('a size other than the expected file_size fails verification and keeps nothing', async () => {
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Length': file.length });
      res.end(file);
    });
    const result = await new LicensingClient(server.url, 12, 2000).download('K', null, dir, {
      expectedSize: file.length + 1,
    });
    expect(result.message).toBe(
      `Download verification failed: expected ${file.length + 1} bytes, received ${file.length}.`,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  test('a destination that cannot be written is reported, not thrown', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS }));
    const result = await new LicensingClient(server.url, 12, 2000).download(
      'GOOD',
      null,
      join(dir, 'missing', 'plugin.zip'),
    );
    expect(result).toMatchObject({ success: false, code: '' });
    expect(result.message).toMatch(/^Could not write the package: .*ENOENT/);
  });
});

describe('spec 4.5 download: checksum headers', () => {
  const headerCases: Array<[string, Record<string, string>]> = [
    ['X-Checksum-SHA256 (hex)', { 'X-Checksum-SHA256': sha256Hex(file).toUpperCase() }],
    ['Digest: sha-256=<base64>', { Digest: `md5=abc, SHA-256=${sha256Base64(file)}` }],
    ['Repr-Digest: sha-256=:<base64>:', { 'Repr-Digest': `sha-256=:${sha256Base64(file)}:` }],
  ];
  test.each(headerCases)('a matching %s is verified', async (_name, headers) => {
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Length': file.length, ...headers });
      res.end(file);
    });
    const result = await new LicensingClient(server.url, 12, 2000).download('K', null, dir);
    expect(result).toMatchObject({ success: true, data: { checksumVerified: true } });
  });

  test.each([
    ['Digest', { Digest: `sha-256=${sha256Base64(Buffer.from('other'))}` }],
    ['Repr-Digest', { 'Repr-Digest': `sha-256=:${sha256Base64(Buffer.from('other'))}:` }],
  ])('a mismatching %s header fails the download', async (_name, headers) => {
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Length': file.length, ...headers });
      res.end(file);
    });
    const result = await new LicensingClient(server.url, 12, 2000).download('K', null, dir);
    expect(result.message).toMatch(/^Download verification failed: the SHA-256 checksum/);
    expect(await readdir(dir)).toEqual([]);
  });

  test('the streaming SHA-256 matches node:crypto across block boundaries', () => {
    for (const size of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 65_537]) {
      const data = packageBytes(size, size + 7);
      const streamed = new Sha256();
      for (let i = 0; i < size; i += 17) streamed.update(data.subarray(i, i + 17));
      expect(streamed.hex()).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });
});

describe('spec 4.5 download: progress and other destinations', () => {
  test('progress is reported from 0 to the total, growing', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS, chunkSize: 8192 }));
    const progress: DownloadProgress[] = [];
    await new LicensingClient(server.url, 12, 2000).download('GOOD', null, dir, {
      onProgress: (p) => progress.push(p),
    });
    expect(progress[0]).toEqual({ received: 0, total: file.length });
    expect(progress.at(-1)).toEqual({ received: file.length, total: file.length });
    expect(progress.length).toBeGreaterThan(2);
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.received).toBeGreaterThan(progress[i - 1]!.received);
    }
  });

  test('without Content-Length (chunked) the total is unknown and the download still succeeds', async () => {
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.write(file.subarray(0, 50_000));
      res.end(file.subarray(50_000));
    });
    const progress: DownloadProgress[] = [];
    const result = await new LicensingClient(server.url, 12, 2000).download('K', null, dir, {
      onProgress: (p) => progress.push(p),
    });
    expect(result).toMatchObject({ success: true, data: { size: file.length } });
    expect(progress.every((p) => p.total === null)).toBe(true);
  });

  test('a null destination returns the package as a Blob (the browser way)', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS }));
    const result = await new LicensingClient(server.url, 12, 2000).download('GOOD', null, null);
    if (!result.success) throw new Error(result.message);
    expect(result.data.path).toBeNull();
    expect(result.data.blob!.type).toBe('application/zip');
    expect(Buffer.compare(Buffer.from(await result.data.blob!.arrayBuffer()), file)).toBe(0);
  });

  test('a WritableStream destination receives the bytes and is closed on success', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS }));
    const chunks: Uint8Array[] = [];
    let closed = false;
    const stream = new WritableStream<Uint8Array>({
      write: (chunk) => void chunks.push(chunk),
      close: () => void (closed = true),
    });
    const result = await new LicensingClient(server.url, 12, 2000).download('GOOD', null, stream);
    expect(result).toMatchObject({ success: true, data: { path: null, blob: null } });
    expect(closed).toBe(true);
    expect(Buffer.compare(Buffer.concat(chunks), file)).toBe(0);
  });

  test('only the silence of the server counts against the timeout, not a slow destination', async () => {
    const server = await start(specServer({ productId: 12, file, keys: KEYS }));
    let first = true;
    const stream = new WritableStream<Uint8Array>({
      write: async () => {
        if (first) await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + 200));
        first = false;
      },
    });
    const client = new LicensingClient(server.url, 12, TIMEOUT_MS);
    expect(await client.download('GOOD', null, stream)).toMatchObject({ success: true });
  });

  test('a WritableStream destination is aborted when the download fails, so its owner discards it', async () => {
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Length': file.length, 'X-Checksum-SHA256': '00'.repeat(32) });
      res.end(file);
    });
    let aborted: unknown;
    let closed = false;
    const stream = new WritableStream<Uint8Array>({
      abort: (reason) => void (aborted = reason),
      close: () => void (closed = true),
    });
    const result = await new LicensingClient(server.url, 12, 2000).download('K', null, stream);
    expect(result.success).toBe(false);
    expect(closed).toBe(false);
    expect(String(aborted)).toMatch(/Download verification failed/);
  });

  test('an AbortSignal cancels the download', async () => {
    const server = await scripted((res) => {
      res.writeHead(200, { 'Content-Length': file.length });
      res.write(file.subarray(0, 1000));
    });
    const controller = new AbortController();
    const result = await new LicensingClient(server.url, 12, 5000).download('K', null, dir, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.received > 0) controller.abort();
      },
    });
    expect(result.message).toMatch(/^Connection error: .*the request was cancelled/);
    expect(await readdir(dir)).toEqual([]);
  });
});
