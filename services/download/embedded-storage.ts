import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3rver, { type FilesystemStore, type StoreObject } from 's3rver';

/** s3rver's fixed credentials. */
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

export interface EmbeddedStorage {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  directory: string;
  stop(): Promise<void>;
}

/**
 * The embedded default when S3_ENDPOINT is unset (`npm start`, the tests): an S3-compatible server
 * (s3rver) in this process on a loopback port, so the same `minio` client code runs everywhere.
 * Data lives under `directory`, or a fresh temporary directory that is removed at stop.
 */
export async function startEmbeddedStorage(directory?: string): Promise<EmbeddedStorage> {
  const temporary = !directory;
  const root = directory ? path.resolve(directory) : await mkdtemp(path.join(tmpdir(), 'pkgs-'));
  await mkdir(root, { recursive: true });
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: root });

  // s3rver does not implement ListMultipartUploads (`GET /bucket?uploads`), which the minio
  // client asks before every multipart upload: answer "none in progress".
  server.middleware.unshift(async (ctx, next) => {
    if (ctx.method === 'GET' && 'uploads' in ctx.query) {
      ctx.type = 'application/xml';
      ctx.body =
        '<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult ' +
        'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>' +
        (ctx.path.split('/')[1] ?? '').replace(/[^a-z0-9.-]/g, '') +
        '</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><NextKeyMarker>' +
        '</NextKeyMarker><NextUploadIdMarker></NextUploadIdMarker><MaxUploads>1000</MaxUploads>' +
        '<IsTruncated>false</IsTruncated></ListMultipartUploadsResult>';
      return;
    }
    await next();
  });
  fixPutObject(server.store);

  let address;
  try {
    address = await server.run();
  } catch (error) {
    if (temporary) await rm(root, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    accessKey: ACCESS_KEY,
    secretKey: SECRET_KEY,
    directory: root,
    stop: async () => {
      const closed = server.close().catch(() => {});
      // The minio client keeps connections alive; they would hold the close for seconds.
      server.httpServer?.closeAllConnections();
      await closed;
      if (temporary) await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * s3rver's putObject answers when its hashing step has seen the last byte, before the file is
 * flushed, so a read straight after an upload could see a short file. This version answers once
 * the file is written.
 */
function fixPutObject(store: FilesystemStore): void {
  store.putObject = async function putObject(this: FilesystemStore, object: StoreObject) {
    const file = this.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(path.dirname(file), { recursive: true });
    const md5 = createHash('md5');
    let size = 0;
    const content = Buffer.isBuffer(object.content)
      ? Readable.from([object.content])
      : object.content;
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
    const digest = md5.digest('hex');
    await this.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}
