import { createVersion, download, packageBytes, uploadFile } from '../support/packages.js';
import { adminOf, API_BASE, bootSystem, unique, type TestSystem } from '../support/system.js';

/**
 * Files and versions that require an entitlement (docs/api-decisions.md, "Entitlements"): not
 * offered by the update check or the feeds, nor served, to a key without it (or to no key); both
 * to a key whose plan or own entitlements hold it. Through real HTTP, and RabbitMQ in CI.
 */
let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const admin = adminOf(() => system);

async function catalog() {
  const code = `pro-${unique()}`;
  await system.transport.call('license.createEntitlement', { code, name: 'Pro' });
  const plain = await system.license();
  const pro = await system.license({ product: plain.product, entitlements: [code] });
  const { product } = plain;
  const base = await createVersion(system, product.id, '1.0.0');
  await uploadFile(system, base.id, packageBytes(10_000), 'base.zip');
  const addon = await createVersion(system, product.id, '1.5.0');
  const addonFile = await uploadFile(system, addon.id, packageBytes(11_000), 'addon.zip', {
    requires_entitlement: code,
  });
  const major = await createVersion(system, product.id, '2.0.0', { requires_entitlement: code });
  const majorFile = await uploadFile(system, major.id, packageBytes(12_000), 'v2.zip');
  return { code, product, plain, pro, addonFile, majorFile, major };
}

const updateCheck = (productId: number, key?: string) =>
  system
    .api()
    .get(`${API_BASE}/updates/${productId}${key ? `?license_key=${key}` : ''}`)
    .then((res) => res.body.data as { version?: string });

/** electron-updater's feed (docs/updaters/electron.md): files for any platform count. */
const electronFeed = (productId: number, key?: string) =>
  system
    .api()
    .get(`${API_BASE}/updates/${productId}/electron/latest.yml${key ? `?license_key=${key}` : ''}`)
    .then((res) => String(res.text));

describe('a version or a file that requires an entitlement', () => {
  test('is offered by the update check and the feeds only to a key that has it', async () => {
    const { product, plain, pro } = await catalog();
    expect((await updateCheck(product.id)).version).toBe('1.0.0');
    expect((await updateCheck(product.id, plain.key)).version).toBe('1.0.0');
    expect((await updateCheck(product.id, pro.key)).version).toBe('2.0.0');

    const without = await electronFeed(product.id, plain.key);
    expect(without).toContain("version: '1.0.0'");
    expect(without).not.toContain('v2.zip');
    expect(without).not.toContain('addon.zip');
    expect(await electronFeed(product.id, pro.key)).toContain("version: '2.0.0'");
  });

  test('is not served without it (ENTITLEMENT_REQUIRED, 403), and served with it', async () => {
    const { product, plain, pro, addonFile, majorFile } = await catalog();
    const newest = await download(system, product.id, { dlid: plain.key });
    expect(newest.status).toBe(200);
    expect(newest.headers.get('content-disposition')).toContain('base.zip');
    const mine = await download(system, product.id, { dlid: pro.key });
    expect(mine.headers.get('content-disposition')).toContain('v2.zip');

    for (const file of [addonFile, majorFile]) {
      const path = `${product.id}/files/${file.id}/${file.filename}`;
      const refused = await download(system, path, { dlid: plain.key });
      expect([refused.status, refused.error?.code]).toEqual([403, 'ENTITLEMENT_REQUIRED']);
      const served = await download(system, path, { dlid: pro.key });
      expect(served.status).toBe(200);
    }
  });

  test('a license’s own unexpired entitlement opens them; an expired one does not', async () => {
    const { code, product, plain, majorFile } = await catalog();
    const path = `${product.id}/files/${majorFile.id}/${majorFile.filename}`;
    await admin.post(`/licenses/${plain.key}/entitlements`, {
      code,
      expires_at: '2020-01-01T00:00:00.000Z',
    });
    expect((await updateCheck(product.id, plain.key)).version).toBe('1.0.0');
    expect((await download(system, path, { dlid: plain.key })).status).toBe(403);
    await admin.post(`/licenses/${plain.key}/entitlements`, { code, expires_at: null });
    expect((await updateCheck(product.id, plain.key)).version).toBe('2.0.0');
    expect((await download(system, path, { dlid: plain.key })).status).toBe(200);
  });

  test('an admin sets and clears it on a version and a file, and sees it', async () => {
    const { code, major, addonFile } = await catalog();
    expect((await admin.get(`/versions/${major.id}`)).body.data.requires_entitlement).toBe(code);
    const cleared = await admin.patch(`/versions/${major.id}`, { requires_entitlement: null });
    expect(cleared.body.data.requires_entitlement).toBeNull();
    expect((addonFile as { requires_entitlement?: string }).requires_entitlement).toBe(code);
    const file = await admin.patch(`/files/${addonFile.id}`, { requires_entitlement: null });
    expect(file.body.data.requires_entitlement).toBeNull();
    const bad = await admin.patch(`/files/${addonFile.id}`, { requires_entitlement: 'Bad Code' });
    expect(bad.status).toBe(400);
  });
});
