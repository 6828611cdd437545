import type { ErrorRequestHandler, Express, RequestHandler, Response } from 'express';
import { LicensingError, internalError } from '../contracts/index.js';
import type { Logger } from '../logging/index.js';
import { requestId, requestLog, routeTemplate } from './request-log.js';

/**
 * The HTTP edge shared by the gateway and the management API: the spec's envelopes
 * (`{"data": ...}` and `{"error": {"code", "message"}}`) and the one place where errors become
 * responses. Nothing ever answers with an HTML page or a stack trace.
 */
export function sendData(res: Response, data: unknown, status = 200): void {
  res.status(status).json({ data });
}

export function sendError(res: Response, error: LicensingError): void {
  res.status(error.status).json(error.toBody());
}

export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new LicensingError('NOT_FOUND', `There is no ${req.method} ${req.path}.`));
};

/**
 * Client errors raised inside Express rather than by our code: the router's URIError for a path
 * that is not valid percent-encoding, and any other error that carries a 4xx status.
 */
function fromExpressError(error: unknown): LicensingError | undefined {
  if (error instanceof URIError) {
    return new LicensingError('INVALID_REQUEST', 'The URL path is not valid percent-encoding.');
  }
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new LicensingError('INVALID_REQUEST', 'The request could not be read.');
  }
  return undefined;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    let licensingError = error instanceof LicensingError ? error : fromExpressError(error);
    if (!licensingError) {
      logger.error(
        {
          err: error,
          method: req.method,
          route: routeTemplate(req, res),
          request_id: requestId(res),
        },
        'request failed',
      );
      licensingError = internalError();
    }
    sendError(res, licensingError);
  };
}

/** Common set-up of every Express app: hardening and the request log. */
export function configureApp(
  app: Express,
  trustProxy: boolean | number | string,
  logger: Logger,
): void {
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.set('etag', false);
  app.use(requestLog(logger));
}

export * from './input/body.js';
export * from './server.js';
export { requestId, routeTemplate } from './request-log.js';
export * from './routes/route.js';
export * from './routes/define-route.js';
export * from './routes/mount-routes.js';
export * from './api-reference/openapi-document.js';
export * from './api-reference/reference-pages.js';
export * from './page-security.js';
export * from './input/validation.js';
export * from './input/form.js';
export * from './routes/health-routes.js';
export * from './no-store.js';
export * from './signed-answers.js';
export * from './file-answers.js';
export * from './csv/csv.js';
