import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { managementApp } from '../support/management-app.js';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest, { type default as request } from 'supertest';
import { createLogger } from '../../libs/logging/index.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import { PART_SIZE } from '../../services/download/storage.js';
import {
  AUTH,
  createVersion,
  download,
  eventually,
  filesUnder,
  packageBytes,
  sha256,
  sha512,
  upload,
  uploadFile,
} from '../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * Management API additions of the issue: versions, package files (multipart uploads streamed to
 * object storage) and the download log, through real HTTP and the real transport.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const BASE = '/admin/v1';
let seq = 0;

function expectError(res: request.Response, status: number, code: string) {
  expect([res.status, res.body?.error?.code]).toEqual([status, code]);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.error.message).toEqual(expect.any(String));
}

const admin = () => system.admin();
const productOf = async (download_access: 'license_key' | 'public' = 'license_key') =>
  system.transport.call('update-catalog.createProduct', {
    title: `Packages ${seq++}`,
    download_access,
  });

describe('versions', () => {
  test('POST /products/:id/versions creates a version (201, Location), with defaults', async () => {
    const product = await productOf();
    const res = await admin()
      .post(`${BASE}/products/${product.id}/versions`)
      .set(AUTH)
      .send({ version: '1.4.2', release_notes: 'Fixes.', release_date: '2026-02-03' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${BASE}/versions/${res.body.data.id}`);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      product_id: product.id,
      version: '1.4.2',
      release_notes: 'Fixes.',
      release_date: '2026-02-03',
      published: true,
      // docs/updaters.md: a version is stable and offered to everyone unless an admin says not.
      channel: 'stable',
      rollout_percent: 100,
      requires_entitlement: null,
      created_at: expect.any(String),
      // Spec 4.4 rule 3: a version counts as uploaded once a file of it is.
      uploaded_at: null,
      files: [],
    });
    const minimal = await createVersion(system, product.id, '1.5.0');
    expect(minimal).toMatchObject({ release_notes: null, release_date: null, published: true });
  });

  test('a version takes a channel and a rollout share, checked, and changes them', async () => {
    const product = await productOf();
    const post = (body: object) =>
      admin().post(`${BASE}/products/${product.id}/versions`).set(AUTH).send(body);
    for (const bad of [
      { version: '2.0', channel: 'nightly' },
      { version: '2.0', rollout_percent: 101 },
      { version: '2.0', rollout_percent: 12.5 },
    ]) {
      expectError(await post(bad), 400, 'INVALID_REQUEST');
    }
    const listed = await admin().get(`${BASE}/products/${product.id}/versions`).set(AUTH);
    expect(listed.body.data.versions).toEqual([]);
    const beta = await post({ version: '2.0-beta1', channel: 'beta', rollout_percent: 10 });
    expect(beta.body.data).toMatchObject({ channel: 'beta', rollout_percent: 10 });
    const raised = await admin()
      .patch(`${BASE}/versions/${beta.body.data.id}`)
      .set(AUTH)
      .send({ rollout_percent: 50, channel: 'rc' });
    expect(raised.body.data).toMatchObject({ channel: 'rc', rollout_percent: 50 });
  });

  test('invalid bodies get 400 naming the field; an unknown product 404', async () => {
    const product = await productOf();
    const post = (body: object, id: number = product.id) =>
      admin().post(`${BASE}/products/${id}/versions`).set(AUTH).send(body);
    for (const [body, field] of [
      [{}, 'version'],
      [{ version: '' }, 'version'],
      [{ version: '1', release_date: '2026-02-30' }, 'release_date'],
      [{ version: '1', release_date: '03.02.2026' }, 'release_date'],
      [{ version: '1', published: 'yes' }, 'published'],
      [{ version: '1', product_id: 5 }, 'product_id'],
    ] as const) {
      const res = await post(body);
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toContain(field);
    }
    expectError(await post({ version: '1' }, 987654321), 404, 'NOT_FOUND');
  });

  test("a version's uploaded_at is the upload of its newest file, and orders the list", async () => {
    const product = await productOf();
    const first = await createVersion(system, product.id, '1.0.0');
    const second = await createVersion(system, product.id, '2.0.0');
    const file = await uploadFile(system, first.id, packageBytes(100));
    const shown = await admin().get(`${BASE}/versions/${first.id}`).set(AUTH);
    expect(shown.body.data.uploaded_at).toBe(
      (shown.body.data.files as Array<{ uploaded_at: string }>)[0]!.uploaded_at,
    );
    expect(shown.body.data.files[0].id).toBe(file.id);
    const list = await admin().get(`${BASE}/products/${product.id}/versions`).set(AUTH);
    // 1.0.0 was created first, but uploaded after 2.0.0 was created.
    expect(list.body.data.versions.map((v: { id: number }) => v.id)).toEqual([first.id, second.id]);
  });

  test('GET lists them most recently uploaded first; GET one; PATCH changes them', async () => {
    const product = await productOf();
    const first = await createVersion(system, product.id, '1.0.0');
    const second = await createVersion(system, product.id, '2.0.0', { published: false });
    const list = await admin().get(`${BASE}/products/${product.id}/versions`).set(AUTH);
    expect(list.status).toBe(200);
    expect(list.body.data.versions.map((v: { id: number }) => v.id)).toEqual([second.id, first.id]);

    const patched = await admin()
      .patch(`${BASE}/versions/${second.id}`)
      .set(AUTH)
      .send({ published: true, release_notes: 'Now out.' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ published: true, release_notes: 'Now out.' });
    const one = await admin().get(`${BASE}/versions/${second.id}`).set(AUTH);
    expect(one.body.data).toMatchObject({ id: second.id, version: '2.0.0', published: true });

    expectError(
      await admin().patch(`${BASE}/versions/${second.id}`).set(AUTH).send({}),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await admin().patch(`${BASE}/versions/987654321`).set(AUTH).send({ published: false }),
      404,
      'NOT_FOUND',
    );
    expectError(await admin().get(`${BASE}/versions/987654321`).set(AUTH), 404, 'NOT_FOUND');
    expectError(
      await admin().get(`${BASE}/products/987654321/versions`).set(AUTH),
      404,
      'NOT_FOUND',
    );
  });
});

describe('POST /versions/:id/files: multipart uploads streamed to object storage', () => {
  test('answers with id, filename, size and SHA-256; the file is listed with its version', async () => {
    const product = await productOf('public');
    const version = await createVersion(system, product.id, '1.0.0');
    const bytes = packageBytes(50_000);
    const res = await upload(system, version.id, bytes, 'plugin-1.0.zip');
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${BASE}/files/${res.body.data.id}`);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      version_id: version.id,
      product_id: product.id,
      filename: 'plugin-1.0.zip',
      plan_id: null,
      include_in_updates: true,
      size: bytes.length,
      sha256: sha256(bytes),
      sha512: sha512(bytes),
      content_type: 'application/zip',
      object_key: expect.stringMatching(/^packages\/[0-9a-f-]{36}\/plugin-1\.0\.zip$/),
      // For any platform and processor, with no updater signature, unless the upload says.
      platform: null,
      arch: null,
      signature: null,
      minimum_system_version: null,
      requires_entitlement: null,
      uploaded_at: expect.any(String),
    });
    const listed = await admin().get(`${BASE}/versions/${version.id}`).set(AUTH);
    expect(listed.body.data.files).toEqual([res.body.data]);
    const stored = await system.running.download.storage.stat(res.body.data.object_key);
    expect(stored?.size).toBe(bytes.length);
  });

  test(`a file bigger than one part (${PART_SIZE / 1024 ** 2} MiB) goes up in parts and comes back whole`, async () => {
    expect(PART_SIZE).toBe(5 * 1024 * 1024);
    const product = await productOf('public');
    const version = await createVersion(system, product.id, '1.0.0');
    const bytes = packageBytes(12 * 1024 * 1024);
    const file = await uploadFile(system, version.id, bytes, 'big.zip');
    expect(file).toMatchObject({
      size: bytes.length,
      sha256: sha256(bytes),
      sha512: sha512(bytes),
    });
    const res = await download(system, product.id);
    expect([res.status, res.sha256]).toEqual([200, sha256(bytes)]);
  });

  test('plan_id and include_in_updates may come before or after the file', async () => {
    const { product, plan } = await system.license();
    const version = await createVersion(system, product.id, '1.0.0');
    const before = await uploadFile(system, version.id, packageBytes(1000), 'before.zip', {
      plan_id: String(plan.id),
      include_in_updates: 'false',
    });
    expect(before).toMatchObject({ plan_id: plan.id, include_in_updates: false });
    const after = await admin()
      .post(`${BASE}/versions/${version.id}/files`)
      .set(AUTH)
      .attach('file', packageBytes(1000), 'after.zip')
      .field('plan_id', String(plan.id))
      .field('include_in_updates', '0');
    expect(after.status).toBe(201);
    expect(after.body.data).toMatchObject({ plan_id: plan.id, include_in_updates: false });
    const plain = await uploadFile(system, version.id, packageBytes(1000), 'plain.bin', {
      plan_id: '',
    });
    expect(plain).toMatchObject({
      plan_id: null,
      include_in_updates: true,
      content_type: 'application/octet-stream',
    });
  });

  test('a file name in UTF-8 is kept, and served with filename* (RFC 6266)', async () => {
    const product = await productOf('public');
    const version = await createVersion(system, product.id, '1.0.0');
    const file = await uploadFile(system, version.id, packageBytes(100), 'Über-Plugin 1.0.zip');
    expect(file.filename).toBe('Über-Plugin 1.0.zip');
    const res = await download(system, product.id);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="_ber-Plugin 1.0.zip"; filename*=UTF-8''%C3%9Cber-Plugin%201.0.zip`,
    );
  });

  test('refusals: not multipart, no file, an empty file, two files, unknown fields, bad values', async () => {
    const product = await productOf();
    const version = await createVersion(system, product.id, '1.0.0');
    const path = `${BASE}/versions/${version.id}/files`;
    const bytes = packageBytes(1000);
    const refusals: Array<[string, request.Test]> = [
      ['JSON', admin().post(path).set(AUTH).send({ file: 'x' })],
      ['no file', admin().post(path).set(AUTH).field('plan_id', '')],
      ['empty', admin().post(path).set(AUTH).attach('file', Buffer.alloc(0), 'empty.zip')],
      [
        'two files',
        admin().post(path).set(AUTH).attach('file', bytes, 'a.zip').attach('file', bytes, 'b.zip'),
      ],
      ['other name', admin().post(path).set(AUTH).attach('package', bytes, 'a.zip')],
      [
        'unknown',
        admin().post(path).set(AUTH).field('colour', 'red').attach('file', bytes, 'a.zip'),
      ],
      [
        'bad plan',
        admin().post(path).set(AUTH).field('plan_id', 'x').attach('file', bytes, 'a.zip'),
      ],
      [
        'unknown plan',
        admin().post(path).set(AUTH).attach('file', bytes, 'a.zip').field('plan_id', '987654321'),
      ],
      [
        'bad flag',
        admin()
          .post(path)
          .set(AUTH)
          .attach('file', bytes, 'a.zip')
          .field('include_in_updates', 'maybe'),
      ],
      [
        'a minimum macOS on a Linux file',
        admin()
          .post(path)
          .set(AUTH)
          .field('platform', 'linux')
          .field('minimum_system_version', '12.0')
          .attach('file', bytes, 'a.zip'),
      ],
      [
        'a minimum macOS that is not a version',
        admin()
          .post(path)
          .set(AUTH)
          .field('platform', 'darwin')
          .field('minimum_system_version', 'Monterey')
          .attach('file', bytes, 'a.zip'),
      ],
      [
        'repeated',
        admin()
          .post(path)
          .set(AUTH)
          .field('plan_id', '')
          .field('plan_id', '')
          .attach('file', bytes, 'a.zip'),
      ],
    ];
    const raw = (body: string) =>
      admin()
        .post(path)
        .set(AUTH)
        .set('Content-Type', 'multipart/form-data; boundary=XyZ')
        .send(body);
    const part = '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\n';
    refusals.push(
      ['ends mid-file', raw(`${part}abc`)],
      ['no closing boundary', raw(`${part}abc\r\n`)],
      [
        'no boundary',
        admin().post(path).set(AUTH).set('Content-Type', 'multipart/form-data').send('x'),
      ],
      ['bad part header', raw('--XyZ\r\nnonsense\r\n\r\nabc\r\n--XyZ--\r\n')],
    );
    for (const [what, req] of refusals) {
      const res = await req;
      expect([what, res.status, res.body?.error?.code]).toEqual([what, 400, 'INVALID_REQUEST']);
    }
    const listed = await admin().get(`${BASE}/versions/${version.id}`).set(AUTH);
    expect(listed.body.data.files).toEqual([]);
  });

  test('an unknown version is 404 and no admin token is 401, before any byte is stored', async () => {
    expectError(await upload(system, 987654321, packageBytes(1000)), 404, 'NOT_FOUND');
    const res = await admin()
      .post(`${BASE}/versions/1/files`)
      .attach('file', packageBytes(1000), 'a.zip');
    expectError(res, 401, 'UNAUTHORIZED');
  });

  test('a file over MAX_UPLOAD_BYTES gets PAYLOAD_TOO_LARGE (413); refused uploads leave no object', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'storage-test-'));
    const small = await bootSystem({ MAX_UPLOAD_BYTES: String(64 * 1024), STORAGE_DIR: directory });
    /** Objects the embedded storage holds on disk (s3rver's layout). */
    const objects = async () =>
      (await readdir(directory, { recursive: true })).filter((f) => f.endsWith('._S3rver_object'));
    try {
      const product = await small.transport.call('update-catalog.createProduct', { title: 'Big' });
      const version = await createVersion(small, product.id, '1.0.0');
      expectError(await upload(small, version.id, packageBytes(200_000)), 413, 'PAYLOAD_TOO_LARGE');
      // The plan is only known to be wrong after the file was stored: it is removed again.
      const late = await small
        .admin()
        .post(`${BASE}/versions/${version.id}/files`)
        .set(AUTH)
        .attach('file', packageBytes(1000), 'a.zip')
        .field('plan_id', '987654321');
      expectError(late, 400, 'INVALID_REQUEST');
      // A minimum macOS sent after the file, on a file with no platform: refused once the
      // body is whole, the stored file removed.
      const lateTarget = await small
        .admin()
        .post(`${BASE}/versions/${version.id}/files`)
        .set(AUTH)
        .attach('file', packageBytes(1000), 'a.zip')
        .field('minimum_system_version', '12.0');
      expectError(lateTarget, 400, 'INVALID_REQUEST');
      expect(lateTarget.body.error.message).toBe(
        'minimum_system_version: only a macOS file (platform darwin) has a minimum macOS version.',
      );
      const listed = await small.admin().get(`${BASE}/versions/${version.id}`).set(AUTH);
      expect(listed.body.data.files).toEqual([]);
      expect(await objects()).toEqual([]);

      const fits = await uploadFile(small, version.id, packageBytes(64 * 1024));
      expect(fits.size).toBe(64 * 1024);
      expect(await objects()).toHaveLength(1);
    } finally {
      await small.stop();
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('failed uploads leave nothing in storage (no object, no multipart upload parts)', () => {
  const LIMIT = PART_SIZE + 1024 * 1024;
  let directory: string;
  let small: TestSystem;
  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'storage-parts-'));
    small = await bootSystem({ MAX_UPLOAD_BYTES: String(LIMIT), STORAGE_DIR: directory });
  });
  afterAll(async () => {
    await small?.stop();
    await rm(directory, { recursive: true, force: true });
  });

  /** Parts of multipart uploads in progress, in s3rver's layout. */
  const uploadParts = async () =>
    (await filesUnder(directory)).filter((f) => /\._S3rver_uploads\/[0-9a-f]+\/\d+$/.test(f));

  async function newVersion() {
    const product = await small.transport.call('update-catalog.createProduct', {
      title: `Parts ${seq++}`,
    });
    return createVersion(small, product.id, '1.0.0');
  }

  /** PUTs `size` random bytes (chunked, no Content-Length) to a fresh upload URL. */
  async function putChunked(size: number, options: { cutAfterFirstPart?: boolean } = {}) {
    const { upload_url } = await small.transport.call('download.prepareUpload', {
      filename: 'big.zip',
    });
    return new Promise<{ status: number; code?: string } | 'cut'>((resolve, reject) => {
      const req = httpRequest(upload_url, {
        method: 'PUT',
        headers: { 'content-type': 'application/zip', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, code: JSON.parse(text).error?.code }),
        );
      });
      req.on('error', (error) => (options.cutAfterFirstPart ? resolve('cut') : reject(error)));
      const chunk = packageBytes(256 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < size) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!options.cutAfterFirstPart) return void req.end();
        // Cut off once a whole part is in storage, so there is something to clean up.
        eventually('a part of the upload is stored', async () => (await uploadParts()).length > 0)
          .then(() => req.destroy())
          .catch(reject);
      };
      pump();
    });
  }

  test(`an upload cut off midway, after its first ${PART_SIZE / 1024 ** 2} MiB part was stored`, async () => {
    expect(await putChunked(PART_SIZE + 512 * 1024, { cutAfterFirstPart: true })).toBe('cut');
    await eventually(
      'the parts are removed',
      async () => (await filesUnder(directory)).length === 0,
    );
  });

  test('an upload over MAX_UPLOAD_BYTES (more than one part): 413, and nothing is left', async () => {
    expect(await putChunked(LIMIT + PART_SIZE)).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    // The download service answers once it has cleaned up.
    expect(await filesUnder(directory)).toEqual([]);
  });

  test('through the management API: too large, or the admin goes away mid-file', async () => {
    const version = await newVersion();
    expectError(
      await upload(small, version.id, packageBytes(LIMIT + PART_SIZE)),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    await eventually(
      'nothing is left of the 413',
      async () => (await filesUnder(directory)).length === 0,
    );

    const boundary = 'cut-off-boundary';
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        `${small.running.managementUrl}${BASE}/versions/${version.id}/files`,
        {
          method: 'POST',
          headers: { ...AUTH, 'content-type': `multipart/form-data; boundary=${boundary}` },
        },
      );
      req.on('error', () => resolve());
      req.on('response', (res) => reject(new Error(`answered ${res.statusCode} before the cut`)));
      req.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\n\r\n`,
      );
      const chunk = packageBytes(256 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < PART_SIZE + 512 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        eventually('a part of the upload is stored', async () => (await uploadParts()).length > 0)
          .then(() => req.destroy())
          .catch(reject);
      };
      pump();
    });
    await eventually(
      'the parts are removed',
      async () => (await filesUnder(directory)).length === 0,
    );
    const listed = await small.admin().get(`${BASE}/versions/${version.id}`).set(AUTH);
    expect(listed.body.data.files).toEqual([]);
  });
});

