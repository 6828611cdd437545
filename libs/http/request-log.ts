import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logging/index.js';

/** A request id a client may choose: short, and harmless in a header or a log line. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The route template a request matched (`/admin/v1/licenses/:key`), never the path itself: paths
 * may carry license keys. Route tables record it (`mountRoutes`); a route of an app's own
 * (`app.get`) is named by Express. Null for a request no route took.
 */
export function routeTemplate(req: Request, res: Response): string | null {
  if (typeof res.locals.routeTemplate === 'string') return res.locals.routeTemplate;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && req.baseUrl === '' ? path : null;
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
