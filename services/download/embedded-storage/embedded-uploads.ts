import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FilesystemStore, StoreObject } from 's3rver';
import S3Error from 's3rver/lib/models/error.js';
import S3Object from 's3rver/lib/models/object.js';

/**
 * s3rver's file store, with its upload steps made safe for the embedded store:
 * - it answers an upload (PutObject, UploadPart) when its hashing step has seen the last byte,
 *   before the file is flushed, so a read straight after it, or the CompleteMultipartUpload that
 *   joins the parts, could see a short file: these answer once the file is written and closed;
 * - its CompleteMultipartUpload reads the parts it is named without a look: a part never
 *   uploaded throws outside any request (the process's uncaught exception) and the request never
 *   ends. Here every part named must be there with the ETag it was answered with (S3's
 *   InvalidPart), an unknown upload is S3's NoSuchUpload, and a failed read fails the request.
 */
export function repairUploads(store: FilesystemStore): void {
  store.putObject = async function putObject(this: FilesystemStore, object: StoreObject) {
    const file = this.getResourcePath(object.bucket, object.key, 'object');
    const content = Buffer.isBuffer(object.content)
      ? Readable.from([object.content])
      : object.content;
    const { size, md5 } = await writeWhole(content, file);
    await this.putMetadata(object.bucket, object.key, object.metadata, md5);
    return { size, md5 };
  };
  store.putPart = async function putPart(
    this: FilesystemStore,
    bucket: string,
    uploadId: string,
    partNumber: string | number,
    content: NodeJS.ReadableStream,
  ) {
    const file = path.join(uploadDirectory(this, bucket, uploadId), String(partNumber));
    const written = await writeWhole(content, file);
    await writeFile(`${file}.md5`, written.md5);
    return written;
  };
  store.putObjectMultipart = async function putObjectMultipart(
    this: FilesystemStore,
    bucket: string,
    uploadId: string,
    parts: ReadonlyArray<{ number: number; etag: string }>,
  ) {
    const directory = uploadDirectory(this, bucket, uploadId);
    const [key, metadata] = await Promise.all([
      readFile(path.join(directory, 'key'), 'utf8'),
      readFile(path.join(directory, 'metadata'), 'utf8'),
    ]).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
      throw new S3Error('NoSuchUpload', 'The specified upload does not exist.');
    });
    const files = [...parts]
      .sort((a, b) => a.number - b.number)
      .map((part) => ({ ...part, file: path.join(directory, String(part.number)) }));
    for (const part of files) {
      const md5 = await readFile(`${part.file}.md5`, 'utf8').catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      });
      if (md5 !== part.etag) {
        throw new S3Error(
          'InvalidPart',
          'One or more of the specified parts could not be found or its ETag does not match.',
        );
      }
    }
    const content = Readable.from(
      (async function* joined() {
        for (const part of files) yield* createReadStream(part.file);
      })(),
    );
    const object = new S3Object(
      bucket,
      key,
      content,
      JSON.parse(metadata) as Record<string, string>,
    );
    const result = await this.putObject(object);
    await rm(directory, { recursive: true, force: true });
    return result;
  };
}

/** The folder of a bucket's multipart uploads in progress: one folder in it per upload. */
export const uploadsFolder = (store: FilesystemStore, bucket: string) =>
  store.getResourcePath(bucket, undefined, 'uploads');

const uploadDirectory = (store: FilesystemStore, bucket: string, uploadId: string) =>
  path.join(uploadsFolder(store, bucket), uploadId);

const isMissing = (error: unknown) =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';

/** Writes `content` to `file` and resolves once it is on disk, with its size and MD5. */
async function writeWhole(
  content: NodeJS.ReadableStream,
  file: string,
): Promise<{ size: number; md5: string }> {
  await mkdir(path.dirname(file), { recursive: true });
  const md5 = createHash('md5');
  let size = 0;
  await pipeline(
    content,
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    }),
    createWriteStream(file),
  );
  return { size, md5: md5.digest('hex') };
}
