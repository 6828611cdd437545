import { DocumentedCalls } from '../../support/documented-calls.js';
import { AUTH, createVersion, packageBytes, sha256, uploadFile } from '../../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../../support/system.js';

/**
 * plugin-update-checker's metadata URL (docs/updaters/wordpress.md) against the running system:
 * the fields its `PluginInfo` requires, `download_url` only for a key that may download, the file
 * it names fetched and checked, channels, ETag/304 and bad input.
 */

/** The seller's name, which the plugin information gives as its author (HTML, as WordPress reads it). */
const STORE_NAME = 'Plugins & Sons';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem({ STORE_NAME });
});
afterAll(() => system?.stop());

const calls = new DocumentedCalls();

/** Release notes in Markdown, with markup and a link that must not reach the page as such. */
const MARKDOWN =
  '- **Bold** fix <script>alert(1)</script>\n- [a trap](javascript:alert(1)) and [docs](https://example.com/docs)';
const MARKDOWN_HTML =
  '<ul>\n<li><strong>Bold</strong> fix &lt;script&gt;alert(1)&lt;/script&gt;</li>\n' +
  '<li>[a trap](javascript:alert(1)) and <a href="https://example.com/docs">docs</a></li>\n</ul>';
const FEED = `${API_BASE}/updates/{product_id}/wordpress.json`;
const PINNED = `${API_BASE}/downloads/{product_id}/files/{file_id}/{filename}`;

async function feed(productId: number | string, query = '', headers: Record<string, string> = {}) {
  let req = system.api().get(`${API_BASE}/updates/${productId}/wordpress.json${query}`);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  return calls.saw('get', FEED, await req);
}

async function licensedPlugin(wordpress: Record<string, unknown> | null = null) {
  const licensed = await system.license();
  if (wordpress) {
    const res = await system
      .admin()
      .patch(`/admin/v1/products/${licensed.product.id}`)
      .set(AUTH)
      .send({ wordpress });
    expect(res.status).toBe(200);
  }
  const version = await createVersion(system, licensed.product.id, '2.1.0', {
    release_notes: 'Fixes <script>alert(1)</script> & more.\n\nSecond paragraph.',
    release_date: '2026-02-03',
  });
  const bytes = packageBytes(10_000);
  const file = await uploadFile(system, version.id, bytes, 'my-plugin.zip');
  return { ...licensed, bytes, file };
}

describe('docs/updaters/wordpress.md: plugin-update-checker', () => {
  test('a key that may download: the required fields and a download_url serving the file', async () => {
    const { product, key, bytes, file } = await licensedPlugin({
      slug: 'my-plugin',
      requires: '6.0',
      tested: '6.5',
      requires_php: '8.1',
    });
    const res = await feed(product.id, `?license_key=${key}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const metadata = JSON.parse(res.text);
    expect(metadata).toEqual({
      name: product.title,
      slug: 'my-plugin',
      version: '2.1.0',
      author: 'Plugins &amp; Sons',
      download_url: expect.stringContaining(
        `/downloads/${product.id}/files/${file.id}/my-plugin.zip?`,
      ),
      requires: '6.0',
      tested: '6.5',
      requires_php: '8.1',
      last_updated: '2026-02-03 00:00:00',
      sections: {
        description: `<p>${product.title}</p>`,
        changelog:
          '<h4>2.1.0</h4><p>Fixes &lt;script&gt;alert(1)&lt;/script&gt; &amp; more.</p>\n' +
          '<p>Second paragraph.</p>',
      },
    });
    const url = new URL(metadata.download_url as string);
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
  });

  test('no key, or a key that may not download: the update is shown, without download_url', async () => {
    const { product } = await licensedPlugin();
    for (const query of ['', '?license_key=not-a-key']) {
      const res = await feed(product.id, query);
      expect(res.status).toBe(200);
      const metadata = JSON.parse(res.text);
      expect(metadata).toMatchObject({ name: product.title, version: '2.1.0' });
      expect(metadata.slug).toBe(`product-${product.id}`);
      expect(metadata).not.toHaveProperty('download_url');
      expect(metadata).not.toHaveProperty('requires');
    }
    const expired = await system.license({
      product,
      status: 'active',
      expires_at: '2020-01-01T00:00:00Z',
    });
    const res = await feed(product.id, `?license_key=${expired.key}`);
    expect(JSON.parse(res.text)).not.toHaveProperty('download_url');
  });

  test("the details modal's fields: version (WordPress compares it with the installed one) and the seller's name as author", async () => {
    const { product } = await licensedPlugin();
    const metadata = JSON.parse((await feed(product.id)).text);
    expect(metadata).toMatchObject({ version: '2.1.0', author: 'Plugins &amp; Sons' });
  });

  test('the changelog is the Markdown of the release notes as HTML: **bold** is <strong>, raw HTML escaped, a javascript: link no link', async () => {
    const { product } = await system.license();
    const version = await createVersion(system, product.id, '3.0.0', { release_notes: MARKDOWN });
    await uploadFile(system, version.id, packageBytes(100), 'my-plugin.zip');
    const { changelog } = JSON.parse((await feed(product.id)).text).sections;
    expect(changelog).toBe(`<h4>3.0.0</h4>${MARKDOWN_HTML}`);
  });

  test('channel: beta takes a beta version, stable does not; nothing offered is 404', async () => {
    const { product, key } = await licensedPlugin();
    const beta = await createVersion(system, product.id, '2.2.0-beta.1', { channel: 'beta' });
    await uploadFile(system, beta.id, packageBytes(100), 'my-plugin-beta.zip');
    const stable = await feed(product.id, `?license_key=${key}`);
    expect(JSON.parse(stable.text).version).toBe('2.1.0');
    const betaFeed = await feed(product.id, `?license_key=${key}&channel=beta`);
    expect(JSON.parse(betaFeed.text).version).toBe('2.2.0-beta.1');
    const empty = await system.license();
    const none = await feed(empty.product.id, `?license_key=${empty.key}`);
    expect([none.status, none.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('ETag and 304', async () => {
    const { product, key } = await licensedPlugin();
    const first = await feed(product.id, `?license_key=${key}`);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await feed(product.id, `?license_key=${key}`, { 'If-None-Match': etag });
    expect([again.status, again.text]).toEqual([304, '']);
    const keyless = await feed(product.id, '', { 'If-None-Match': etag });
    expect(keyless.status).toBe(200);
  });

  test('bad input gets the error envelope', async () => {
    const { product, key } = await licensedPlugin();
    for (const query of [`?license_key=${key}&channel=nightly`, `?license_key=a&dlid=b`]) {
      const res = await feed(product.id, query);
      expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    }
    const badId = await feed('abc');
    expect([badId.status, badId.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    const missing = await feed(99_999_999);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('every documented success of these routes was seen above', () => {
    expect(calls.unseenSuccesses(['wordpressFeed'])).toEqual([]);
  });
});
