import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response, type Router } from 'express';
import type { Transport } from '../../libs/transport/index.js';
import { Form, parseProductId } from './form.js';
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
        const range = incoming.headers['content-range'];
        if (status === 416 && range !== undefined) res.setHeader('Content-Range', range);
        res.status(status).json(body);
        settle();
      }, settle);
    });
    upstream.end();
  });
}

/**
 * Spec 4.5: `GET {api_base}/downloads/{product_id}`. The license key comes as `dlid` (CMS
 * updaters) or `license_key`, the identifier as `identifier`. The download service decides over
 * RPC and logs the outcome; the bytes then come from its HTTP port through here, so the client
 * gets a 200 (or 206) with the file, or a JSON error, from the one public address.
 */
export function downloadRoutes(transport: Transport, limits: RateLimits): Router {
  const router = express.Router();
  router.get('/:product_id', limits.downloads, async (req, res) => {
    const param = req.params.product_id;
    const productId = parseProductId(typeof param === 'string' ? param : '');
    const query = Form.fromUrl(req.originalUrl);
    const authorized = await transport.call('download.authorize', {
      product_id: productId,
      license_key: query.optionalLicenseKey() ?? null,
      identifier: query.optional('identifier') ?? null,
      ip: clientIp(req),
    });
    await relay(req, res, authorized.url);
  });
  return router;
}
