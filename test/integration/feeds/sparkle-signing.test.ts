import { createPrivateKey, createPublicKey, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createVersion, packageBytes, uploadFile } from '../../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../../support/system.js';

/**
 * Signing at upload (docs/updaters/sparkle.md): with SPARKLE_PRIVATE_KEY set, a macOS
 * package uploaded without a signature gets the seller's Sparkle signature, which the appcast
 * lists and which verifies with the app's SUPublicEDKey against the bytes the enclosure serves.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'sparkle-signing-'));
/** The seller's key as `generate_keys -x sparkle_private_key` writes it: base64 of the seed. */
const seed = randomBytes(32);
/** The app's SUPublicEDKey, found apart from the service: from the seed, by Node. */
const SUPublicEDKey = createPublicKey(
  createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  }),
);

let signing: TestSystem;
let plain: TestSystem;
beforeAll(async () => {
  [signing, plain] = await Promise.all([
    bootSystem({ SPARKLE_PRIVATE_KEY: seed.toString('base64') }),
    bootSystem(),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([signing?.stop(), plain?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

/** The enclosure of each item of the caller's appcast, and the bytes its URL serves. */
async function enclosures(system: TestSystem, productId: number, key: string) {
  const feed = await system
    .api()
    .get(`${API_BASE}/updates/${productId}/appcast.xml?license_key=${key}`)
    .buffer(true);
  expect(feed.status).toBe(200);
  const found = [...(feed.text as string).matchAll(/<enclosure ([^>]*)\/>/g)].map(
    ([, attributes]) =>
      Object.fromEntries(
        [...attributes!.matchAll(/([\w:]+)="([^"]*)"/g)].map(([, name, value]) => [
          name!,
          value!.replace(/&amp;/g, '&'),
        ]),
      ),
  );
  return Promise.all(
    found.map(async (enclosure) => {
      const res = await fetch(new URL(enclosure.url!));
      expect(res.status).toBe(200);
      return { enclosure, bytes: Buffer.from(await res.arrayBuffer()) };
    }),
  );
}

describe('SPARKLE_PRIVATE_KEY_FILE: macOS packages signed at upload', () => {
  test('a darwin upload without a signature is signed; the appcast lists it and it verifies', async () => {
    const { product, key } = await signing.license();
    const version = await createVersion(signing, product.id, '2.0.0');
    const bytes = packageBytes(200_000);
    const file = await uploadFile(signing, version.id, bytes, 'App-2.0.0.zip', {
      platform: 'darwin',
      arch: 'universal',
    });
    const signature = (file as { signature?: string | null }).signature;
    expect(signature).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    expect(verify(null, bytes, SUPublicEDKey, Buffer.from(signature!, 'base64'))).toBe(true);

    const listed = await enclosures(signing, product.id, key);
    expect(listed).toHaveLength(1);
    const [{ enclosure, bytes: served }] = listed as [(typeof listed)[number]];
    expect(enclosure['sparkle:edSignature']).toBe(signature);
    expect(served.equals(bytes)).toBe(true);
    const listedSignature = Buffer.from(enclosure['sparkle:edSignature']!, 'base64');
    expect(verify(null, served, SUPublicEDKey, listedSignature)).toBe(true);
  });

  test('a signature sent with the upload is kept; a linux upload is not signed', async () => {
    const { product } = await signing.license();
    const version = await createVersion(signing, product.id, '2.1.0');
    const sent = randomBytes(64).toString('base64');
    const withSignature = await uploadFile(signing, version.id, packageBytes(1000), 'App.zip', {
      platform: 'darwin',
      signature: sent,
    });
    expect((withSignature as { signature?: string | null }).signature).toBe(sent);
    const linux = await uploadFile(signing, version.id, packageBytes(1000), 'app.tar.gz', {
      platform: 'linux',
    });
    expect((linux as { signature?: string | null }).signature).toBeNull();
    const any = await uploadFile(signing, version.id, packageBytes(1000), 'any.zip');
    expect((any as { signature?: string | null }).signature).toBeNull();
  });

  test('without the setting no signature is made, and the appcast lists no unsigned file', async () => {
    const { product, key } = await plain.license();
    const version = await createVersion(plain, product.id, '2.0.0');
    const file = await uploadFile(plain, version.id, packageBytes(1000), 'App.zip', {
      platform: 'darwin',
    });
    expect((file as { signature?: string | null }).signature).toBeNull();
    expect(await enclosures(plain, product.id, key)).toEqual([]);
  });

  test('a key file that is not a Sparkle key stops start-up, naming the setting', async () => {
    const bad = path.join(dir, 'bad-key');
    writeFileSync(bad, randomBytes(48).toString('base64'));
    await expect(bootSystem({ SPARKLE_PRIVATE_KEY_FILE: bad })).rejects.toThrow(
      /^Invalid configuration: SPARKLE_PRIVATE_KEY_FILE: must be a Sparkle EdDSA private key as `generate_keys -x <file>` writes it .*decodes to 48 bytes$/,
    );
  });
});
