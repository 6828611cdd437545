import { createHash } from 'node:crypto';
import type request from 'supertest';
import { DocumentedCalls } from '../../support/documented-calls.js';
import {
  checksumMatches,
  downloadUrlWithDlid,
  joomlaChooses,
  joomlaPackageName,
  parseUpdateStream,
  type JoomlaCheck,
  type JoomlaUpdate,
} from '../../support/joomla-updater.js';
import { readXmlEvents } from '../../support/joomla-update-xml.js';
import { AUTH, createVersion, packageBytes, sha256, uploadFile } from '../../support/packages.js';
import { API_BASE, bootSystem, unique, type TestSystem } from '../../support/system.js';

/**
 * Joomla's updater (docs/updaters/joomla.md) against the running system, read with the rules
 * of Joomla's own source (test/support/joomla-updater.ts): the stream, the update Joomla would
 * choose, the download URL as Joomla builds and sends it with its hash checked, the "Install
 * from URL" stream and the changelog.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const calls = new DocumentedCalls();
const STREAM = `${API_BASE}/updates/{product_id}/joomla.xml`;
const KEY_STREAM = `${API_BASE}/updates/{product_id}/joomla/{key}.xml`;
const CHANGELOG = `${API_BASE}/updates/{product_id}/changelog.xml`;
const PINNED = `${API_BASE}/downloads/{product_id}/files/{file_id}/{filename}`;

const JOOMLA = {
  element: 'example',
  type: 'plugin',
  client: 'site',
  folder: 'system',
  target_platform: '[45]\\.',
  php_minimum: '8.1',
};

const isJson = (response: { headers: Record<string, unknown> }) =>
  String(response.headers['content-type'] ?? '').startsWith('application/json');

/** Reads an answer's body as text (XML) or bytes (a package), and an error envelope as JSON. */
function read(req: request.Test, as: 'text' | 'bytes') {
  return req.buffer(true).parse((response, done) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => {
      const bytes = Buffer.concat(chunks);
      if (isJson(response)) done(null, JSON.parse(bytes.toString('utf8')));
      else done(null, as === 'text' ? bytes.toString('utf8') : bytes);
    });
  });
}

async function get(template: string, path: string, headers: Record<string, string> = {}) {
  let req = system.api().get(path);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  const res = calls.saw('get', template, await read(req, 'text'));
  const error = isJson(res)
    ? (res.body as { error: { code: string; message: string } }).error
    : undefined;
  return {
    status: res.status,
    headers: res.headers,
    text: error ? '' : (res.body as string),
    error,
  };
}

const stream = (productId: number, query = '', headers?: Record<string, string>) =>
  get(STREAM, `${API_BASE}/updates/${productId}/joomla.xml${query}`, headers);

/** What Joomla's cURL transport receives for a URL (the test system listens elsewhere). */
async function fetchAsJoomla(url: string) {
  const { pathname, search } = new URL(url);
  const res = calls.saw(
    'get',
    PINNED,
    await read(system.api().get(`${pathname}${search}`), 'bytes'),
  );
  return { status: res.status, body: res.body as Buffer, headers: res.headers };
}

/** A Joomla plugin product with a license, a stable 1.0.0 and a beta 1.1.0. */
async function joomlaProduct(
  download_access = 'license_key',
  joomla: Record<string, unknown> = JOOMLA,
) {
  const created = await system
    .admin()
    .post('/admin/v1/products')
    .set(AUTH)
    .send({ title: `Example ${unique()}`, download_access, joomla });
  expect(created.status).toBe(201);
  const product = created.body.data as { id: number; title: string };
  const licensed = await system.license({ product });
  const stable = await createVersion(system, product.id, '1.0.0', {
    release_notes: '- Fixes <b> & "quotes"\n\n* **Faster** start',
  });
  const stableBytes = packageBytes(5_000);
  const stableFile = await uploadFile(system, stable.id, stableBytes, 'plg_example-1.0.0.zip');
  const beta = await createVersion(system, product.id, '1.1.0', {
    channel: 'beta',
    release_notes: 'New editor',
  });
  const betaBytes = packageBytes(6_000);
  const betaFile = await uploadFile(system, beta.id, betaBytes, 'plg_example-1.1.0.zip');
  return { ...licensed, product, stableBytes, stableFile, betaBytes, betaFile };
}

const site = (fields: Partial<JoomlaCheck> = {}): JoomlaCheck => ({
  joomlaVersion: '5.1.2',
  phpVersion: '8.2.12',
  element: 'example',
  type: 'plugin',
  client: 'site',
  folder: 'system',
  installedVersion: '0.9.0',
  ...fields,
});

