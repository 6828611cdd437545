import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import {
  IdText,
  LicensingError,
  logValue,
  type AuthorizedDownload,
  type LogRefusalRequest,
} from '../../libs/contracts/index.js';
import {
  contentDisposition,
  defineRoute,
  ifRangeMatches,
  parseRange,
  type Route,
} from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import { metrics } from '../../libs/observability/index.js';
import {
  BYTE_PORT_IDLE_TIMEOUT_MS,
  readObject,
  type ObjectAnswer,
  type ObjectBody,
  type Transport,
} from '../../libs/transport/index.js';
import { clientIp } from './client-ip.js';
import { publicErrors } from './form-route.js';
import type { GatewayDeps } from './gateway-deps.js';
import { DownloadHeaders, DownloadQuery, ProductPath } from './inputs.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/** Where in the object an answer of the store starts, or null when it is not the object's bytes. */
function firstByteOf(answer: ObjectAnswer): number | null {
  if (answer.status === 200) return 0;
  if (answer.status !== 206) return null;
  const match = /^bytes (\d+)-/.exec(answer.headers['content-range'] ?? '');
  return match ? Number(match[1]) : null;
}

/**
 * Relays the file `authorized` names to the client, straight from the object store on the
 * presigned URL the download service gave (one Node process on the byte path): `Range` and
 * `If-Range` decided here against the file's checksum, size and date, the bytes streamed with
 * backpressure, the store's request cut when the client goes away. A HEAD answers the same
 * status and headers without reading the object. An error before the first byte reaches the
 * client as its envelope, and the error handler below turns the served log entry into it.
 */
