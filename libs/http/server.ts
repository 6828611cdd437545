import { randomUUID } from 'node:crypto';
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { LicensingError } from '../contracts/index.js';
import type { Logger } from '../logging/index.js';
import { metrics, secondsSince } from '../observability/index.js';
import { closeLingering, isLingering } from './lingering-close.js';

export interface Listening {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export interface ListenOptions {
  /**
   * Time allowed to receive a whole request, headers and body (default 30 s); slower requests
   * get 408. Servers that accept package uploads need longer: an idle connection is still closed
   * after `idleTimeoutMs`, and JSON bodies have their own limit (`readBody`).
   */
  requestTimeoutMs?: number;
  /** Time allowed for the request line and headers (default 10 s, at most `requestTimeoutMs`). */
  headersTimeoutMs?: number;
  /** Closes a connection on which nothing moved for this long (default: never). */
  idleTimeoutMs?: number;
  /** On stop, how long requests in flight may take to finish (default 10 s). */
  stopGraceMs?: number;
}

/** Time allowed for the request line and headers, unless set. */
const HEADERS_TIMEOUT_MS = 10_000;
/**
 * How often Node checks requests against their timeouts (its default, 30 s, made a 10 s limit
 * answer after up to 40 s).
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;
/** On stop, requests in flight are given this long to finish. */
const STOP_GRACE_MS = 10_000;

/** Refused requests logged per second and process; the rest are counted in one line. */
const REFUSALS_LOGGED_PER_SECOND = 10;

/**
 * The request log's line for requests Node's parser refuses (they never reach Express and its
 * `requestLog`): the same fields, `route` null. A flood of them (a scan, a slowloris) must not
 * flood the log, so at most `perSecond` lines a second are written; the others of that second
 * are counted in one `refused requests not logged` line when it ends.
 */
export class RefusedRequestLog {
  private windowStart = -Infinity;
  private written = 0;
  private skipped = 0;
  private summary: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly perSecond = REFUSALS_LOGGED_PER_SECOND,
    private readonly now: () => number = () => performance.now(),
  ) {}

  write(
    logger: Logger,
    line: { method: string | null; status: number; duration_ms: number; request_id: string },
  ): void {
    const now = this.now();
    if (now - this.windowStart >= 1000) {
      this.flush(logger);
      this.windowStart = now;
      this.written = 0;
    }
    if (this.written < this.perSecond) {
      this.written++;
      logger.info({ ...line, route: null }, 'request');
      return;
    }
    this.skipped++;
    if (!this.summary) {
      this.summary = setTimeout(() => this.flush(logger), 1000);
      this.summary.unref();
    }
  }

  /** Writes the count of the lines left out, if any. */
  flush(logger: Logger): void {
    if (this.summary) clearTimeout(this.summary);
    this.summary = null;
    if (this.skipped === 0) return;
    logger.warn({ not_logged: this.skipped }, 'refused requests not logged');
    this.skipped = 0;
  }
}

/** One per process: the bound holds for all of its servers together. */
const refusedRequests = new RefusedRequestLog();

/**
 * Starts listening; port 0 picks a free port. The URL names the address actually bound.
 * `logger` gets the request line of each request Node's parser refuses.
 */
export function listen(
  app: Express,
  port: number,
  host: string,
  logger: Logger,
  options: ListenOptions = {},
): Promise<Listening> {
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout),
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    app,
  );
  if (options.idleTimeoutMs !== undefined) server.timeout = options.idleTimeoutMs;
  // When the request now being read began: a refused one's duration counts from there.
  const readingSince = new WeakMap<Duplex, bigint>();
  server.on('connection', (socket: Duplex) => readingSince.set(socket, process.hrtime.bigint()));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    res.once('finish', () => readingSince.set(socket, process.hrtime.bigint()));
  });
  const refused = (socket: Duplex, method: string | null, error: LicensingError) => {
    const id = randomUUID();
    const seconds = secondsSince(readingSince.get(socket) ?? process.hrtime.bigint());
    const labels = {
      method: method ?? '(unknown)',
      route: '(no route)',
      status: String(error.status),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, seconds);
    refusedRequests.write(logger, {
      method,
      status: error.status,
      duration_ms: Math.round(seconds * 1e6) / 1000,
      request_id: id,
    });
    answerOnSocket(socket, error, id);
  };
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) =>
    answerClientError(error, socket, refused),
  );
  server.on('connect', (req: IncomingMessage, socket: Duplex) =>
    refused(
      socket,
      req.method ?? 'CONNECT',
      // CONNECT asks for a tunnel, which no route of this system offers.
      new LicensingError('NOT_FOUND', `There is no ${req.method ?? 'CONNECT'} ${req.url ?? ''}.`),
    ),
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            // No new connection; idle ones close now, busy ones once their answer is sent.
            server.close(() => {
              clearTimeout(cut);
              done();
            });
            server.closeIdleConnections();
            // What is still running after the grace period (a long download) is cut: its
            // client resumes with Range.
            const cut = setTimeout(
              () => server.closeAllConnections(),
              options.stopGraceMs ?? STOP_GRACE_MS,
            );
            cut.unref();
          }),
      });
    });
  });
}

/** Writes one whole response on a raw socket and closes it once the client has had it. */
function answerOnSocket(socket: Duplex, error: LicensingError, requestId: string): void {
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `X-Request-Id: ${requestId}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  closeLingering(socket);
}

/** The answer, in the spec's error envelope, to a request Node's HTTP parser refused. */
function clientErrorAnswer(code: string | undefined): LicensingError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new LicensingError('REQUEST_HEADERS_TOO_LARGE', 'The request headers are too large.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new LicensingError('PAYLOAD_TOO_LARGE', 'The chunk extensions are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new LicensingError('REQUEST_TIMEOUT', 'The request did not arrive in time.');
    default:
      return new LicensingError('INVALID_REQUEST', 'The request is not valid HTTP/1.1.');
  }
}

/**
 * Requests that never reach Express: a garbage request line, oversized headers, a request that
 * arrives too slowly. Node would answer them with a bare status and an empty body; they get the
 * spec's error envelope instead. Nothing is written once a response has started on the
 * connection, or when the connection is already gone.
 */
function answerClientError(
  error: Error & { code?: string },
  socket: Duplex,
  refused: (socket: Duplex, method: string | null, error: LicensingError) => void,
): void {
  // Once answered, the rest of the request is only read off until the connection closes.
  if (error.code !== 'ECONNRESET' && isLingering(socket)) return;
  const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const answer = clientErrorAnswer(error.code);
  if (inFlight) {
    // A request Express has (its body came too slowly): Express's request line reports it, with
    // the status the client gets.
    inFlight.statusCode = answer.status;
    const id = inFlight.getHeader('x-request-id');
    answerOnSocket(socket, answer, typeof id === 'string' ? id : randomUUID());
    return;
  }
  refused(socket, null, answer);
}
