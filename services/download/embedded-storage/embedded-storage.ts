import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver, { type FilesystemStore } from 's3rver';
import { signatureProblem } from './embedded-signature.js';
import { repairUploads, uploadsFolder } from './embedded-uploads.js';

/** The access key of s3rver's one account (it refuses any other); the secret is made per start. */
const ACCESS_KEY = 'S3RVER';

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
 * Data lives under `directory`, or a fresh temporary directory that is removed at stop. s3rver
 * checks no SigV4 signature and takes unsigned requests, and any local process reaches the port:
 * every request is refused here, before anything else reads it, unless its signature verifies
 * under a secret key made at this start (docs/operations.md, The embedded package store).
 */
export async function startEmbeddedStorage(
  directory?: string,
  options: {
    /** Told of each request the store failed on its side (an S3 InternalError, status 500). */
    onInternalError?: (error: Error, request: { method: string; path: string }) => void;
  } = {},
): Promise<EmbeddedStorage> {
  const temporary = !directory;
  const root = directory ? path.resolve(directory) : await mkdtemp(path.join(tmpdir(), 'pkgs-'));
  await mkdir(root, { recursive: true });
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: root });
  const credentials = { accessKey: ACCESS_KEY, secretKey: randomBytes(32).toString('hex') };

  // s3rver implements neither ListMultipartUploads (`GET /bucket?uploads`), which the minio
  // client asks before every multipart upload and to find one to remove, nor
  // AbortMultipartUpload (`DELETE /bucket/key?uploadId=`): without them, the parts of a failed
  // upload would stay on disk for ever. Both are answered here from s3rver's own upload folders.
  server.middleware.unshift(async (ctx, next) => {
    if (ctx.method === 'GET' && 'uploads' in ctx.query) {
      const bucket = bucketOf(ctx.path);
      const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
      const uploads = (await listUploads(server.store, bucket)).filter((u) =>
        u.key.startsWith(prefix),
      );
      ctx.type = 'application/xml';
      ctx.body = listUploadsXml(bucket, uploads);
      return;
    }
    if (ctx.method === 'DELETE' && typeof ctx.query.uploadId === 'string') {
      const bucket = bucketOf(ctx.path);
      const key = safeDecode(ctx.path.split('/').slice(2).join('/'));
      const upload = (await listUploads(server.store, bucket)).find(
        (u) => u.uploadId === ctx.query.uploadId && u.key === key,
      );
      if (!upload) {
        ctx.status = 404;
        ctx.type = 'application/xml';
        ctx.body =
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code><Message>' +
          'The specified upload does not exist.</Message></Error>';
        return;
      }
      await rm(upload.directory, { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    await next();
  });
  // First of all: the multipart answers above, and s3rver's own, only see verified requests.
  server.middleware.unshift(async (ctx, next) => {
    const problem = signatureProblem(
      { method: ctx.method, url: ctx.req.url ?? '', headers: ctx.req.headers },
      credentials,
    );
    if (problem === null) return next();
    ctx.status = 403;
    ctx.type = 'application/xml';
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>' +
      `${xmlText(problem)}</Message></Error>`;
  });
  repairUploads(server.store);
  // s3rver answers a failure of its own with "We encountered an internal error" and, silent,
  // tells nobody why: the cause (a full disk, a file gone) is passed on to be logged.
  server.on('error', (error, ctx) => {
    if (typeof error.status === 'number' && error.status < 500) return;
    options.onInternalError?.(error, { method: ctx.method, path: ctx.path });
  });

  let address;
  try {
    address = await server.run();
  } catch (error) {
    if (temporary) await rm(root, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    ...credentials,
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

interface PendingUpload {
  key: string;
  uploadId: string;
  initiated: Date;
  directory: string;
}

const bucketOf = (requestPath: string) => requestPath.split('/')[1] ?? '';

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const xmlText = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The multipart uploads in progress in a bucket: s3rver keeps one folder per upload. */
async function listUploads(store: FilesystemStore, bucket: string): Promise<PendingUpload[]> {
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) return [];
  const root = uploadsFolder(store, bucket);
  let ids: string[];
  try {
    ids = await readdir(root);
  } catch {
    return [];
  }
  const uploads = await Promise.all(
    ids.map(async (uploadId): Promise<PendingUpload | null> => {
      const directory = path.join(root, uploadId);
      try {
        const [key, info] = await Promise.all([
          readFile(path.join(directory, 'key'), 'utf8'),
          stat(directory),
        ]);
        return { key, uploadId, initiated: info.birthtime, directory };
      } catch {
        return null; // removed meanwhile
      }
    }),
  );
  return uploads.filter((u): u is PendingUpload => u !== null);
}

function listUploadsXml(bucket: string, uploads: readonly PendingUpload[]): string {
  const entries = uploads
    .map(
      (u) =>
        `<Upload><Key>${xmlText(u.key)}</Key><UploadId>${xmlText(u.uploadId)}</UploadId>` +
        `<StorageClass>STANDARD</StorageClass><Initiated>${u.initiated.toISOString()}` +
        '</Initiated></Upload>',
    )
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult ' +
    `xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${xmlText(bucket)}</Bucket>` +
    '<KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><NextKeyMarker></NextKeyMarker>' +
    '<NextUploadIdMarker></NextUploadIdMarker><MaxUploads>1000</MaxUploads>' +
    `<IsTruncated>false</IsTruncated>${entries}</ListMultipartUploadsResult>`
  );
}
