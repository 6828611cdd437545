import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import express, { type Request, type Router } from 'express';
import {
  CreateVersionRequest,
  DownloadLogRequest,
  LicensingError,
  UpdateFileRequest,
  UpdateVersionRequest,
  isErrorCode,
  type PackageFile,
} from '../../libs/contracts/index.js';
import { declaredLength, refuseUnreadBody, sendData } from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { jsonBody, parseWith, pathId } from './input.js';

const ADMIN_BASE = '/admin/v1';

const nonEmptyPatch = <T extends object>(value: T) => Object.keys(value).length > 0;
const EMPTY_PATCH = { message: 'must change at least one field' };

const VersionToCreate = CreateVersionRequest.omit({ product_id: true });
const VersionPatch = UpdateVersionRequest.omit({ id: true }).refine(nonEmptyPatch, EMPTY_PATCH);
const FilePatch = UpdateFileRequest.omit({ id: true }).refine(nonEmptyPatch, EMPTY_PATCH);

/** The form fields an upload may carry beside `file`. */
const UPLOAD_FIELDS = new Set(['plan_id', 'include_in_updates']);
/** Room for the multipart envelope around the file: boundaries, part headers, the fields. */
const MULTIPART_ALLOWANCE_BYTES = 64 * 1024;
/** Waiting for the download service: connecting, its answer, or a stall mid-upload. */
const UPLOAD_IDLE_TIMEOUT_MS = 120_000;

/** Media types of common package formats, for parts sent as application/octet-stream. */
const TYPES_BY_EXTENSION: Record<string, string> = {
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  xz: 'application/x-xz',
  bz2: 'application/x-bzip2',
  '7z': 'application/x-7z-compressed',
  jar: 'application/java-archive',
  exe: 'application/vnd.microsoft.portable-executable',
  msi: 'application/x-msi',
  dmg: 'application/x-apple-diskimage',
  deb: 'application/vnd.debian.binary-package',
  rpm: 'application/x-rpm',
};

function invalid(message: string): LicensingError {
  return new LicensingError('INVALID_REQUEST', message);
}

function contentTypeOf(filename: string, sent: string): string {
  const type = sent.split(';')[0]?.trim().toLowerCase() ?? '';
  if (/^[a-z0-9][\w!#$&^.+-]{0,126}\/[a-z0-9][\w!#$&^.+-]{0,126}$/.test(type)) {
    if (type !== 'application/octet-stream') return type;
  }
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase() ?? '';
  return TYPES_BY_EXTENSION[extension] ?? 'application/octet-stream';
}

function parsePlanId(value: string): number | null {
  if (value === '' || value === 'null') return null;
  const id = /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(id)) throw invalid('plan_id: must be a positive integer, or empty.');
  return id;
}

function parseBoolean(name: string, value: string): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw invalid(`${name}: must be true or false.`);
}

/** A plan must exist before files are restricted to it. */
async function requirePlan(transport: Transport, planId: number): Promise<void> {
  try {
    await transport.call('license.getPlan', { id: planId });
  } catch (error) {
    if (error instanceof LicensingError && error.code === 'NOT_FOUND') {
      throw invalid(`plan_id: plan ${planId} does not exist.`);
    }
    throw error;
  }
}

interface StoredUpload {
  object_key: string;
  size: number;
  sha256: string;
}