describe('an upload whose answer is lost after the object was stored', () => {
  test('management removes the object under the key chosen before the upload', async () => {
    // The download port stands in: it reads the whole file, then drops the connection.
    const port = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => port.listen(0, '127.0.0.1', resolve));
    const { port: number } = port.address() as AddressInfo;
    const bus = new InProcessBus();
    const logger = createLogger('lost-answer', 'silent');
    const deleted: string[] = [];
    const now = new Date().toISOString();
    bus.register('update-catalog', {
      'update-catalog.getVersion': async () => ({
        id: 1,
        product_id: 1,
        version: '1.0',
        release_notes: null,
        release_date: null,
        published: true,
        channel: 'stable',
        rollout_percent: 100,
        requires_entitlement: null,
        created_at: now,
        uploaded_at: null,
        files: [],
      }),
    });
    bus.register('download', {
      'download.prepareUpload': async () => ({
        upload_url: `http://127.0.0.1:${number}/uploads/ticket`,
        object_key: 'packages/lost/answer.zip',
      }),
      'download.deleteObject': async (request: unknown) => {
        const { object_key } = request as { object_key: string };
        deleted.push(object_key);
        return { object_key, deleted: true };
      },
    });
    const transport = new InProcessTransport(bus, { timeoutMs: 5000, logger });
    try {
      const app = managementApp(transport, { maxUploadBytes: 1024 * 1024 });
      const res = await supertest(app)
        .post(`${BASE}/versions/1/files`)
        .set('Authorization', 'Bearer t')
        .attach('file', packageBytes(1000), 'a.zip');
      expectError(res, 500, 'INTERNAL_ERROR');
      expect(deleted).toEqual(['packages/lost/answer.zip']);
    } finally {
      await transport.close();
      await new Promise((resolve) => port.close(resolve));
    }
  });
});

