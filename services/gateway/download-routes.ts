import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { LicensingError, logValue, type LogRefusalRequest } from '../../libs/contracts/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { Form, parseProductId, productIdOrNull } from './form.js';
import type { RateLimits } from './rate-limits.js';
import { clientIp } from './routes.js';

/** Headers of a served file that reach the client unchanged (docs/api-decisions.md). */
const RELAYED_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'content-disposition',
  'accept-ranges',
  'etag',
  'last-modified',
  'x-checksum-sha256',
  'repr-digest',
  'cache-control',
] as const;

/** Connecting, waiting for an answer, or a stall mid-file: none may take longer than this. */
const UPSTREAM_IDLE_TIMEOUT_MS = 30_000;
/** Error answers of the download service are small JSON envelopes. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

function isEnvelope(value: unknown): value is { error: { code: string; message: string } } {
  const error = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

async function readJson(incoming: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ERROR_BODY_BYTES) throw new Error('The download service answer is too large.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Relays the file at `url` (the download service's short-lived link) to the client: streamed
 * with backpressure, `Range` and `If-Range` passed through, the upstream request cut when the
 * client goes away. A refusal of the download service is relayed as its JSON envelope.
 */
function relay(req: Request, res: Response, url: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const target = new URL(url);
    const headers: OutgoingHttpHeaders = { accept: '*/*' };
    for (const name of ['range', 'if-range'] as const) {
      const value = req.get(name);
      if (value !== undefined) headers[name] = value;
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = send(target, {
      method: req.method === 'HEAD' ? 'HEAD' : 'GET',
      headers,
      timeout: UPSTREAM_IDLE_TIMEOUT_MS,
    });
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error(String(error)));
    };

    upstream.on('timeout', () => {
      upstream.destroy(new Error('The download service did not answer in time.'));
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.on('error', (error) => {
      if (res.headersSent) {
        // Mid-file: cut the connection, so the client sees a short body and resumes.
        res.destroy();
        settle();
      } else {
        settle(error);
      }
    });
    upstream.on('response', (incoming) => {
      const status = incoming.statusCode ?? 502;
      if (status === 200 || status === 206) {
        res.status(status);
        for (const name of RELAYED_HEADERS) {
          const value = incoming.headers[name];
          if (value !== undefined) res.setHeader(name, value);
        }
        res.setHeader('X-Content-Type-Options', 'nosniff');
        pipeline(incoming, res).then(
          () => settle(),
          () => {
            res.destroy();
            upstream.destroy();
            settle();
          },
        );
        return;
      }
      readJson(incoming).then((body) => {
        if (!isEnvelope(body)) {
          settle(new Error(`The download service answered HTTP ${status} without an error.`));
          return;
        }
        // The download service refused the gateway's own link (expired, or signed under another
        // key): a fault of this system, not of the client's request.
        if (body.error.code === 'UNAUTHORIZED') {
          settle(new Error('The download service refused the download link.'));
          return;
        }
        const range = incoming.headers['content-range'];
        if (status === 416 && range !== undefined) res.setHeader('Content-Range', range);
        res.status(status).json(body);
        settle();
      }, settle);
    });
    upstream.end();
  });
}

/** Reporting a refusal to the download log may delay the client's error answer this much. */
const LOG_REPORT_TIMEOUT_MS = 1000;
/** Reports in flight at once; beyond this (a flood of refused requests) they are dropped. */
const MAX_LOG_REPORTS_IN_FLIGHT = 64;

/** Where a download request stands, for the refusal report of the error handler below. */
type DownloadStage =
  { stage: 'gateway' } | { stage: 'authorizing' } | { stage: 'relaying'; logId: string | null };

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
  // The router-relative path, `/<product_id>`: route parameters are not set in error handlers.
  const segment = req.path.split('/')[1] ?? '';
  return {
    product_id: productIdOrNull(segment),
    license_key: logValue(query.get('license_key') || query.get('dlid')),
    identifier: logValue(query.get('identifier')),
    ip: clientIp(req),
  };
}

/**
 * Spec 4.5: `GET {api_base}/downloads/{product_id}`. The license key comes as `dlid` (CMS
 * updaters) or `license_key`, the identifier as `identifier`. The download service decides over
 * RPC and logs the outcome; the bytes then come from its HTTP port through here, so the client
 * gets a 200 (or 206) with the file, or a JSON error, from the one public address.
 *
 * Every refusal is logged with its reason (spec 4.5). `download.authorize` logs the ones it
 * decides; the error handler of this router reports the others to the download service: those
 * of the gateway itself (the per-IP rate limit, a malformed query), and a download that was
 * authorised (logged as served) but failed before its first byte reached the client.
 */
export function downloadRoutes(transport: Transport, limits: RateLimits, logger: Logger): Router {
  const router = express.Router();
  let reportsInFlight = 0;

  router.get('/:product_id', limits.downloads, async (req, res) => {
    const param = req.params.product_id;
    const productId = parseProductId(typeof param === 'string' ? param : '');
    const query = Form.fromUrl(req.originalUrl);
    const licenseKey = query.optionalLicenseKey() ?? null;
    if (licenseKey !== null && licenseKey.trim() === '') {
      throw new LicensingError('INVALID_REQUEST', 'The license key must not be blank.');
    }
    const identifier = query.optional('identifier') ?? null;
    res.locals.download = { stage: 'authorizing' } satisfies DownloadStage;
    const authorized = await transport.call('download.authorize', {
      product_id: productId,
      license_key: licenseKey,
      identifier,
      ip: clientIp(req),
    });
    res.locals.download = { stage: 'relaying', logId: authorized.log_id } satisfies DownloadStage;
    await relay(req, res, authorized.url);
  });

  router.use(async (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const stage = stageOf(res);
    // Not reported: a failure mid-file (the connection is cut; the file was served, partly), a
    // refusal decided by download.authorize (the download service logged it), and a client
    // that went away before the answer (nothing was refused to anyone).
    const clientGone = req.socket.destroyed;
    if (!res.headersSent && !clientGone && stage.stage !== 'authorizing') {
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
  });
  return router;
}
