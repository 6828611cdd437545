import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import S3rver, { type FilesystemStore } from 's3rver';
import { startEmbeddedStorage } from '../../services/download/embedded-storage/embedded-storage.js';
import { repairUploads } from '../../services/download/embedded-storage/embedded-uploads.js';
import { clientWithBucket } from '../support/embedded-store-client.js';

/**
 * docs/operations.md, The embedded package store: its upload steps, as S3 has them. An upload is
 * answered once its file is on disk; CompleteMultipartUpload joins exactly the parts it names, as
 * they were answered, or refuses.
 */

let directory: string;
beforeAll(async () => (directory = await mkdtemp(path.join(tmpdir(), 'pkgs-uploads-'))));
afterAll(() => rm(directory, { recursive: true, force: true }));

function fileStore(): FilesystemStore {
  const store = new S3rver({ directory, silent: true }).store;
  repairUploads(store);
  return store;
}

describe('an upload is answered once it is written', () => {
  // The file is a FIFO: nothing is written until the test reads it, so an answer that came
  // before its bytes were written would come while nothing has read them.
  const bytes = Buffer.from('the bytes of one part');

  async function answeredOnceWritten(file: string, upload: () => Promise<unknown>) {
    await mkdir(path.dirname(file), { recursive: true });
    execFileSync('mkfifo', [file]);
    let answered = false;
    const answer = upload().then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answeredBeforeRead = answered;
    const written = await buffer(createReadStream(file));
    await answer;
    return { answeredBeforeRead, written };
  }

  test('a part of a multipart upload', async () => {
    const store = fileStore();
    const uploads = store.getResourcePath('bucket', undefined, 'uploads');
    await expect(
      answeredOnceWritten(path.join(uploads, 'fifo-upload', '1'), () =>
        store.putPart('bucket', 'fifo-upload', 1, Readable.from([bytes])),
      ),
    ).resolves.toEqual({ answeredBeforeRead: false, written: bytes });
  });

  test('an object', async () => {
    const store = fileStore();
    const key = 'packages/x/plugin.zip';
    await expect(
      answeredOnceWritten(store.getResourcePath('bucket', key, 'object'), () =>
        store.putObject({ bucket: 'bucket', key, content: Readable.from([bytes]), metadata: {} }),
      ),
    ).resolves.toEqual({ answeredBeforeRead: false, written: bytes });
  });
});

describe('CompleteMultipartUpload joins the parts it names, as answered', () => {
  const key = 'packages/joined/plugin.zip';
  let seq = 0;
  async function uploadWithParts(store: FilesystemStore, parts: Record<number, string>) {
    const uploadId = `upload-${seq++}`;
    await store.initiateUpload('bucket', key, uploadId, { 'content-type': 'application/zip' });
    const answered: Record<number, string> = {};
    for (const [number, text] of Object.entries(parts)) {
      const part = await store.putPart('bucket', uploadId, number, Readable.from([text]));
      answered[Number(number)] = part.md5;
    }
    return { uploadId, answered };
  }

  test('in the order of their numbers, whatever the order named; the upload is then gone', async () => {
    const store = fileStore();
    const { uploadId, answered } = await uploadWithParts(store, { 3: 'three', 2: 'two ' });
    await store.putObjectMultipart('bucket', uploadId, [
      { number: 3, etag: answered[3]! },
      { number: 2, etag: answered[2]! },
    ]);
    const object = await readFile(store.getResourcePath('bucket', key, 'object'), 'utf8');
    expect(object).toBe('two three');
    await expect(store.putObjectMultipart('bucket', uploadId, [])).rejects.toMatchObject({
      code: 'NoSuchUpload',
      status: 404,
    });
  });

  test('a part never uploaded, or named with another ETag, is InvalidPart (400)', async () => {
    const store = fileStore();
    const { uploadId, answered } = await uploadWithParts(store, { 1: 'one' });
    for (const parts of [
      [
        { number: 1, etag: answered[1]! },
        { number: 2, etag: answered[1]! },
      ],
      [{ number: 1, etag: '0'.repeat(32) }],
    ]) {
      await expect(store.putObjectMultipart('bucket', uploadId, parts)).rejects.toMatchObject({
        code: 'InvalidPart',
        status: 400,
      });
    }
  });

  test('through the store over HTTP: a part never uploaded is refused at once, not left hanging', async () => {
    const own = await startEmbeddedStorage();
    try {
      const client = await clientWithBucket(own, 'bucket');
      const uploadId = await client.initiateNewMultipartUpload('bucket', key, {});
      await expect(
        client.completeMultipartUpload('bucket', key, uploadId, [{ part: 2, etag: 'x' }]),
      ).rejects.toMatchObject({ code: 'InvalidPart' });
    } finally {
      await own.stop();
    }
  });
});
