import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ErrorRequestHandler, Express, RequestHandler, Response } from 'express';
import { LicensingError, internalError } from '../contracts/index.js';
import type { Logger } from '../logging/index.js';

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
 * Client errors raised inside Express rather than by our code: body-parser errors (they carry a
 * `type`, or only a 4xx `status`, as for a body that cannot be decompressed) and the router's
 * URIError for a path that is not valid percent-encoding.
 */
function fromExpressError(error: unknown): LicensingError | undefined {
  if (error instanceof URIError) {
    return new LicensingError('INVALID_REQUEST', 'The URL path is not valid percent-encoding.');
  }
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status } = error as { type?: unknown; status?: unknown };
  switch (type) {
    case 'entity.too.large':
      return new LicensingError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
    case 'entity.parse.failed':
      return new LicensingError('INVALID_REQUEST', 'The request body is not valid JSON.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new LicensingError(
        'UNSUPPORTED_MEDIA_TYPE',
        'The request body encoding is not supported.',
      );
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new LicensingError('INVALID_REQUEST', 'The request body could not be read.');
  }
  return undefined;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    let licensingError = error instanceof LicensingError ? error : fromExpressError(error);
    if (!licensingError) {
      logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
      licensingError = internalError();
    }
    sendError(res, licensingError);
  };
}

/** Common hardening of both Express apps. */
export function configureApp(app: Express, trustProxy: boolean | number | string): void {
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.set('etag', false);
}

export interface Listening {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export interface ListenOptions {
  /**
   * Time allowed to receive a whole request (default 30 s). Servers that accept package uploads
   * need longer; an idle connection is still closed after `idleTimeoutMs`.
   */
  requestTimeoutMs?: number;
  /** Closes a connection on which nothing moved for this long (default: never). */
  idleTimeoutMs?: number;
}

/** Starts listening; port 0 picks a free port. The URL names the address actually bound. */
export function listen(
  app: Express,
  port: number,
  host: string,
  options: ListenOptions = {},
): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => {
      if (error) return reject(error);
      const address = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
    // Slow clients cannot hold a connection open forever.
    server.requestTimeout = options.requestTimeoutMs ?? 30_000;
    server.headersTimeout = 10_000;
    if (options.idleTimeoutMs !== undefined) server.timeout = options.idleTimeoutMs;
    server.on('error', reject);
  });
}
