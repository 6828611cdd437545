import { DocumentedCalls } from '../../support/documented-calls.js';
import { createVersion, packageBytes, sha256, uploadFile } from '../../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../../support/system.js';

/**
 * EDD Software Licensing's API at `{api_base}/edd` (docs/updaters/wordpress.md), as
 * EDD_SL_Plugin_Updater and EDD's license forms call it: get_version's three answers, the license
 * actions in EDD's shapes, the beta channel, and bad input.
 */

/** The seller's name, which get_version gives as its author (HTML, as WordPress reads it). */
const STORE_NAME = 'Plugins & Sons';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem({ STORE_NAME });
});
afterAll(() => system?.stop());

const calls = new DocumentedCalls();
const EDD = `${API_BASE}/edd`;

/** A POST as EDD_SL_Plugin_Updater sends it (PHP's false is `0`). */
async function post(fields: Record<string, string | number | undefined>) {
  const body = new URLSearchParams(
    Object.entries(fields).flatMap(([k, v]): Array<[string, string]> =>
      v === undefined ? [] : [[k, String(v)]],
    ),
  ).toString();
  return calls.saw(
    'post',
    EDD,
    await system
      .api()
      .post(EDD)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(body),
  );
}

async function get(fields: Record<string, string | number>, headers: Record<string, string> = {}) {
  const query = new URLSearchParams(
    Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
  );
  return calls.saw('get', EDD, await system.api().get(`${EDD}?${query}`).set(headers));
}

const updaterFields = {
  item_name: 'My Plugin',
  version: '1.0.0',
  slug: 'my-plugin',
  author: 'Me',
  url: 'https://shop.example.com',
  beta: 0,
  php_version: '8.2.1',
  wp_version: '6.5',
};

async function licensedPlugin(options: Parameters<TestSystem['license']>[0] = {}) {
  const licensed = await system.license({ activation_limit: 1, ...options });
  const version = await createVersion(system, licensed.product.id, '1.4.0', {
    release_notes: 'New <b>things</b>.',
  });
  const bytes = packageBytes(5_000);
  await uploadFile(system, version.id, bytes, 'my-plugin.zip');
  return { ...licensed, bytes };
}

