import { DocumentedCalls } from '../../support/documented-calls.js';
import { createVersion, packageBytes, sha256, uploadFile } from '../../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../../support/system.js';

/**
 * Tauri's updater (docs/updaters.md) against the running system: its endpoint with the target,
 * processor and current version, 204 when nothing newer is allowed, the file it lists fetched and
 * checked, and the refusals of spec 4.5 for a key that may not download.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const calls = new DocumentedCalls();
const TAURI = `${API_BASE}/updates/{product_id}/tauri/{target}/{arch}/{current_version}`;
const PINNED = `${API_BASE}/downloads/{product_id}/files/{file_id}/{filename}`;

/** A base64 signature as Tauri's `.sig` files hold (the bytes are not checked here). */
const signature = () => packageBytes(64).toString('base64');

async function tauri(
  productId: number,
  path: string,
  options: { query?: string; headers?: Record<string, string> } = {},
) {
  let req = system
    .api()
    .get(`${API_BASE}/updates/${productId}/tauri/${path}${options.query ?? ''}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
  return calls.saw('get', TAURI, await req);
}

async function licensedApp() {
  const licensed = await system.license();
  const version = await createVersion(system, licensed.product.id, '1.2.0', {
    release_notes: '**Faster** start, [details](https://example.com/notes).',
    release_date: '2026-03-04',
  });
  const bytes = packageBytes(20_000);
  const sig = signature();
  const file = await uploadFile(system, version.id, bytes, 'App_1.2.0_x64.msi.zip', {
    platform: 'windows',
    arch: 'x86_64',
    signature: sig,
  });
  return { ...licensed, bytes, file, sig };
}

describe('docs/updaters.md: Tauri', () => {
  test('a newer version for the target: version, notes, date, URL and signature; the URL serves the file', async () => {
    const { product, key, bytes, file, sig } = await licensedApp();
    const res = await tauri(product.id, 'windows/x86_64/1.1.0', { query: `?license_key=${key}` });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toEqual({
      version: '1.2.0',
      // Tauri shows its notes as text: the Markdown's words without its marks.
      notes: 'Faster start, details (https://example.com/notes).',
      pub_date: '2026-03-04T00:00:00Z',
      url: expect.stringMatching(
        new RegExp(`/downloads/${product.id}/files/${file.id}/App_1\\.2\\.0_x64\\.msi\\.zip\\?`),
      ),
      signature: sig,
    });
    // The key came in the query, so the URL repeats it: Tauri fetches the URL as it is.
    const url = new URL(JSON.parse(res.text).url as string);
    expect(url.searchParams.get('license_key')).toBe(key);
    const served = calls.saw(
      'get',
      PINNED,
      await system
        .api()
        .get(`${url.pathname}${url.search}`)
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done(null, Buffer.concat(chunks)));
        }),
    );
    expect(served.status).toBe(200);
    expect(sha256(served.body as Buffer)).toBe(sha256(bytes));
    expect(served.headers['content-disposition']).toContain('App_1.2.0_x64.msi.zip');
  });

  test('the key in the Authorization header: the URL does not carry it', async () => {
    const { product, key } = await licensedApp();
    const res = await tauri(product.id, 'windows/x86_64/1.1.0', {
      headers: { Authorization: `License ${key}` },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).url).not.toContain(key);
  });

  test('204 when the app is current, for another target, or the file has no signature', async () => {
    const { product, key } = await licensedApp();
    const query = `?license_key=${key}`;
    expect((await tauri(product.id, 'windows/x86_64/1.2.0', { query })).status).toBe(204);
    expect((await tauri(product.id, 'windows/x86_64/2.0.0', { query })).status).toBe(204);
    expect((await tauri(product.id, 'linux/x86_64/1.0.0', { query })).status).toBe(204);
    expect((await tauri(product.id, 'windows/aarch64/1.0.0', { query })).status).toBe(204);
    const unsigned = await createVersion(system, product.id, '1.3.0');
    await uploadFile(system, unsigned.id, packageBytes(100), 'App_1.3.0.msi.zip', {
      platform: 'windows',
    });
    const res = await tauri(product.id, 'windows/x86_64/1.1.0', { query });
    expect(JSON.parse(res.text).version).toBe('1.2.0');
  });

  test('a key that may not download is refused as spec 4.5 refuses it, never 404', async () => {
    const { product } = await licensedApp();
    const none = await tauri(product.id, 'windows/x86_64/1.0.0');
    expect([none.status, none.body.error.code]).toEqual([403, 'LICENSE_INVALID']);
    const unknown = await tauri(product.id, 'windows/x86_64/1.0.0', { query: '?license_key=nope' });
    expect([unknown.status, unknown.body.error.code]).toEqual([403, 'LICENSE_INVALID']);
  });

  test('bad input gets the error envelope', async () => {
    const { product, key } = await licensedApp();
    for (const path of [
      'windows/x86_64/not-a-version',
      'plan9/x86_64/1.0.0',
      'linux/sparc/1.0.0',
    ]) {
      const res = await tauri(product.id, path, { query: `?license_key=${key}` });
      expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    }
    const basic = await tauri(product.id, 'windows/x86_64/1.0.0', {
      headers: { Authorization: 'Basic eDp5' },
    });
    expect([basic.status, basic.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    const missing = await tauri(99_999_999, 'windows/x86_64/1.0.0');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('ETag and 304: the same answer for the same caller is not sent twice', async () => {
    const { product, key } = await licensedApp();
    const query = `?license_key=${key}`;
    const first = await tauri(product.id, 'windows/x86_64/1.0.0', { query });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await tauri(product.id, 'windows/x86_64/1.0.0', {
      query,
      headers: { 'If-None-Match': etag },
    });
    expect([again.status, again.text, again.headers.etag]).toEqual([304, '', etag]);
    const other = await tauri(product.id, 'windows/x86_64/1.0.0', {
      query,
      headers: { 'If-None-Match': '"something-else"' },
    });
    expect(other.status).toBe(200);
  });

  test("a pinned download refuses a name that is not the file's, and a file of another product", async () => {
    const { product, key, file } = await licensedApp();
    const wrong = calls.saw(
      'get',
      PINNED,
      await system
        .api()
        .get(`${API_BASE}/downloads/${product.id}/files/${file.id}/other.zip?license_key=${key}`),
    );
    expect([wrong.status, wrong.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const other = await licensedApp();
    const foreign = await system
      .api()
      .get(
        `${API_BASE}/downloads/${other.product.id}/files/${file.id}/${file.filename}?license_key=${other.key}`,
      );
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('every documented success of these routes was seen above', () => {
    expect(calls.unseenSuccesses(['tauriFeed'])).toEqual([]);
  });
});