async function relay(
  req: Request,
  res: Response,
  authorized: AuthorizedDownload,
  sent: z.output<typeof DownloadHeaders>,
): Promise<void> {
  const etag = `"${authorized.sha256}"`;
  const lastModified = new Date(authorized.last_modified);
  const { size } = authorized;
  const range = ifRangeMatches(sent['If-Range'], etag, lastModified)
    ? parseRange(sent.Range, size)
    : null;
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${size}`);
    throw new LicensingError(
      'RANGE_NOT_SATISFIABLE',
      `The requested range is outside the file of ${size} bytes.`,
    );
  }
  const length = range ? range.end - range.start + 1 : size;
  let body: ObjectBody | null = null;
  if (req.method !== 'HEAD' && length > 0) {
    const upstream = readObject({
      url: authorized.url,
      headers: range ? { Range: `bytes=${range.start}-${range.end}` } : {},
      idleTimeoutMs: BYTE_PORT_IDLE_TIMEOUT_MS,
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.cancel();
    });
    const answer = await upstream.answer;
    const answered = Number(answer.headers['content-length']);
    const chunked = answer.headers['transfer-encoding'] !== undefined;
    if (firstByteOf(answer) !== (range?.start ?? 0) || chunked || !(answered >= length)) {
      answer.body.destroy();
      if (answer.status === 404) {
        throw new LicensingError('NOT_FOUND', 'The file of this version is missing from storage.');
      }
      throw new Error(`The object store answered HTTP ${answer.status} for ${length} bytes.`);
    }
    body = answer.body;
  }
  res.status(range ? 206 : 200);
  res.set({
    'Content-Type': authorized.content_type,
    'Content-Length': String(length),
    'Content-Disposition': contentDisposition(authorized.filename),
    'Accept-Ranges': 'bytes',
    ETag: etag,
    'X-Checksum-SHA256': authorized.sha256,
    'Repr-Digest': `sha-256=:${Buffer.from(authorized.sha256, 'hex').toString('base64')}:`,
    'Last-Modified': lastModified.toUTCString(),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  if (!body) {
    res.end();
    return;
  }
  metrics.downloadRelays.inc();
  try {
    await body.relayTo(res, length, (bytes) => metrics.downloadBytes.inc(bytes));
    res.end();
  } catch {
    // Mid-file (the client went away, or the store stopped): the connection is cut, so the
    // client sees a short body and resumes with Range.
    res.destroy();
    body.destroy();
  } finally {
    metrics.downloadRelays.dec();
  }
}

/** Reporting a refusal to the download log may delay the client's error answer this much. */
const LOG_REPORT_TIMEOUT_MS = 1000;
/** Reports in flight at once; beyond this (a flood of refused requests) they are dropped. */
const MAX_LOG_REPORTS_IN_FLIGHT = 64;

/**
 * Where a download request stands, for the refusal report below: still in the gateway, decided
 * by the download service (which logs its own refusals), or relaying an authorised download
 * (logged as served, under `logId`).
 */
type DownloadStage =
  { stage: 'gateway' } | { stage: 'decided' } | { stage: 'relaying'; logId: string | null };

function stageOf(res: Response): DownloadStage {
  const stage = res.locals.download as DownloadStage | undefined;
  return stage ?? { stage: 'gateway' };
}

/** The error code the client gets for `error` (libs/http maps the rest to INTERNAL_ERROR). */
function refusalReason(error: unknown): string {
  if (error instanceof LicensingError) return error.code;
  if (error instanceof URIError) return 'INVALID_REQUEST';
  return 'INTERNAL_ERROR';
}

/**
 * The request as sent, for the log of a request the gateway refused: read leniently (the strict
 * parser may just have refused it), the first value of each field, cut to 255 characters
 * (`logValue`). A path that names no valid product id logs null.
 */
function sentRequest(req: Request): Omit<LogRefusalRequest, 'entry_id' | 'reason'> {
  const question = req.originalUrl.indexOf('?');
  const query = new URLSearchParams(question === -1 ? '' : req.originalUrl.slice(question + 1));
  // The path below the downloads prefix, `/<product_id>`: route parameters are not set here.
  const productId = IdText.safeParse(req.path.split('/')[1] ?? '');
  return {
    product_id: productId.success ? productId.data : null,
    license_key: logValue(query.get('license_key') || query.get('dlid')),
    identifier: logValue(query.get('identifier')),
    ip: clientIp(req),
  };
}

/**
 * Spec 4.5: every refusal is in the download log with its reason. `download.authorize` logs the
 * ones it decides; this error handler, mounted on the downloads prefix, reports the others to
 * the download service: those of the gateway itself (the per-IP rate limit, a malformed path or
 * query), and a download that was authorised (logged as served) but failed before its first byte
 * reached the client.
 */
export function reportDownloadRefusals(transport: Transport, logger: Logger) {
  let reportsInFlight = 0;
  return async (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const stage = stageOf(res);
    // Not reported: a failure mid-file (the connection is cut; the file was served, partly), a
    // refusal decided by download.authorize (the download service logged it), and a client
    // that went away before the answer (nothing was refused to anyone).
    const clientGone = req.socket.destroyed;
    if (!res.headersSent && !clientGone && stage.stage !== 'decided') {
      if (reportsInFlight >= MAX_LOG_REPORTS_IN_FLIGHT) {
        logger.warn('too many download refusals at once: one is not logged');
      } else {
        reportsInFlight++;
        const reason = refusalReason(error);
        const report: LogRefusalRequest = {
          ...sentRequest(req),
          // An authorised download was logged as served: that entry becomes the refusal.
          entry_id: stage.stage === 'relaying' ? stage.logId : null,
          reason,
        };
        try {
          await transport.call('download.logRefusal', report, {
            timeoutMs: LOG_REPORT_TIMEOUT_MS,
          });
        } catch (failure) {
          // Logging is best-effort: the client still gets its answer.
          logger.warn({ err: failure, reason }, 'a download refusal could not be logged');
        } finally {
          reportsInFlight--;
        }
      }
    }
    next(error);
  };
}

const header = (description: string, schema: z.ZodType = z.string()) =>
  schema.meta({ description });

/** Headers of a served file (docs/api-decisions.md, Downloads). */
const fileHeaders = {
  'Content-Length': header('Bytes in this response.', z.string().regex(/^[0-9]+$/)),
  'Content-Disposition': header(
    'attachment; filename="..." (with filename* in UTF-8 for other characters).',
  ),
  ETag: header('The SHA-256 of the whole file in hex, quoted. Send it as If-Range to resume.'),
  'X-Checksum-SHA256': header(
    'The SHA-256 of the whole file, hex.',
    z.string().regex(/^[0-9a-f]{64}$/),
  ),
  'Repr-Digest': header('RFC 9530: sha-256=:<base64>: of the whole file.'),
  'Accept-Ranges': header('bytes', z.literal('bytes')),
};

/**
 * Spec 4.5: `GET {api_base}/downloads/{product_id}`. The license key comes as `dlid` (CMS
 * updaters) or `license_key`, the identifier as `identifier`. The download service decides over
 * RPC and logs the outcome; the bytes then come from its HTTP port through here, so the client
 * gets a 200 (or 206) with the file, or a JSON error, from the one public address.
 */
export const downloadRoute: Route<GatewayDeps> = defineRoute({
  method: 'get',
  path: `${API_BASE}/downloads/:product_id`,
  operationId: 'download',
  summary:
    "The package file of the product's latest version, as the Download API Access setting " +
    'allows (spec 4.5). Refusals are JSON errors and are logged with the reason.',
  tag: 'Downloads',
  access: 'public',
  params: ProductPath,
  query: DownloadQuery,
  headers: DownloadHeaders,
  success: {
    200: { description: 'The whole file.', file: true, headers: z.object(fileHeaders) },
    206: {
      description: 'The requested byte range of the file.',
      file: true,
      headers: z.object({ ...fileHeaders, 'Content-Range': header('bytes start-end/size') }),
    },
    302: {
      description:
        'DOWNLOAD_DELIVERY=redirect: the file is read from the object store at Location, a URL ' +
        'for this one file valid 60 seconds (Range works there too).',
      empty: true,
      headers: z.object({ Location: header('The presigned URL of the file in the object store.') }),
    },
  },
  errors: {
    400: {
      codes: ['INVALID_REQUEST'],
      description:
        'A bad product id or query string (a repeated or bracketed field, a value over 255 ' +
        'characters, two different keys, a blank key).',
    },
    403: {
      codes: [
        'LICENSE_INVALID',
        'PRODUCT_MISMATCH',
        'LICENSE_EXPIRED',
        'ACTIVATION_REQUIRED',
        'DOWNLOAD_NOT_AVAILABLE',
      ],
      description:
        'No key, an unknown key or a license that is not active (LICENSE_INVALID); a key for ' +
        'another product; an expired license; an identifier needed and not sent; Account only.',
    },
    404: {
      codes: ['NOT_FOUND', 'ACTIVATION_NOT_FOUND'],
      description:
        'No such product, no file for the caller, or its file missing from storage ' +
        '(NOT_FOUND); the identifier sent is not activated (ACTIVATION_NOT_FOUND).',
    },
    416: {
      codes: ['RANGE_NOT_SATISFIABLE'],
      description: 'The range starts at or after the end of the file.',
      headers: z.object({ 'Content-Range': header('bytes */size') }),
    },
    429: publicErrors.rateLimited('Too many downloads from this address.'),
    500: publicErrors.internal,
  },
  before: ({ rateLimits }) => [rateLimits.downloads],
  handle: async ({ params, query, headers }, { transport, downloadDelivery }, req, res) => {
    res.locals.download = { stage: 'decided' } satisfies DownloadStage;
    const authorized = await transport.call('download.authorize', {
      product_id: params.product_id,
      ...query,
      ip: clientIp(req),
      delivery: downloadDelivery,
      method: req.method === 'HEAD' ? 'HEAD' : 'GET',
    });
    res.locals.download = {
      stage: 'relaying',
      logId: authorized.log_id,
    } satisfies DownloadStage;
    if (downloadDelivery === 'redirect') {
      // The client reads the object from the store itself, Range and all (docs/api-decisions.md).
      res.set({ 'Cache-Control': 'no-store', Location: authorized.url });
      res.status(302).end();
      return;
    }
    await relay(req, res, authorized, headers);
  },
});