describe('docs/updaters/wordpress.md: EDD get_version', () => {
  test('a key that may download: package and download_link serve the file', async () => {
    const { product, key, bytes } = await licensedPlugin();
    const res = await post({
      edd_action: 'get_version',
      license: key,
      item_id: product.id,
      ...updaterFields,
      url: '',
    });
    expect(res.status).toBe(200);
    const info = JSON.parse(res.text);
    expect(info).toMatchObject({
      new_version: '1.4.0',
      stable_version: '1.4.0',
      name: product.title,
      slug: `product-${product.id}`,
      sections: {
        description: `<p>${product.title}</p>`,
        changelog: '<h4>1.4.0</h4><p>New &lt;b&gt;things&lt;/b&gt;.</p>',
      },
      banners: 'a:0:{}',
      icons: 'a:0:{}',
    });
    expect(info.last_updated).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(info).not.toHaveProperty('msg');
    expect(info.download_link).toBe(info.package);
    const url = new URL(info.package as string);
    expect(url.searchParams.get('license_key')).toBe(key);
    const served = await system
      .api()
      .get(`${url.pathname}${url.search}`)
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(served.status).toBe(200);
    expect(sha256(served.body as Buffer)).toBe(sha256(bytes));
  });

  test("the details modal's fields: version, the new version WordPress compares with the installed one, and the seller's name as author", async () => {
    const { product, key } = await licensedPlugin();
    const info = JSON.parse(
      (await post({ edd_action: 'get_version', license: key, item_id: product.id })).text,
    );
    expect(info).toMatchObject({
      new_version: '1.4.0',
      version: '1.4.0',
      author: 'Plugins &amp; Sons',
    });
    const none = await system.license();
    const empty = JSON.parse(
      (await post({ edd_action: 'get_version', license: none.key, item_id: none.product.id })).text,
    );
    expect(empty).toMatchObject({ new_version: '', version: '', author: 'Plugins &amp; Sons' });
  });

  test('the changelog is the Markdown of the release notes as HTML: **bold** is <strong>, raw HTML escaped, a javascript: link no link', async () => {
    const { product, key } = await system.license();
    const version = await createVersion(system, product.id, '2.0.0', {
      release_notes: '**Bold** fix <script>alert(1)</script>\n[a trap](javascript:alert(1))',
    });
    await uploadFile(system, version.id, packageBytes(100), 'my-plugin.zip');
    const info = JSON.parse(
      (await post({ edd_action: 'get_version', license: key, item_id: product.id })).text,
    );
    expect(info.sections.changelog).toBe(
      '<h4>2.0.0</h4><p><strong>Bold</strong> fix &lt;script&gt;alert(1)&lt;/script&gt;<br>\n' +
        '[a trap](javascript:alert(1))</p>',
    );
  });

  test('an invalid key: the version, no package, the reason in msg, sections present', async () => {
    const { product } = await licensedPlugin();
    const res = await get({ edd_action: 'get_version', license: 'nope', item_id: product.id });
    expect(res.status).toBe(200);
    const info = JSON.parse(res.text);
    expect(info).toMatchObject({ new_version: '1.4.0', package: '', download_link: '' });
    expect(info.msg).toEqual(expect.any(String));
    expect(info.sections).toEqual(expect.objectContaining({ changelog: expect.any(String) }));
  });

  test('no version for the caller: empty new_version, msg, sections present', async () => {
    const { product, key } = await system.license();
    const res = await post({ edd_action: 'get_version', license: key, item_id: product.id });
    expect(res.status).toBe(200);
    const info = JSON.parse(res.text);
    expect(info).toMatchObject({ new_version: '', package: '', sections: { changelog: '' } });
    expect(info.msg).toMatch(/No version/);
  });

  test('beta=1 takes the beta channel; stable_version stays the stable one', async () => {
    const { product, key } = await licensedPlugin();
    const beta = await createVersion(system, product.id, '1.5.0-beta.1', { channel: 'beta' });
    await uploadFile(system, beta.id, packageBytes(100), 'my-plugin-beta.zip');
    const stable = JSON.parse(
      (await post({ edd_action: 'get_version', license: key, item_id: product.id, beta: 0 })).text,
    );
    expect(stable.new_version).toBe('1.4.0');
    const res = await post({
      edd_action: 'get_version',
      license: key,
      item_id: product.id,
      beta: 1,
    });
    expect(JSON.parse(res.text)).toMatchObject({
      new_version: '1.5.0-beta.1',
      stable_version: '1.4.0',
    });
  });
});

