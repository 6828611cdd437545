import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import {
  startEmbeddedStorage,
  type EmbeddedStorage,
} from '../../services/download/embedded-storage/embedded-storage.js';
import { PackageStorage } from '../../services/download/storage.js';
import { clientWithBucket } from '../support/embedded-store-client.js';

/**
 * The embedded package store (docs/operations.md) listens on a loopback port any local process
 * reaches: it answers only requests signed with the key it made at start, each for what it
 * signed, refused before anything reads them.
 */

const BUCKET = 'licensing-packages';
let store: EmbeddedStorage;
let storage: PackageStorage;
beforeAll(async () => {
  store = await startEmbeddedStorage();
  storage = await PackageStorage.connect({
    endpoint: store.endpoint,
    accessKey: store.accessKey,
    secretKey: store.secretKey,
    bucket: BUCKET,
    region: 'us-east-1',
    servesClients: false,
  });
  for (const name of ['a', 'b']) {
    // A body that ends after its bytes, as a request's does.
    const body = new PassThrough();
    body.write(`bytes ${name}`);
    setImmediate(() => body.end());
    await storage.put(`packages/${name}/plugin.zip`, body, {
      contentType: 'application/zip',
      maxBytes: 1024,
    });
  }
});
afterAll(() => store?.stop());

const content = async (key: string) => text(await storage.read(key, 0, 7));
const readUrl = (key: string) =>
  storage.readUrl(key, { disposition: 'attachment', ttlSeconds: 60, forClients: false });

describe('package uploads', () => {
  test('a body that ends with its first chunk is stored whole', async () => {
    const bytes = Buffer.from('one chunk and its end');
    await expect(
      storage.put('packages/c/plugin.zip', Readable.from([bytes]), {
        contentType: 'application/zip',
        maxBytes: 1024,
      }),
    ).resolves.toMatchObject({ size: bytes.length });
    await expect(text(await storage.read('packages/c/plugin.zip', 0, bytes.length))).resolves.toBe(
      bytes.toString(),
    );
  });
});

describe('a failure of the embedded store is told with its cause', () => {
  test('an internal error reaches onInternalError; an ordinary answer (404) does not', async () => {
    const told: Array<{ error: Error; request: { method: string; path: string } }> = [];
    const own = await startEmbeddedStorage(undefined, {
      onInternalError: (error, request) => told.push({ error, request }),
    });
    try {
      const client = await clientWithBucket(own, 'bucket');
      await expect(client.statObject('bucket', 'packages/none')).rejects.toMatchObject({
        code: 'NotFound',
      });
      expect(told).toEqual([]);
      // Where the store keeps multipart uploads in progress is a file: it cannot start one.
      const uploads = path.join(own.directory, 'bucket', '._S3rver_uploads');
      await rm(uploads, { recursive: true, force: true });
      await writeFile(uploads, 'not a folder');
      await expect(
        client.initiateNewMultipartUpload('bucket', 'packages/y/plugin.zip', {}),
      ).rejects.toThrow(/status: 500/);
      expect(told.length).toBe(2); // the minio client tries twice
      expect(told[0]!.error.message).toMatch(/ENOTDIR|EEXIST/);
      expect(told[0]!.request).toEqual({
        method: 'POST',
        path: '/bucket/packages/y/plugin.zip',
      });
    } finally {
      await own.stop();
    }
  });
});

describe('the embedded package store takes no request without its signature', () => {
  test('anonymous listing, reading, writing and removing are refused (403), nothing changes', async () => {
    const object = `${store.endpoint}/${BUCKET}/packages/a/plugin.zip`;
    for (const [method, url] of [
      ['GET', `${store.endpoint}/`],
      ['GET', `${store.endpoint}/${BUCKET}`],
      ['GET', `${store.endpoint}/${BUCKET}?uploads`],
      ['GET', object],
      ['HEAD', object],
      ['PUT', object],
      ['POST', `${object}?uploads`],
      ['DELETE', object],
      ['DELETE', `${object}?uploadId=x`],
    ] as const) {
      const res = await fetch(url, {
        method,
        ...(method === 'PUT' ? { body: 'replaced' } : {}),
      });
      expect([method, url, res.status]).toEqual([method, url, 403]);
    }
    expect(await content('packages/a/plugin.zip')).toBe('bytes a');
  });

  test('a credential of the wrong key is refused; the right one is taken', async () => {
    const forged = await PackageStorage.connect({
      endpoint: store.endpoint,
      accessKey: store.accessKey,
      secretKey: 'S3RVER',
      bucket: BUCKET,
      region: 'us-east-1',
    }).catch((error: unknown) => error);
    expect(forged).toMatchObject({ code: 'AccessDenied' });
    expect(await storage.stat('packages/a/plugin.zip')).toMatchObject({ size: 7 });
  });

  test("a presigned URL reads its own object, not another's, and only reads", async () => {
    const url = await readUrl('packages/a/plugin.zip');
    const own = await fetch(url);
    expect([own.status, await own.text()]).toEqual([200, 'bytes a']);
    const other = await fetch(url.replace('/packages/a/', '/packages/b/'));
    expect(other.status).toBe(403);
    expect(await other.text()).not.toContain('bytes b');
    for (const method of ['PUT', 'DELETE'] as const) {
      const res = await fetch(url, { method, ...(method === 'PUT' ? { body: 'x' } : {}) });
      expect([method, res.status]).toEqual([method, 403]);
    }
    expect(await content('packages/a/plugin.zip')).toBe('bytes a');
  });

  test('a presigned URL with its expiry or signature changed is refused', async () => {
    const url = await readUrl('packages/a/plugin.zip');
    const longer = url.replace('X-Amz-Expires=60', 'X-Amz-Expires=600');
    const signature = new URL(url).searchParams.get('X-Amz-Signature')!;
    const tampered = url.replace(
      signature,
      signature.replace(/^./, (c) => (c === '0' ? '1' : '0')),
    );
    for (const changed of [longer, tampered]) expect((await fetch(changed)).status).toBe(403);
  });

  test('no client is sent to the embedded store: URLs for redirect mode are refused', async () => {
    await expect(
      storage.readUrl('packages/a/plugin.zip', {
        disposition: 'attachment',
        ttlSeconds: 60,
        forClients: true,
      }),
    ).rejects.toThrow(/DOWNLOAD_DELIVERY=redirect needs S3_ENDPOINT/);
  });
});
