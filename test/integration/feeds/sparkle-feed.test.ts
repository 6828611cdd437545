import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { DocumentedCalls } from '../../support/documented-calls.js';
import { AUTH, createVersion, packageBytes, sha256, uploadFile } from '../../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../../support/system.js';

/**
 * Sparkle's appcast (docs/updaters/sparkle.md) against the running system: the items and their
 * enclosures as Sparkle reads them, each enclosure downloaded and its EdDSA signature verified
 * with the app's public key, channels, the key repeated only when the feed was asked with it,
 * ETag/304, and the refusals of spec 4.5.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const calls = new DocumentedCalls();
const APPCAST = `${API_BASE}/updates/{product_id}/appcast.xml`;
const PINNED = `${API_BASE}/downloads/{product_id}/files/{file_id}/{filename}`;
const SPARKLE_NS = 'http://www.andymatuschak.org/xml-namespaces/sparkle';

/** The seller's Sparkle key pair, and `SUPublicEDKey` as the app's Info.plist holds it. */
const seller = generateKeyPairSync('ed25519');
const SUPublicEDKey = Buffer.from(
  seller.publicKey.export({ format: 'jwk' }).x as string,
  'base64url',
).toString('base64');
/** What `sign_update` prints as `sparkle:edSignature`: Ed25519 over the whole archive. */
const edSignature = (bytes: Buffer) => sign(null, bytes, seller.privateKey).toString('base64');

const decode = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

interface AppcastItem {
  title: string;
  pubDate: string;
  version: string;
  shortVersionString: string;
  channel: string | null;
  minimumSystemVersion: string | null;
  description: string;
  enclosure: Record<string, string>;
}

/** The appcast as Sparkle's parser reads its items (RSS 2.0 with the sparkle namespace). */
function parseAppcast(body: string): AppcastItem[] {
  expect(body).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<rss version="2.0"/);
  expect(body).toContain(`xmlns:sparkle="${SPARKLE_NS}"`);
  const element = (item: string, name: string) => {
    const found = new RegExp(`<${name}>([^<]*)</${name}>`).exec(item);
    return found ? decode(found[1]!) : null;
  };
  return [...body.matchAll(/<item>([\s\S]*?)<\/item>/g)].map(([, item]) => {
    const enclosure = /<enclosure ([^>]*)\/>/.exec(item!)![1]!;
    return {
      title: element(item!, 'title')!,
      pubDate: element(item!, 'pubDate')!,
      version: element(item!, 'sparkle:version')!,
      shortVersionString: element(item!, 'sparkle:shortVersionString')!,
      channel: element(item!, 'sparkle:channel'),
      minimumSystemVersion: element(item!, 'sparkle:minimumSystemVersion'),
      description: element(item!, 'description')!,
      enclosure: Object.fromEntries(
        [...enclosure.matchAll(/([\w:]+)="([^"]*)"/g)].map(([, name, value]) => [
          name!,
          decode(value!),
        ]),
      ),
    };
  });
}

