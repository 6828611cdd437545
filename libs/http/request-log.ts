import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logging/index.js';

/** A request id a client may choose: short, and harmless in a header or a log line. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Records where a router is mounted, so the log can name a request's route template even after
 * Express has left the router (an error answered by the app's error handler).
 */
export const routeBase: RequestHandler = (req, res, next) => {
  res.locals.routeBase = req.baseUrl;
  next();
};

/**
 * The route template a request matched (`/admin/v1/licenses/:license_key`), never the path
 * itself: paths may carry license keys. Null for a request no route took.
 */
export function routeTemplate(req: Request, res: Response): string | null {
  const base = typeof res.locals.routeBase === 'string' ? res.locals.routeBase : '';
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return `${base}${path === '/' && base !== '' ? '' : path}`;
  return base === '' ? null : `${base}/*`;
}

/** The id of the request: the client's `X-Request-Id` when it sent a usable one. */
export function requestId(res: Response): string {
  return typeof res.locals.requestId === 'string' ? res.locals.requestId : '';
}

/**
 * One line per request at `info`: method, route template, status, duration and request id (also
 * returned as `X-Request-Id`, so a client can quote it). Written when the response ends, or when
 * the connection closes before it did (`aborted`).
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const sent = req.get('x-request-id');
    const id = sent !== undefined && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
    res.locals.requestId = id;
    res.set('X-Request-Id', id);
    res.once('close', () => {
      logger.info(
        {
          method: req.method,
          route: routeTemplate(req, res),
          status: res.statusCode,
          duration_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
          request_id: id,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    });
    next();
  };
}
