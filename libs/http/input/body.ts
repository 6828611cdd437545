import { createHash, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import getRawBody from 'raw-body';
import { LicensingError } from '../../contracts/index.js';
import { sha256OfContentDigest } from '../../signatures/index.js';
import { Form } from './form.js';
import { lingerAfterAnswer } from '../lingering-close.js';

export interface BodyLimits {
  /** The largest body accepted, after decompression. */
  maxBytes: number;
  /** Time allowed to receive the whole body. */
  timeoutMs: number;
}

/** The request's declared `Content-Length`, or undefined when it sends none (chunked). */
export function declaredLength(req: Request): number | undefined {
  const header = req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}

/**
 * A refusal given before the body has been read: the connection is closed after the answer
 * (lingering, so that a client still sending reads it), so the server neither waits for nor
 * keeps a body it has already refused.
 */
export function refuseUnreadBody(res: Response, error: LicensingError): LicensingError {
  lingerAfterAnswer(res.req, res);
  return error;
}

export function tooLarge(res: Response, maxBytes: number): LicensingError {
  return refuseUnreadBody(
    res,
    new LicensingError('PAYLOAD_TOO_LARGE', `The request body is over ${maxBytes} bytes.`),
  );
}

const decompressors: Record<string, (() => NodeJS.ReadWriteStream) | undefined> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * Reads the request body into `req.body` (a Buffer; empty when there is none) within limits of
 * size and time. A declared `Content-Length` over the limit is refused at once, a body that grows
 * past it as soon as it does, and one still arriving after `timeoutMs` gets 408: no client holds
 * a request open by sending slowly, or makes the server read what it will refuse. Bodies that
 * `skip` selects are left unread for their route (package uploads are streamed).
 */
export function readBody(limits: BodyLimits, skip?: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    if (skip?.(req)) return next();
    // RFC 9530: a body sent with a sha-256 Content-Digest must match it, byte for byte as sent
    // (before any content coding is undone); a signed answer then covers the digest it checked.
    const claimed = req.get('content-digest');
    const named = claimed === undefined ? null : sha256OfContentDigest(claimed);
    const digest = named === null ? null : createHash('sha256');
    const checkDigest = (): LicensingError | undefined => {
      if (claimed === undefined || named === null || digest === null) return undefined;
      if (!timingSafeEqual(digest.digest(), named)) {
        return new LicensingError(
          'INVALID_REQUEST',
          'The request body does not match its Content-Digest.',
        );
      }
      res.locals[CHECKED_CONTENT_DIGEST] = claimed;
      return undefined;
    };
    const length = declaredLength(req);
    if (length === undefined && req.headers['transfer-encoding'] === undefined) {
      req.body = Buffer.alloc(0);
      return next(checkDigest());
    }
    if (digest !== null) req.on('data', (chunk: Buffer) => digest.update(chunk));
    if (length !== undefined && length > limits.maxBytes)
      return next(tooLarge(res, limits.maxBytes));

    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    let stream: Readable = req;
    if (encoding !== 'identity') {
      const decompress = decompressors[encoding];
      if (!decompress) {
        return next(
          refuseUnreadBody(
            res,
            new LicensingError(
              'UNSUPPORTED_MEDIA_TYPE',
              `The content encoding ${encoding} is not supported.`,
            ),
          ),
        );
      }
      stream = req.pipe(decompress()) as unknown as Readable;
    }

    let settled = false;
    const settle = (error?: LicensingError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (stream !== req) req.unpipe();
      next(error === undefined ? undefined : refuseUnreadBody(res, error));
    };
    const timer = setTimeout(() => {
      settle(
        new LicensingError(
          'REQUEST_TIMEOUT',
          `The request body did not arrive within ${limits.timeoutMs} ms.`,
        ),
      );
      if (stream !== req) stream.destroy();
    }, limits.timeoutMs);

    getRawBody(stream, {
      // The declared length is checked by raw-body only where it describes the bytes read.
      length: stream === req ? length : undefined,
      limit: limits.maxBytes,
    }).then(
      (body) => {
        req.body = body;
        settle(checkDigest());
      },
      (error: unknown) => settle(bodyError(error, limits.maxBytes)),
    );
  };
}

const CHECKED_CONTENT_DIGEST = 'checkedContentDigest';

/**
 * The request's `Content-Digest` field once `readBody` has found the body to match its sha-256;
 * null when it sent none, or none the server checks, or the body has not been read.
 */
export function checkedContentDigest(res: Response): string | null {
  const checked: unknown = res.locals[CHECKED_CONTENT_DIGEST];
  return typeof checked === 'string' ? checked : null;
}

function bodyError(error: unknown, maxBytes: number): LicensingError {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') {
    return new LicensingError('PAYLOAD_TOO_LARGE', `The request body is over ${maxBytes} bytes.`);
  }
  if (type === 'request.size.invalid') {
    return new LicensingError('INVALID_REQUEST', 'The request body does not match its length.');
  }
  if (type === undefined) {
    // A decompression stream failed: the body is not what its Content-Encoding says.
    return new LicensingError('INVALID_REQUEST', 'The request body could not be decompressed.');
  }
  return new LicensingError('INVALID_REQUEST', 'The request body could not be read.');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The `charset` parameter of the request's Content-Type, unquoted; undefined when none. */
function declaredCharset(req: Request): string | undefined {
  const parameters = (req.get('content-type') ?? '').split(';').slice(1);
  for (const parameter of parameters) {
    const match = /^\s*charset\s*=\s*(?:"([^"]*)"|(\S*))\s*$/i.exec(parameter);
    if (match) return match[1] ?? match[2] ?? '';
  }
  return undefined;
}

/**
 * The body as text, on both surfaces (forms and JSON): UTF-8, the only charset read. A body
 * declared in another is refused (415) rather than read as UTF-8, which would silently turn
 * `%C3%A9` sent as Latin-1 (two characters) into one; no charset, or `utf-8` in any case (or its
 * alias `utf8`), is UTF-8. Bytes that are not UTF-8 are refused, never replaced by U+FFFD.
 */
export function utf8Body(req: Request): string {
  const charset = declaredCharset(req);
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new LicensingError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The request body must be UTF-8 (charset=utf-8, or no charset), not charset=${charset}.`,
    );
  }
  const body: unknown = req.body;
  const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new LicensingError('INVALID_REQUEST', 'The request body is not valid UTF-8.');
  }
}

/** Spec 1: the public API's POST bodies are form fields. */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * The fields of a form body, parsed strictly (`Form`); an absent body is an empty form, a body of
 * any other type is refused.
 */
export function formFields(req: Request): Record<string, string> {
  const text = utf8Body(req);
  if (text.length > 0 && !req.is(FORM_TYPE)) {
    throw new LicensingError('INVALID_REQUEST', `The request body must be ${FORM_TYPE}.`);
  }
  return Form.parse(text).fields();
}

/**
 * The JSON body, read as UTF-8 (bytes that are not UTF-8 are refused, never replaced). Anything
 * but application/json, or no body at all, is refused instead of being mistaken for `{}`.
 */
export function jsonBody(req: Request): unknown {
  const text = req.is('application/json') ? utf8Body(req) : '';
  if (text === '') {
    throw new LicensingError(
      'INVALID_REQUEST',
      'The request body must be a JSON object sent as application/json.',
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new LicensingError('INVALID_REQUEST', 'The request body is not valid JSON.');
  }
}
