import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logging/index.js';
import {
  activeTraceId,
  isRequestId,
  metrics,
  runWithRequest,
  secondsSince,
} from '../observability/index.js';

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
 * Each request: its id (the client's `X-Request-Id` when it sent a usable one, else its trace id
 * when traced, else a new one), returned as `X-Request-Id` so a client can quote it, and set as
 * the request context, so every log line it causes in any service names it. Then one line per
 * request at `info` (method, route template, status, duration, request id) and its metrics,
 * written when the response ends or when the connection closes before it did (`aborted`).
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const sent = req.get('x-request-id');
    const id = isRequestId(sent) ? sent : (activeTraceId() ?? randomUUID());
    res.locals.requestId = id;
    res.set('X-Request-Id', id);
    res.once('close', () => {
      const seconds = secondsSince(started);
      const route = routeTemplate(req, res);
      const status = res.statusCode;
      const labels = { method: req.method, route: route ?? '(no route)', status: String(status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      // The line is built only where it is written (LOG_LEVEL=info or finer).
      if (!logger.isLevelEnabled('info')) return;
      logger.info(
        {
          method: req.method,
          route,
          status,
          // Milliseconds to the microsecond, from the same reading as the metric.
          duration_ms: Math.round(seconds * 1e6) / 1000,
          request_id: id,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    });
    runWithRequest(id, next);
  };
}