async function appcast(
  productId: number | string,
  options: { query?: string; headers?: Record<string, string> } = {},
) {
  let req = system.api().get(`${API_BASE}/updates/${productId}/appcast.xml${options.query ?? ''}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
  return calls.saw('get', APPCAST, await req.buffer(true));
}

/** Fetches an enclosure URL as it is, as Sparkle does. */
async function fetchEnclosure(url: string) {
  const { pathname, search } = new URL(url);
  return calls.saw(
    'get',
    PINNED,
    await system
      .api()
      .get(`${pathname}${search}`)
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      }),
  );
}

async function macApp() {
  const licensed = await system.license();
  const stable = await createVersion(system, licensed.product.id, '1.2.0', {
    release_notes: 'Faster **sync** & fewer <b>crashes</b>.',
    release_date: '2026-03-04',
  });
  const bytes = packageBytes(30_000);
  const file = await uploadFile(system, stable.id, bytes, 'App-1.2.0.zip', {
    platform: 'darwin',
    arch: 'universal',
    signature: edSignature(bytes),
  });
  return { ...licensed, bytes, file };
}

describe('docs/updaters/sparkle.md: the appcast', () => {
  test('an item per version with its enclosure; the enclosure downloads and its signature verifies with SUPublicEDKey', async () => {
    const { product, key, bytes, file } = await macApp();
    const res = await appcast(product.id, { query: `?license_key=${key}` });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/rss\+xml/);
    const [item, ...others] = parseAppcast(res.text);
    expect(others).toEqual([]);
    expect(item).toEqual({
      title: `${product.title} 1.2.0`,
      pubDate: 'Wed, 04 Mar 2026 00:00:00 GMT',
      version: '1.2.0',
      shortVersionString: '1.2.0',
      channel: null,
      minimumSystemVersion: null,
      // Sparkle shows the description as HTML: the notes' Markdown rendered, raw HTML escaped.
      description: '<p>Faster <strong>sync</strong> &amp; fewer &lt;b&gt;crashes&lt;/b&gt;.</p>',
      enclosure: {
        url: expect.stringContaining(`/downloads/${product.id}/files/${file.id}/App-1.2.0.zip?`),
        length: String(bytes.length),
        type: 'application/zip',
        'sparkle:edSignature': expect.any(String),
      },
    });
    const served = await fetchEnclosure(item!.enclosure.url!);
    expect(served.status).toBe(200);
    const archive = served.body as Buffer;
    expect(sha256(archive)).toBe(sha256(bytes));
    expect(archive.length).toBe(Number(item!.enclosure.length));
    // What Sparkle does before installing: Ed25519 with the key of the app's Info.plist.
    const appKey = createPublicKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(SUPublicEDKey, 'base64').toString('base64url'),
      },
      format: 'jwk',
    });
    const signature = Buffer.from(item!.enclosure['sparkle:edSignature']!, 'base64');
    expect(verify(null, archive, appKey, signature)).toBe(true);
    expect(verify(null, Buffer.concat([archive, Buffer.from('x')]), appKey, signature)).toBe(false);
  });

  test('the key is repeated on the enclosure only when the feed was asked with it in its query', async () => {
    const { product, key } = await macApp();
    await system.post('activate', { license_key: key, identifier: 'mac.example' });
    const inQuery = parseAppcast(
      (await appcast(product.id, { query: `?license_key=${key}&identifier=mac.example` })).text,
    );
    const url = new URL(inQuery[0]!.enclosure.url!);
    expect(url.searchParams.get('license_key')).toBe(key);
    expect(url.searchParams.get('identifier')).toBe('mac.example');
    const dlid = parseAppcast((await appcast(product.id, { query: `?dlid=${key}` })).text);
    expect(new URL(dlid[0]!.enclosure.url!).searchParams.get('license_key')).toBe(key);
    const header = await appcast(product.id, { headers: { Authorization: `License ${key}` } });
    expect(header.status).toBe(200);
    expect(header.text).not.toContain(key);
    expect(new URL(parseAppcast(header.text)[0]!.enclosure.url!).search).toBe('');
  });

  test('every channel, newest first, each non-stable item with its channel; rollouts, other platforms and unsigned files left out', async () => {
    const { product, key } = await macApp();
    const add = async (
      version: string,
      fields: Record<string, unknown>,
      file: Record<string, string> = {},
    ) => {
      const created = await createVersion(system, product.id, version, fields);
      const bytes = packageBytes(1_000);
      await uploadFile(system, created.id, bytes, `App-${version}.zip`, {
        signature: edSignature(bytes),
        ...file,
      });
      return created;
    };
    await add('1.3.0-beta.1', { channel: 'beta' }, { platform: 'darwin', arch: 'aarch64' });
    const dev = await add('1.4.0-dev.7', { channel: 'dev' });
    await add('1.5.0', { rollout_percent: 0 }, { platform: 'darwin' });
    await add('1.6.0', {}, { platform: 'windows' });
    const unsigned = await createVersion(system, product.id, '1.7.0');
    await uploadFile(system, unsigned.id, packageBytes(100), 'App-1.7.0.zip', {
      platform: 'darwin',
    });
    const items = parseAppcast((await appcast(product.id, { query: `?license_key=${key}` })).text);
    expect(items.map((i) => [i.version, i.channel])).toEqual([
      ['1.4.0-dev.7', 'dev'],
      ['1.3.0-beta.1', 'beta'],
      ['1.2.0', null],
    ]);
    const res = await appcast(product.id, { query: `?license_key=${key}` });
    const beta = /<item>(?:(?!<\/item>)[\s\S])*1\.3\.0-beta\.1[\s\S]*?<\/item>/.exec(res.text)![0];
    expect(beta).toContain('<sparkle:hardwareRequirements>arm64</sparkle:hardwareRequirements>');
    expect(res.text.match(/hardwareRequirements>arm64</g)).toHaveLength(1);
    // Unpublishing a version takes it out of the appcast.
    await system.admin().patch(`/admin/v1/versions/${dev.id}`).set(AUTH).send({ published: false });
    const after = parseAppcast((await appcast(product.id, { query: `?license_key=${key}` })).text);
    expect(after.map((i) => i.version)).toEqual(['1.3.0-beta.1', '1.2.0']);
  });

  test("a macOS file's minimum macOS is its item's sparkle:minimumSystemVersion", async () => {
    const { product, key } = await macApp();
    const version = await createVersion(system, product.id, '1.3.0');
    const bytes = packageBytes(20_000);
    await uploadFile(system, version.id, bytes, 'App-1.3.0.zip', {
      platform: 'darwin',
      minimum_system_version: '13.0',
      signature: edSignature(bytes),
    });
    const res = await appcast(product.id, { query: `?license_key=${key}` });
    const listed = parseAppcast(res.text);
    expect(listed.map((i) => [i.version, i.minimumSystemVersion])).toEqual([
      ['1.3.0', '13.0'],
      ['1.2.0', null],
    ]);
  });

  test('a key that may not download is refused as spec 4.5 refuses it', async () => {
    const { product } = await macApp();
    const none = await appcast(product.id);
    expect([none.status, none.body.error.code]).toEqual([403, 'LICENSE_INVALID']);
    const unknown = await appcast(product.id, { query: '?license_key=nope' });
    expect([unknown.status, unknown.body.error.code]).toEqual([403, 'LICENSE_INVALID']);
    const expired = await system.license({ product, status: 'expired' });
    const late = await appcast(product.id, { query: `?license_key=${expired.key}` });
    expect([late.status, late.body.error.code]).toEqual([403, 'LICENSE_EXPIRED']);
  });

  test('bad input gets the error envelope', async () => {
    const { product, key } = await macApp();
    const bad = [
      await appcast('not-a-number', { query: `?license_key=${key}` }),
      await appcast(product.id, { query: `?license_key=${key}&dlid=other` }),
      await appcast(product.id, { headers: { Authorization: 'Basic eDp5' } }),
      await appcast(product.id, { query: `?license_key=${'k'.repeat(300)}` }),
    ];
    for (const res of bad) {
      expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    }
    const missing = await appcast(99_999_999, { query: `?license_key=${key}` });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('ETag and 304: the same appcast for the same caller is not sent twice', async () => {
    const { product, key } = await macApp();
    const query = `?license_key=${key}`;
    const first = await appcast(product.id, { query });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await appcast(product.id, { query, headers: { 'If-None-Match': etag } });
    expect([again.status, again.text, again.headers.etag]).toEqual([304, '', etag]);
    const other = await appcast(product.id, {
      query,
      headers: { 'If-None-Match': '"something-else"' },
    });
    expect(other.status).toBe(200);
  });

  test('every documented success of these routes was seen above', () => {
    expect(calls.unseenSuccesses(['sparkleFeed'])).toEqual([]);
  });
});