describe('docs/updaters.md, "Caching": EDD get_version', () => {
  test('by GET, as every feed: an ETag, 304 to an If-None-Match naming it, private, no-cache', async () => {
    const { product, key } = await licensedPlugin();
    const fields = { edd_action: 'get_version', license: key, item_id: product.id };
    const first = await get(fields);
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get(fields, { 'If-None-Match': etag });
    expect([again.status, again.text, again.headers.etag]).toEqual([304, '', etag]);
    // Another answer is another ETag: a new version is not hidden behind the old one.
    const newer = await createVersion(system, product.id, '1.5.0');
    await uploadFile(system, newer.id, packageBytes(100), 'my-plugin-newer.zip');
    const changed = await get(fields, { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(JSON.parse(changed.text).new_version).toBe('1.5.0');
    expect(changed.headers.etag).not.toBe(etag);
  });

  test('by POST, as EDD_SL_Plugin_Updater sends it: no-store, no ETag, never 304', async () => {
    const { product, key } = await licensedPlugin();
    const fields = { edd_action: 'get_version', license: key, item_id: product.id };
    const etag = (await get(fields)).headers.etag as string;
    const posted = await calls.saw(
      'post',
      EDD,
      await system
        .api()
        .post(EDD)
        .set('If-None-Match', etag)
        .type('form')
        .send(new URLSearchParams({ ...fields, item_id: String(product.id) }).toString()),
    );
    expect(posted.status).toBe(200);
    expect(JSON.parse(posted.text).new_version).toBe('1.4.0');
    expect(posted.headers['cache-control']).toBe('no-store');
    expect(posted.headers).not.toHaveProperty('etag');
  });

  test('the license actions, by GET or POST, are no-store without an ETag', async () => {
    const { product, key } = await licensedPlugin();
    const site = { license: key, item_id: product.id, url: 'https://one.example.com' };
    for (const res of [
      await get({ edd_action: 'check_license', ...site }),
      await post({ edd_action: 'check_license', ...site }),
    ]) {
      expect([res.status, res.headers['cache-control'], res.headers.etag]).toEqual([
        200,
        'no-store',
        undefined,
      ]);
    }
  });
});

describe('docs/updaters/wordpress.md: EDD license actions', () => {
  test('activate, check, deactivate: a round trip in EDD shapes, and the limit', async () => {
    const { product, key } = await licensedPlugin();
    const site = { license: key, item_id: product.id, url: 'https://one.example.com' };
    const before = await post({ edd_action: 'check_license', ...site });
    expect(JSON.parse(before.text)).toMatchObject({ success: false, license: 'site_inactive' });
    const activated = await post({ edd_action: 'activate_license', ...site });
    expect(activated.status).toBe(200);
    expect(JSON.parse(activated.text)).toMatchObject({
      success: true,
      license: 'valid',
      item_id: product.id,
      item_name: product.title,
      expires: 'lifetime',
      license_limit: 1,
      site_count: 1,
      activations_left: 0,
      checksum: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const checked = await get({ edd_action: 'check_license', ...site });
    expect(JSON.parse(checked.text)).toMatchObject({ success: true, license: 'valid' });
    const full = await post({
      ...site,
      edd_action: 'activate_license',
      url: 'https://two.example.com',
    });
    expect([full.status, JSON.parse(full.text)]).toEqual([
      200,
      expect.objectContaining({
        success: false,
        license: 'invalid',
        error: 'no_activations_left',
        max_sites: 1,
        site_count: 1,
      }),
    ]);
    const gone = await post({ edd_action: 'deactivate_license', ...site });
    expect(JSON.parse(gone.text)).toMatchObject({
      success: true,
      license: 'deactivated',
      site_count: 0,
      activations_left: 1,
    });
    const again = await post({ edd_action: 'deactivate_license', ...site });
    expect(JSON.parse(again.text)).toMatchObject({ success: false, license: 'failed' });
  });

  test('an expired, an unknown and another item key: success false with EDD errors', async () => {
    const { product, key } = await licensedPlugin({ expires_at: '2020-01-02T03:04:05Z' });
    const site = { item_id: product.id, url: 'https://one.example.com' };
    const expired = JSON.parse(
      (await post({ edd_action: 'activate_license', license: key, ...site })).text,
    );
    expect(expired).toMatchObject({
      success: false,
      error: 'expired',
      expires: '2020-01-02 03:04:05',
    });
    expect(
      JSON.parse((await post({ edd_action: 'check_license', license: key, ...site })).text),
    ).toMatchObject({ success: false, license: 'expired' });
    const unknown = JSON.parse(
      (await post({ edd_action: 'activate_license', license: 'nope', ...site })).text,
    );
    expect(unknown).toMatchObject({ success: false, error: 'missing' });
    const other = await system.license();
    const mismatch = JSON.parse(
      (await post({ edd_action: 'activate_license', license: other.key, ...site })).text,
    );
    expect(mismatch).toMatchObject({ success: false, error: 'invalid_item_id' });
    const checkOther = JSON.parse(
      (await post({ edd_action: 'check_license', license: other.key, ...site })).text,
    );
    expect(checkOther).toMatchObject({ success: false, license: 'invalid_item_id' });
  });

  test('bad input gets the error envelope and changes nothing', async () => {
    const { product, key } = await licensedPlugin();
    for (const fields of [
      { license: key, item_id: product.id, url: 'https://a.example.com' },
      { edd_action: 'renew_license', license: key, url: 'https://a.example.com' },
      { edd_action: 'activate_license', item_id: product.id, url: 'https://a.example.com' },
      { edd_action: 'activate_license', license: key, item_id: product.id },
      {
        edd_action: 'activate_license',
        license: key,
        item_id: 'abc',
        url: 'https://a.example.com',
      },
      { edd_action: 'get_version', license: key },
    ]) {
      const res = await post(fields);
      expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    }
    const viaGet = await get({ edd_action: 'nothing' });
    expect([viaGet.status, viaGet.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    const missing = await post({ edd_action: 'get_version', item_id: 99_999_999 });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const checked = JSON.parse(
      (
        await post({
          edd_action: 'check_license',
          license: key,
          item_id: product.id,
          url: 'https://a.example.com',
        })
      ).text,
    );
    expect(checked).toMatchObject({ license: 'site_inactive', site_count: 0 });
  });

  test('every documented success of these routes was seen above', () => {
    expect(calls.unseenSuccesses(['eddApiGet', 'eddApiPost'])).toEqual([]);
  });
});