async function readAnswer(incoming: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('The download service answer is too large.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** A LicensingError from the download service's envelope, so its code reaches the admin. */
function fromEnvelope(status: number, body: unknown): Error {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (isErrorCode(error?.code) && typeof error.message === 'string') {
    return new LicensingError(error.code, error.message, { status });
  }
  return new Error(`The download service answered HTTP ${status}.`);
}

/**
 * Streams one file part to the download service (`PUT <upload_url>`, chunked): the bytes go
 * from the admin's connection to object storage without being held here. `objectKey` is the
 * key the download service chose in `download.prepareUpload`, before any byte was sent.
 */
function sendToStorage(
  stream: Readable,
  target: { uploadUrl: string; objectKey: string; contentType: string },
  signal: AbortSignal,
): Promise<StoredUpload> {
  return new Promise<StoredUpload>((resolve, reject) => {
    const url = new URL(target.uploadUrl);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const put = send(url, {
      method: 'PUT',
      headers: { 'content-type': target.contentType, 'transfer-encoding': 'chunked' },
      timeout: UPLOAD_IDLE_TIMEOUT_MS,
    });
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      // busboy must be able to go on parsing (and discarding) the rest of the request.
      stream.unpipe(put);
      stream.resume();
      put.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    // Once the whole file has been sent, the download service stores it whatever happens here,
    // so its answer is awaited (and the caller removes the object); before that, cutting the
    // request makes the download service discard what it got.
    let sent = false;
    stream.once('end', () => (sent = true));
    signal.addEventListener('abort', () => sent || fail(signal.reason), { once: true });
    put.on('timeout', () => put.destroy(new Error('The download service did not answer in time.')));
    put.on('error', fail);
    put.on('response', (incoming) => {
      readAnswer(incoming).then((body) => {
        const data = (body as { data?: Partial<StoredUpload> } | null)?.data;
        if (
          incoming.statusCode === 200 &&
          data?.object_key === target.objectKey &&
          typeof data.size === 'number' &&
          typeof data.sha256 === 'string'
        ) {
          if (settled) return;
          settled = true;
          resolve({ object_key: data.object_key, size: data.size, sha256: data.sha256 });
        } else {
          fail(fromEnvelope(incoming.statusCode ?? 500, body));
        }
      }, fail);
    });
    stream.pipe(put);
  });
}

interface ReceivedPackage {
  stored: StoredUpload;
  filename: string;
  contentType: string;
  planId: number | null;
  includeInUpdates: boolean;
}

/**
 * Reads a multipart upload: the `file` part is streamed to storage as it arrives; `plan_id` and
 * `include_in_updates` may come before or after it. Settles only once the whole request has been
 * read, so every answer (413 included) reaches a client that is still sending. On any failure
 * the stored object is removed.
 */
function receivePackage(
  req: Request,
  transport: Transport,
  maxBytes: number,
): Promise<ReceivedPackage> {
  return new Promise<ReceivedPackage>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        // busboy reports the limit when a file reaches it: one byte more is the first too many.
        limits: { files: 1, fields: 4, parts: 6, fieldSize: 1024, fileSize: maxBytes + 1 },
      });
    } catch {
      reject(invalid('The request body must be multipart/form-data with a boundary.'));
      return;
    }
    const fields = new Map<string, string>();
    const abort = new AbortController();
    let failure: unknown;
    let file: { filename: string; contentType: string } | undefined;
    let upload: Promise<StoredUpload> | undefined;
    /**
     * The key the download service chose for the object, known before any byte is sent: if its
     * answer to the upload is lost after it stored the object, the object can still be removed.
     */
    let objectKey: string | undefined;
    let planCheck: Promise<void> = Promise.resolve();
    let done = false;

    const fail = (error: unknown) => {
      failure ??= error;
      if (!abort.signal.aborted) abort.abort(error);
    };

    const finish = () => {
      if (done) return;
      done = true;
      settle().catch(reject);
    };
    const settle = async () => {
      await planCheck;
      const stored = upload ? await upload.catch(() => undefined) : undefined;
      if (failure === undefined && (!file || !stored)) {
        failure = invalid('file: send the package as a file part named "file".');
      }
      if (failure !== undefined) {
        if (objectKey !== undefined) {
          await transport.call('download.deleteObject', { object_key: objectKey }).catch(() => {});
        }
        reject(failure instanceof Error ? failure : new Error(String(failure)));
        return;
      }
      resolve({
        stored: stored!,
        filename: file!.filename,
        contentType: file!.contentType,
        planId: parsePlanId(fields.get('plan_id') ?? ''),
        includeInUpdates: parseBoolean(
          'include_in_updates',
          fields.get('include_in_updates') ?? 'true',
        ),
      });
    };

    parser.on('field', (name: string, value: string, info: busboy.FieldInfo) => {
      if (failure !== undefined) return;
      if (name === 'file') return fail(invalid('file: must be a file part, not a text field.'));
      if (!UPLOAD_FIELDS.has(name)) return fail(invalid(`unknown field: ${name}`));
      if (info.valueTruncated || value.includes('\u0000')) {
        return fail(invalid(`${name}: the value is not valid.`));
      }
      if (fields.has(name)) return fail(invalid(`${name}: sent more than once.`));
      fields.set(name, value);
      try {
        // Checked as soon as it arrives, so a bad field stops the upload early.
        if (name === 'include_in_updates') parseBoolean(name, value);
        const planId = name === 'plan_id' ? parsePlanId(value) : null;
        if (planId !== null) planCheck = requirePlan(transport, planId).catch(fail);
      } catch (error) {
        fail(error);
      }
    });

    parser.on('file', (name: string, stream: Readable, info: busboy.FileInfo) => {
      const filename = (info.filename ?? '').trim();
      if (failure === undefined) {
        if (name !== 'file') fail(invalid(`unknown field: ${name}; send the package as "file".`));
        else if (file) fail(invalid('file: send one file.'));
        else if (filename === '' || Array.from(filename).length > 255 || filename.includes('\0')) {
          fail(invalid('file: the file name must be 1 to 255 characters.'));
        }
      }
      if (failure !== undefined) {
        stream.resume();
        return;
      }
      file = { filename, contentType: contentTypeOf(filename, info.mimeType) };
      // busboy fails the file stream of a body that ends mid-file.
      stream.on('error', () => fail(invalid('The multipart body is malformed.')));
      stream.on('limit', () => {
        fail(
          new LicensingError(
            'PAYLOAD_TOO_LARGE',
            `file: the package is over the limit of ${maxBytes} bytes.`,
          ),
        );
      });
      const { contentType } = file;
      upload = transport
        .call('download.prepareUpload', { filename })
        .then(({ upload_url, object_key }) => {
          objectKey = object_key;
          abort.signal.throwIfAborted();
          return sendToStorage(
            stream,
            { uploadUrl: upload_url, objectKey: object_key, contentType },
            abort.signal,
          );
        });
      upload.catch((error: unknown) => {
        fail(error);
        stream.resume();
      });
    });

    const tooMany = () =>
      fail(invalid('Too many parts: send file, plan_id and include_in_updates.'));
    parser.on('partsLimit', tooMany);
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('error', () => {
      fail(invalid('The multipart body is malformed.'));
      req.unpipe(parser);
      req.resume();
      finish();
    });
    parser.on('close', finish);
    req.on('close', () => {
      if (!req.complete) {
        fail(invalid('The upload was interrupted.'));
        finish();
      }
    });
    req.pipe(parser);
  });
}

