import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyResult, LicensingClient } from '../../libs/client/src/index.js';
import { createVersion, packageBytes, sha256, uploadFile } from '../support/packages.js';
import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * The update check and the download through the client against the real system, booted in this
 * process: a version uploaded through the management API, then checked and downloaded the way an
 * updater does it.
 */
let system: TestSystem;
let dir: string;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'licensing-client-real-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

let seq = 0;
async function release(access: 'license_key' | 'activated_identifier') {
  const product = await system.transport.call('update-catalog.createProduct', {
    title: `Client download ${access} ${seq++}`,
    download_access: access,
  });
  const { key } = await system.license({ product });
  const version = await createVersion(system, product.id, `3.${seq++}.0`);
  const bytes = packageBytes(150_000);
  await uploadFile(system, version.id, bytes, 'real-plugin.zip');
  return { product, key, bytes, version: version.version };
}

describe('spec 4.4 and 4.5 through the client, against the real system', () => {
  test('checkUpdate returns the version and an absolute download_url; download saves the verified file', async () => {
    const { product, key, bytes, version } = await release('license_key');
    const client = new LicensingClient(system.running.gatewayUrl, product.id);

    const update = await client.checkUpdate(key);
    expect(update).toMatchObject({
      success: true,
      data: {
        update_available: true,
        version,
        download_requires: 'license_key',
        file_size: bytes.length,
        license_status: 'active',
      },
      message: '',
      code: '',
    });
    if (!update.success || !update.data.update_available || !update.data.download_url) {
      throw new Error('no download_url');
    }
    expect(new URL(update.data.download_url).pathname).toBe(
      `/api/index.php/v1/licensing/downloads/${product.id}`,
    );

    const target = join(dir, 'plugin.zip');
    await writeFile(target, 'previous version');
    const progress: number[] = [];
    const saved = await client.download(key, null, target, {
      url: update.data.download_url,
      expectedSize: update.data.file_size,
      onProgress: (p) => progress.push(p.received),
    });
    expect(saved).toEqual({
      success: true,
      data: {
        filename: 'real-plugin.zip',
        path: target,
        blob: null,
        size: bytes.length,
        sha256: sha256(bytes),
        contentType: 'application/zip',
        // The real endpoint sends X-Checksum-SHA256 and Repr-Digest.
        checksumVerified: true,
      },
      message: '',
      code: '',
      httpStatus: 200,
    });
    expect(Buffer.compare(await readFile(target), bytes)).toBe(0);
    expect(await readdir(dir)).toEqual(['plugin.zip']);
    expect(progress.at(-1)).toBe(bytes.length);
  });

  test('refusals of the real endpoint come back as license problems and write nothing', async () => {
    const { product, key } = await release('activated_identifier');
    const client = new LicensingClient(system.running.gatewayUrl, product.id);
    const required = await client.download(key, null, dir);
    expect(required).toMatchObject({ success: false, data: null, code: 'ACTIVATION_REQUIRED' });
    const notFound = await client.download(key, 'elsewhere.com', dir);
    expect(notFound).toMatchObject({ success: false, data: null, code: 'ACTIVATION_NOT_FOUND' });
    const unknown = await client.download('0123456789abcdef0123456789abcdef', null, dir);
    expect(unknown).toMatchObject({ success: false, data: null, code: 'LICENSE_INVALID' });
    for (const result of [required, notFound, unknown]) {
      expect(result.message).not.toBe('');
      expect(classifyResult(result)).toBe('license');
    }
    expect(await readdir(dir)).toEqual([]);

    expect((await client.activate(key, 'https://www.example.com/')).success).toBe(true);
    const served = await client.download(key, 'example.com', null);
    expect(served).toMatchObject({ success: true, data: { checksumVerified: true } });
  });

  test('the product id binds the update check: another product does not see this version', async () => {
    const { key, version } = await release('license_key');
    const other = await system.transport.call('update-catalog.createProduct', {
      title: `Client other ${seq++}`,
    });
    const result = await new LicensingClient(system.running.gatewayUrl, other.id).checkUpdate(key);
    expect(result.success).toBe(true);
    expect(result.data).not.toMatchObject({ version });
  });
});
