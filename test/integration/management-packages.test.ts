import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type request from 'supertest';
import { PART_SIZE } from '../../services/download/storage.js';
import {
  AUTH,
  createVersion,
  download,
  packageBytes,
  sha256,
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
      uploaded_at: expect.any(String),
      files: [],
    });
    const minimal = await createVersion(system, product.id, '1.5.0');
    expect(minimal).toMatchObject({ release_notes: null, release_date: null, published: true });
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
      content_type: 'application/zip',
      object_key: expect.stringMatching(/^packages\/[0-9a-f-]{36}\/plugin-1\.0\.zip$/),
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
    expect(file).toMatchObject({ size: bytes.length, sha256: sha256(bytes) });
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
