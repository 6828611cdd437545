import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import { LicensingError, invalidRequest } from '../../../libs/contracts/index.js';
import {
  UPLOAD_FIELDS,
  checkUploadField,
  checkUploadTarget,
  contentTypeOf,
  uploadChoices,
  type UploadChoices,
} from './upload-fields.js';
import {
  bytePortRefusal,
  openBytePort,
  readBytePortJson,
  type Transport,
} from '../../../libs/transport/index.js';

/**
 * Package uploads (multipart, spec 2.7's files): the `file` part is streamed from the admin's
 * connection to the download service's byte port and on into object storage, never held here.
 */

/** A plan must exist before files are restricted to it. */
export async function requirePlan(transport: Transport, planId: number): Promise<void> {
  try {
    await transport.call('license.getPlan', { id: planId });
  } catch (error) {
    if (error instanceof LicensingError && error.code === 'NOT_FOUND') {
      throw invalidRequest(`plan_id: plan ${planId} does not exist.`);
    }
    throw error;
  }
}

interface StoredUpload {
  object_key: string;
  size: number;
  sha256: string;
  sha512: string;
}

/**
 * Streams one file part to the download service (`PUT <upload_url>`, chunked): the bytes go
 * from the admin's connection to object storage without being held here. `objectKey` is the
 * key the download service chose in `download.prepareUpload`, before any byte was sent.
 */
async function sendToStorage(
  stream: Readable,
  target: { uploadUrl: string; objectKey: string; contentType: string },
  signal: AbortSignal,
): Promise<StoredUpload> {
  // Once the whole file has been sent, the download service stores it whatever happens here,
  // so its answer is awaited (and the caller removes the object); before that, cutting the
  // request makes the download service discard what it got.
  let sent = false;
  stream.once('end', () => (sent = true));
  const cut = new AbortController();
  const put = openBytePort({
    url: target.uploadUrl,
    method: 'PUT',
    headers: { 'content-type': target.contentType },
    body: stream,
    signal: cut.signal,
  });
  const onAbort = () => {
    if (sent) return;
    // busboy must be able to go on parsing (and discarding) the rest of the request.
    stream.unpipe();
    stream.resume();
    cut.abort(signal.reason);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const incoming = await put.answer;
    if (incoming.statusCode !== 200) throw await bytePortRefusal(incoming);
    const data = ((await readBytePortJson(incoming)) as { data?: Partial<StoredUpload> } | null)
      ?.data;
    if (
      data?.object_key !== target.objectKey ||
      typeof data.size !== 'number' ||
      typeof data.sha256 !== 'string' ||
      typeof data.sha512 !== 'string'
    ) {
      throw new Error('The download service answered the upload without its record.');
    }
    return {
      object_key: data.object_key,
      size: data.size,
      sha256: data.sha256,
      sha512: data.sha512,
    };
  } catch (error) {
    stream.unpipe();
    stream.resume();
    throw signal.aborted && !sent ? signal.reason : error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

export interface ReceivedPackage extends UploadChoices {
  stored: StoredUpload;
  filename: string;
  contentType: string;
}

/**
 * Reads a multipart upload: the `file` part is streamed to storage as it arrives; `plan_id` and
 * `include_in_updates` may come before or after it. Settles only once the whole request has been
 * read, so every answer (413 included) reaches a client that is still sending. On any failure
 * the stored object is removed.
 */
export function receivePackage(
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
        limits: {
          files: 1,
          fields: UPLOAD_FIELDS.size + 1,
          parts: UPLOAD_FIELDS.size + 3,
          fieldSize: 4096 + 1,
          fileSize: maxBytes + 1,
        },
      });
    } catch {
      reject(invalidRequest('The request body must be multipart/form-data with a boundary.'));
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
        failure = invalidRequest('file: send the package as a file part named "file".');
      }
      let choices: UploadChoices | undefined;
      try {
        choices = uploadChoices(fields);
      } catch (error) {
        failure ??= error;
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
        ...choices!,
      });
    };

    parser.on('field', (name: string, value: string, info: busboy.FieldInfo) => {
      if (failure !== undefined) return;
      if (name === 'file')
        return fail(invalidRequest('file: must be a file part, not a text field.'));
      if (!UPLOAD_FIELDS.has(name)) return fail(invalidRequest(`unknown field: ${name}`));
      if (info.valueTruncated || value.includes('\u0000')) {
        return fail(invalidRequest(`${name}: the value is not valid.`));
      }
      if (fields.has(name)) return fail(invalidRequest(`${name}: sent more than once.`));
      fields.set(name, value);
      try {
        // Checked as soon as it arrives, so a bad field stops the upload early.
        const { planId } = checkUploadField(name, value);
        checkUploadTarget(fields, false);
        if (planId !== null) planCheck = requirePlan(transport, planId).catch(fail);
      } catch (error) {
        fail(error);
      }
    });

    parser.on('file', (name: string, stream: Readable, info: busboy.FileInfo) => {
      const filename = (info.filename ?? '').trim();
      if (failure === undefined) {
        if (name !== 'file')
          fail(invalidRequest(`unknown field: ${name}; send the package as "file".`));
        else if (file) fail(invalidRequest('file: send one file.'));
        else if (filename === '' || Array.from(filename).length > 255 || filename.includes('\0')) {
          fail(invalidRequest('file: the file name must be 1 to 255 characters.'));
        } else if (filename.includes('\uFFFD')) {
          // busboy puts U+FFFD where a name's bytes are not UTF-8: refused, as a form's would be,
          // rather than stored as something other than what was sent.
          fail(invalidRequest('file: the file name is not valid UTF-8.'));
        }
      }
      if (failure !== undefined) {
        stream.resume();
        return;
      }
      file = { filename, contentType: contentTypeOf(filename, info.mimeType) };
      // busboy fails the file stream of a body that ends mid-file.
      stream.on('error', () => fail(invalidRequest('The multipart body is malformed.')));
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
      fail(invalidRequest(`Too many parts: send file and ${[...UPLOAD_FIELDS].join(', ')}.`));
    parser.on('partsLimit', tooMany);
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('error', () => {
      fail(invalidRequest('The multipart body is malformed.'));
      req.unpipe(parser);
      req.resume();
      finish();
    });
    parser.on('close', finish);
    req.on('close', () => {
      if (!req.complete) {
        fail(invalidRequest('The upload was interrupted.'));
        finish();
      }
    });
    req.pipe(parser);
  });
}