describe('PATCH and DELETE /files/:id', () => {
  test('PATCH restricts a file to a plan or unticks Include in auto-updates', async () => {
    const { product, plan } = await system.license();
    const version = await createVersion(system, product.id, '1.0.0');
    const file = await uploadFile(system, version.id, packageBytes(1000));
    const patch = (body: object, id = file.id) =>
      admin().patch(`${BASE}/files/${id}`).set(AUTH).send(body);

    const restricted = await patch({ plan_id: plan.id });
    expect([restricted.status, restricted.body.data.plan_id]).toEqual([200, plan.id]);
    const unticked = await patch({ plan_id: null, include_in_updates: false });
    expect(unticked.body.data).toMatchObject({ plan_id: null, include_in_updates: false });
    const update = await system.api().get(`${API_BASE}/updates/${product.id}`);
    expect(update.body.data.update_available).toBe(false);

    expectError(await patch({}), 400, 'INVALID_REQUEST');
    expectError(await patch({ plan_id: 987654321 }), 400, 'INVALID_REQUEST');
    expectError(await patch({ size: 1 }), 400, 'INVALID_REQUEST');
    expectError(await patch({ include_in_updates: true }, 987654321), 404, 'NOT_FOUND');
  });

  test("PATCH sets a file's platform, processor and updater signature, checked, or clears them", async () => {
    const { product } = await system.license();
    const version = await createVersion(system, product.id, '1.0.0');
    const file = await uploadFile(system, version.id, packageBytes(1000));
    const patch = (body: object) => admin().patch(`${BASE}/files/${file.id}`).set(AUTH).send(body);
    const signature = Buffer.from('a signature').toString('base64');
    const set = await patch({ platform: 'darwin', arch: 'universal', signature });
    expect(set.body.data).toMatchObject({ platform: 'darwin', arch: 'universal', signature });
    for (const bad of [{ platform: 'macos' }, { arch: 'x64' }, { signature: 'not base64!' }]) {
      expectError(await patch(bad), 400, 'INVALID_REQUEST');
    }
    const kept = await admin().get(`${BASE}/versions/${version.id}`).set(AUTH);
    expect(kept.body.data.files[0]).toMatchObject({ platform: 'darwin', signature });
    const cleared = await patch({ platform: null, arch: null, signature: null });
    expect(cleared.body.data).toMatchObject({ platform: null, arch: null, signature: null });
  });

  test('PATCH sets the minimum macOS of a macOS file only, and a macOS file keeps its platform while it has one', async () => {
    const { product } = await system.license();
    const version = await createVersion(system, product.id, '1.0.0');
    const file = await uploadFile(system, version.id, packageBytes(1000), 'App.zip', {
      platform: 'darwin',
      minimum_system_version: '11.0',
    });
    expect(file).toMatchObject({ platform: 'darwin', minimum_system_version: '11.0' });
    const patch = (body: object) => admin().patch(`${BASE}/files/${file.id}`).set(AUTH).send(body);
    expect((await patch({ minimum_system_version: '12.3.1' })).body.data).toMatchObject({
      minimum_system_version: '12.3.1',
    });
    const refusals = [
      { platform: 'linux' },
      { platform: null },
      { minimum_system_version: '12.x' },
      { platform: 'windows', minimum_system_version: '12.0' },
    ];
    for (const bad of refusals) expectError(await patch(bad), 400, 'INVALID_REQUEST');
    const kept = await admin().get(`${BASE}/versions/${version.id}`).set(AUTH);
    expect(kept.body.data.files[0]).toMatchObject({
      platform: 'darwin',
      minimum_system_version: '12.3.1',
    });
    // Both at once: the minimum cleared with the platform.
    expect(
      (await patch({ platform: 'linux', minimum_system_version: null })).body.data,
    ).toMatchObject({ platform: 'linux', minimum_system_version: null });
    expectError(
      await admin().patch(`${BASE}/files/987654321`).set(AUTH).send({ platform: 'darwin' }),
      404,
      'NOT_FOUND',
    );
  });

  test('DELETE removes the record and the stored object; a later download fails', async () => {
    const { product, key } = await system.license();
    const version = await createVersion(system, product.id, '1.0.0');
    const bytes = packageBytes(5000);
    const file = await uploadFile(system, version.id, bytes);
    expect((await download(system, product.id, { dlid: key })).sha256).toBe(sha256(bytes));
    const objectKey = (await admin().get(`${BASE}/versions/${version.id}`).set(AUTH)).body.data
      .files[0].object_key as string;

    const res = await admin().delete(`${BASE}/files/${file.id}`).set(AUTH);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: file.id, object_key: objectKey });
    expect(await system.running.download.storage.stat(objectKey)).toBeNull();
    const after = await download(system, product.id, { dlid: key });
    expect([after.status, after.error?.code]).toEqual([404, 'NOT_FOUND']);
    expectError(await admin().delete(`${BASE}/files/${file.id}`).set(AUTH), 404, 'NOT_FOUND');
  });

  test('a file whose object went missing from storage is a JSON NOT_FOUND, not a broken download', async () => {
    const product = await productOf('public');
    const version = await createVersion(system, product.id, '1.0.0');
    await uploadFile(system, version.id, packageBytes(1000));
    const objectKey = (await admin().get(`${BASE}/versions/${version.id}`).set(AUTH)).body.data
      .files[0].object_key as string;
    await system.running.download.storage.remove(objectKey);
    const res = await download(system, product.id);
    expect([res.status, res.error?.code]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('GET /download-log', () => {
  test('parameters are checked strictly', async () => {
    const log = (query: string) => admin().get(`${BASE}/download-log?${query}`).set(AUTH);
    expect((await log('')).status).toBe(200);
    for (const query of [
      'refused=maybe',
      'product_id=x',
      'product_id=0',
      'per_page=501',
      'page=0',
      'page=1&page=2',
      'colour=red',
    ]) {
      expectError(await log(query), 400, 'INVALID_REQUEST');
    }
    expectError(await system.admin().get(`${BASE}/download-log`), 401, 'UNAUTHORIZED');
  });
});

describe('GET /products/:id/offers: what the update check offers now, per plan (spec 4.4)', () => {
  test("without a key, the all-plans file; for a plan with its own file, that plan's file", async () => {
    const product = await productOf();
    const pro = await system.transport.call('license.createPlan', {
      name: `Pro ${seq++}`,
      activation_type: 'domain',
      activation_limit: 1,
    });
    const everyone = await createVersion(system, product.id, '1.0.0');
    await uploadFile(system, everyone.id, packageBytes(10), 'plugin-1.0.0.zip');
    const proOnly = await createVersion(system, product.id, '1.1.0');
    await uploadFile(system, proOnly.id, packageBytes(12), 'plugin-pro-1.1.0.zip', {
      plan_id: String(pro.id),
    });
    const res = await admin().get(`${BASE}/products/${product.id}/offers`).set(AUTH);
    expect(res.status).toBe(200);
    const offers = res.body.data.offers as Array<{
      plan_id: number | null;
      version: string | null;
      file: { filename: string } | null;
    }>;
    expect(offers[0]).toMatchObject({
      plan_id: null,
      plan: null,
      version: '1.0.0',
      file: { filename: 'plugin-1.0.0.zip', size: 10 },
    });
    expect(offers.find((offer) => offer.plan_id === pro.id)).toMatchObject({
      version: '1.1.0',
      file: { filename: 'plugin-pro-1.1.0.zip' },
    });
    // The offer is the update check's: a key of the plan gets the same version.
    const { key } = await system.license({ product, plan_name: `Key ${seq++}` });
    const check = await system.api().get(`${API_BASE}/updates/${product.id}?dlid=${key}`);
    expect(check.body.data.version).toBe('1.0.0');
  });

  test('a product with nothing published offers nothing; an unknown product is 404', async () => {
    const product = await productOf();
    const res = await admin().get(`${BASE}/products/${product.id}/offers`).set(AUTH);
    expect(res.body.data.offers[0]).toEqual({
      plan_id: null,
      plan: null,
      version: null,
      file: null,
    });
    expectError(await admin().get(`${BASE}/products/987654321/offers`).set(AUTH), 404, 'NOT_FOUND');
  });
});