/** `?a=1&b=2` of a GET, strictly: known names once each, plain values. */
function queryOf(req: Request, known: readonly string[]): Map<string, string> {
  const question = req.originalUrl.indexOf('?');
  const params = new URLSearchParams(question === -1 ? '' : req.originalUrl.slice(question + 1));
  const values = new Map<string, string>();
  for (const [name, value] of params) {
    if (!known.includes(name)) throw invalid(`unknown query parameter: ${name}`);
    if (values.has(name)) throw invalid(`${name}: sent more than once.`);
    if (value !== '') values.set(name, value);
  }
  return values;
}

function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw invalid(`${name}: must be a positive integer.`);
  return n;
}

/**
 * Versions, package files and the download log (spec 2.6, 2.7, 4.5). Versions and files are
 * records of the update catalog; their bytes are objects of the download service.
 */
export function packageRoutes(
  transport: Transport,
  options: { maxUploadBytes: number; logger: Logger },
): Router {
  const router = express.Router();

  // ---- Versions ----
  router.post('/products/:id/versions', async (req, res) => {
    const product_id = pathId(req);
    const fields = parseWith(VersionToCreate, jsonBody(req));
    const version = await transport.call('update-catalog.createVersion', { product_id, ...fields });
    res.location(`${ADMIN_BASE}/versions/${version.id}`);
    sendData(res, version, 201);
  });

  router.get('/products/:id/versions', async (req, res) => {
    sendData(res, await transport.call('update-catalog.listVersions', { product_id: pathId(req) }));
  });

  router.get('/versions/:id', async (req, res) => {
    sendData(res, await transport.call('update-catalog.getVersion', { id: pathId(req) }));
  });

  router.patch('/versions/:id', async (req, res) => {
    const id = pathId(req);
    const changes = parseWith(VersionPatch, jsonBody(req));
    sendData(res, await transport.call('update-catalog.updateVersion', { id, ...changes }));
  });

  // ---- Package files ----
  router.post('/versions/:id/files', async (req, res) => {
    const version_id = pathId(req);
    if (!req.is('multipart/form-data')) {
      throw invalid('The request body must be multipart/form-data with the package as "file".');
    }
    const declared = declaredLength(req);
    if (declared !== undefined && declared > options.maxUploadBytes + MULTIPART_ALLOWANCE_BYTES) {
      throw refuseUnreadBody(
        res,
        new LicensingError(
          'PAYLOAD_TOO_LARGE',
          `file: the package is over the limit of ${options.maxUploadBytes} bytes.`,
        ),
      );
    }
    // The version must exist before any byte is stored.
    await transport.call('update-catalog.getVersion', { id: version_id });
    const received = await receivePackage(req, transport, options.maxUploadBytes);
    let file: PackageFile;
    try {
      file = await transport.call('update-catalog.addFile', {
        version_id,
        filename: received.filename,
        plan_id: received.planId,
        include_in_updates: received.includeInUpdates,
        size: received.stored.size,
        sha256: received.stored.sha256,
        content_type: received.contentType,
        object_key: received.stored.object_key,
      });
    } catch (error) {
      await transport
        .call('download.deleteObject', { object_key: received.stored.object_key })
        .catch(() => {});
      throw error;
    }
    res.location(`${ADMIN_BASE}/files/${file.id}`);
    sendData(res, file, 201);
  });

  router.patch('/files/:id', async (req, res) => {
    const id = pathId(req);
    const changes = parseWith(FilePatch, jsonBody(req));
    if (changes.plan_id) await requirePlan(transport, changes.plan_id);
    sendData(res, await transport.call('update-catalog.updateFile', { id, ...changes }));
  });

  router.delete('/files/:id', async (req, res) => {
    const file = await transport.call('update-catalog.deleteFile', { id: pathId(req) });
    try {
      await transport.call('download.deleteObject', { object_key: file.object_key });
    } catch (error) {
      // The record is gone, so no one is offered the file; the object is left for cleanup.
      options.logger.error(
        { err: error, object_key: file.object_key },
        'a removed file kept its stored object',
      );
    }
    sendData(res, file);
  });

  // ---- Download log (spec 4.5: served and refused downloads, with the reason) ----
  router.get('/download-log', async (req, res) => {
    const query = queryOf(req, ['product_id', 'refused', 'page', 'per_page']);
    const refused = query.get('refused');
    const request = parseWith(DownloadLogRequest, {
      product_id: positiveInteger('product_id', query.get('product_id')) ?? null,
      refused: refused === undefined ? null : parseBoolean('refused', refused),
      page: positiveInteger('page', query.get('page')),
      per_page: positiveInteger('per_page', query.get('per_page')),
    });
    sendData(res, await transport.call('download.listLog', request));
  });

  return router;
}