const versionOf = (update: JoomlaUpdate | null) => update?.fields['version'] ?? null;

describe('docs/updaters/joomla.md: the update stream', () => {
  test('one <update> per channel with every element Joomla reads, the hashes of the file', async () => {
    const { product, stableFile, betaFile } = await joomlaProduct();
    const res = await stream(product.id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    const { updates } = parseUpdateStream(res.text);
    expect(updates.map((u) => [u.fields['version'], u.stability])).toEqual([
      ['1.1.0', 2],
      ['1.0.0', 4],
    ]);
    const stable = updates[1]!;
    const changelog = `${system.running.gatewayUrl}${API_BASE}/updates/${product.id}/changelog.xml`;
    expect(stable.fields).toEqual({
      name: product.title,
      description: `${product.title} 1.0.0`,
      element: 'example',
      type: 'plugin',
      client: 'site',
      folder: 'system',
      version: '1.0.0',
      infourl: changelog,
      changelogurl: changelog,
    });
    expect(stable.targetplatform).toEqual({ NAME: 'joomla', VERSION: '[45]\\.' });
    expect(stable.phpMinimum).toBe('8.1');
    expect(stable.supportedDatabases).toBeUndefined();
    expect(stable.downloadurl).toEqual({
      text:
        `${system.running.gatewayUrl}${API_BASE}/downloads/${product.id}/files/` +
        `${stableFile.id}/plg_example-1.0.0.zip`,
      attrs: { TYPE: 'full', FORMAT: 'zip' },
    });
    const uploaded = stableFile as typeof stableFile & { sha512: string };
    expect(stable.hashes).toEqual({ sha256: stableFile.sha256, sha512: uploaded.sha512 });
    expect(updates[0]!.downloadurl!.text).toContain(`/files/${betaFile.id}/`);
  });

  test('the version Joomla chooses for its version, PHP and minimum stability', async () => {
    const { product } = await joomlaProduct();
    const parsed = parseUpdateStream((await stream(product.id)).text);
    expect(versionOf(joomlaChooses(parsed, site()))).toBe('1.0.0');
    expect(versionOf(joomlaChooses(parsed, site({ minimumStability: 'beta' })))).toBe('1.1.0');
    expect(versionOf(joomlaChooses(parsed, site({ minimumStability: 'rc' })))).toBe('1.0.0');
    expect(joomlaChooses(parsed, site({ installedVersion: '1.0.0' }))).toBeNull();
    expect(joomlaChooses(parsed, site({ joomlaVersion: '3.10.12' }))).toBeNull();
    expect(joomlaChooses(parsed, site({ phpVersion: '7.4.33' }))).toBeNull();
    // Joomla matches the one update it keeps to the installed extension: the group must agree.
    expect(joomlaChooses(parsed, site({ folder: 'content' }))).toBeNull();
  });

  test("the Joomla versions named are those the seller declares; none declared, Joomla 5 alone, so Joomla 5's pre-update check does not call the extension ready for Joomla 6", async () => {
    const { target_platform: declared, ...undeclared } = JOOMLA;
    const { product } = await joomlaProduct('license_key', undeclared);
    const saved = await system.admin().get(`/admin/v1/products/${product.id}`).set(AUTH);
    expect(saved.body.data.joomla.target_platform).toBeNull();
    const parsed = parseUpdateStream((await stream(product.id)).text);
    expect(parsed.updates.map((update) => update.targetplatform)).toEqual([
      { NAME: 'joomla', VERSION: '5\\.' },
      { NAME: 'joomla', VERSION: '5\\.' },
    ]);
    expect(versionOf(joomlaChooses(parsed, site({ joomlaVersion: '5.3.1' })))).toBe('1.0.0');
    // The pre-update check reads the stream for the Joomla it would update to, as that site would.
    expect(joomlaChooses(parsed, site({ joomlaVersion: '6.0.0' }))).toBeNull();
    expect(joomlaChooses(parsed, site({ joomlaVersion: '4.4.13' }))).toBeNull();

    // Declared, the stream names the seller's pattern: here Joomla 4 and 5, then 5 and 6.
    expect(declared).toBe('[45]\\.');
    const declaredProduct = await joomlaProduct();
    const as45 = parseUpdateStream((await stream(declaredProduct.product.id)).text);
    expect(versionOf(joomlaChooses(as45, site({ joomlaVersion: '4.4.13' })))).toBe('1.0.0');
    expect(joomlaChooses(as45, site({ joomlaVersion: '6.0.0' }))).toBeNull();
    const changed = await system
      .admin()
      .patch(`/admin/v1/products/${product.id}`)
      .set(AUTH)
      .send({ joomla: { ...undeclared, target_platform: '[56]\\.' } });
    expect(changed.status).toBe(200);
    const as56 = parseUpdateStream((await stream(product.id)).text);
    expect(versionOf(joomlaChooses(as56, site({ joomlaVersion: '6.0.0' })))).toBe('1.0.0');
  });

  test("with the key in the stream's query: that license's view (its plan's file)", async () => {
    const { product, plan, key } = await joomlaProduct();
    const version = await createVersion(system, product.id, '1.0.1');
    await uploadFile(system, version.id, packageBytes(100), 'plg_example-1.0.1.zip', {
      plan_id: String(plan.id),
    });
    const anonymous = parseUpdateStream((await stream(product.id)).text);
    expect(versionOf(joomlaChooses(anonymous, site()))).toBe('1.0.0');
    const keyed = await stream(product.id, `?dlid=${key}`);
    const chosen = joomlaChooses(parseUpdateStream(keyed.text), site());
    expect(versionOf(chosen)).toBe('1.0.1');
    // Joomla adds the key to the download URL itself: the stream's URL carries none.
    expect(chosen!.downloadurl!.text).not.toContain(key);
    expect(chosen!.fields['changelogurl']).toContain(`license_key=${key}`);
  });

  test('the download URL with ?dlid= as Joomla sends it: the file whose hash is listed, saved as a .zip', async () => {
    const { product, key, stableBytes } = await joomlaProduct();
    const chosen = joomlaChooses(parseUpdateStream((await stream(product.id)).text), site())!;
    const url = downloadUrlWithDlid(chosen.downloadurl!.text, `dlid=${key}`);
    expect(url).toMatch(/\.zip\?dlid=/);
    const served = await fetchAsJoomla(url);
    expect(served.status).toBe(200);
    expect(sha256(served.body)).toBe(sha256(stableBytes));
    expect(checksumMatches(chosen, served.body)).toBe('validated');
    expect(joomlaPackageName(served.headers['content-disposition'], url)).toBe(
      'plg_example-1.0.0.zip',
    );
    // Without the key Joomla adds, the download is refused (spec 4.5).
    expect((await fetchAsJoomla(chosen.downloadurl!.text)).status).toBe(403);
  });

  test('a download URL ending in a bare ? as Joomla 4.0 sends it (amp;dlid)', async () => {
    const { product, key } = await joomlaProduct();
    const chosen = joomlaChooses(parseUpdateStream((await stream(product.id)).text), site())!;
    const url = downloadUrlWithDlid(
      `${chosen.downloadurl!.text}?`,
      `dlid=${key}`,
      'joomla-uri-2.0.0',
    );
    expect(url).toContain('?&amp;dlid=');
    const served = await fetchAsJoomla(url);
    expect(served.status).toBe(200);
    expect(checksumMatches(chosen, served.body)).toBe('validated');
  });

  test('Install from URL: the key in the path; the download URL carries it, and &amp;dlid= is added to it', async () => {
    const { product, key, betaBytes } = await joomlaProduct();
    const res = await get(KEY_STREAM, `${API_BASE}/updates/${product.id}/joomla/${key}.xml`);
    expect(res.status).toBe(200);
    const chosen = joomlaChooses(parseUpdateStream(res.text), site({ minimumStability: 'beta' }))!;
    expect(versionOf(chosen)).toBe('1.1.0');
    // "Install from URL" downloads the URL as it is.
    const asIs = await fetchAsJoomla(downloadUrlWithDlid(chosen.downloadurl!.text, undefined));
    expect(asIs.status).toBe(200);
    expect(sha256(asIs.body)).toBe(sha256(betaBytes));
    expect(checksumMatches(chosen, asIs.body)).toBe('validated');
    // As an update site with the key kept too, Joomla adds it after the URL's own query.
    const withDlid = downloadUrlWithDlid(chosen.downloadurl!.text, `dlid=${key}`);
    expect(withDlid).toMatch(/\?license_key=[^&]+&dlid=/);
    const served = await fetchAsJoomla(withDlid);
    expect(served.status).toBe(200);
    expect(checksumMatches(chosen, served.body)).toBe('validated');
    expect(joomlaPackageName(served.headers['content-disposition'], withDlid)).toMatch(/\.zip$/);
  });
});

/** Joomla's Changelog class: the <changelog> whose <version> equals `version`, item by item. */
function joomlaChangelogOf(xmlText: string, version: string) {
  type Entry = { version: string; entries: Record<string, string[]> };
  let current = null as Entry | null;
  let found = null as Entry | null;
  const stack: string[] = [];
  for (const event of readXmlEvents(xmlText)) {
    if (event.kind === 'start') {
      stack.push(event.name);
      if (event.name === 'CHANGELOG') current = { version: '', entries: {} };
      else if (current && ['CHANGE', 'FIX', 'NOTE', 'ADDITION'].includes(event.name)) {
        current.entries[event.name.toLowerCase()] = [];
      }
    } else if (event.kind === 'end') {
      stack.pop();
      if (event.name === 'CHANGELOG' && current?.version === version) found = current;
    } else if (current) {
      const [parent, tag] = stack.slice(-2);
      if (tag === 'VERSION') current.version += event.data;
      if (tag === 'ITEM') current.entries[parent!.toLowerCase()]!.push(event.data);
    }
  }
  return found;
}

describe("docs/updaters/joomla.md: Joomla's changelog", () => {
  test("a <changelog> per version offered, an item per list item or line of the notes' Markdown, as HTML", async () => {
    const { product, key } = await joomlaProduct();
    const res = await get(CHANGELOG, `${API_BASE}/updates/${product.id}/changelog.xml`);
    expect(res.status).toBe(200);
    expect(joomlaChangelogOf(res.text, '1.0.0')).toEqual({
      version: '1.0.0',
      entries: {
        change: ['Fixes &lt;b&gt; &amp; &quot;quotes&quot;', '<strong>Faster</strong> start'],
      },
    });
    expect(joomlaChangelogOf(res.text, '1.1.0')?.entries).toEqual({ change: ['New editor'] });
    const hidden = await createVersion(system, product.id, '1.2.0', {
      rollout_percent: 0,
      release_notes: 'Not yet',
    });
    await uploadFile(system, hidden.id, packageBytes(10), 'plg_example-1.2.0.zip');
    const keyed = await get(
      CHANGELOG,
      `${API_BASE}/updates/${product.id}/changelog.xml?dlid=${key}`,
    );
    expect(joomlaChangelogOf(keyed.text, '1.2.0')).toBeNull();
    expect(joomlaChangelogOf(keyed.text, '1.0.0')).not.toBeNull();
  });
});

describe('docs/updaters/joomla.md: caching and refusals', () => {
  test('ETag and 304 on every Joomla route', async () => {
    const { product, key } = await joomlaProduct();
    for (const [template, path] of [
      [STREAM, `${API_BASE}/updates/${product.id}/joomla.xml?dlid=${key}`],
      [KEY_STREAM, `${API_BASE}/updates/${product.id}/joomla/${key}.xml`],
      [CHANGELOG, `${API_BASE}/updates/${product.id}/changelog.xml`],
    ] as const) {
      const first = await get(template, path);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await get(template, path, { 'If-None-Match': etag });
      expect([again.status, again.text, again.headers.etag]).toEqual([304, '', etag]);
    }
  });

  test('a product without Joomla settings: 404 with the reason', async () => {
    const { product } = await system.license();
    for (const [template, path] of [
      [STREAM, `${API_BASE}/updates/${product.id}/joomla.xml`],
      [CHANGELOG, `${API_BASE}/updates/${product.id}/changelog.xml`],
    ] as const) {
      const res = await get(template, path);
      expect([res.status, res.error]).toEqual([
        404,
        { code: 'NOT_FOUND', message: `Product ${product.id} has no Joomla settings.` },
      ]);
    }
  });

  test('bad input gets the error envelope', async () => {
    const { product, key } = await joomlaProduct();
    const bad = [
      [STREAM, `${API_BASE}/updates/abc/joomla.xml`],
      [STREAM, `${API_BASE}/updates/${product.id}/joomla.xml?dlid=${key}&license_key=other`],
      [KEY_STREAM, `${API_BASE}/updates/${product.id}/joomla/${key}.xml?dlid=other`],
      [CHANGELOG, `${API_BASE}/updates/0/changelog.xml`],
    ] as const;
    for (const [template, path] of bad) {
      const res = await get(template, path);
      expect([res.status, res.error?.code]).toEqual([400, 'INVALID_REQUEST']);
    }
    const missing = await stream(99_999_999);
    expect([missing.status, missing.error?.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('the SHA-512 made at upload is that of the bytes', async () => {
    const { stableBytes, stableFile } = await joomlaProduct();
    expect((stableFile as typeof stableFile & { sha512: string }).sha512).toBe(
      createHash('sha512').update(stableBytes).digest('hex'),
    );
  });

  test('every documented success of these routes was seen above', () => {
    expect(calls.unseenSuccesses(['joomlaFeed', 'joomlaKeyFeed', 'joomlaChangelog'])).toEqual([]);
  });
});
