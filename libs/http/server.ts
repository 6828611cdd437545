import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { LicensingError } from '../contracts/index.js';

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
/** After refusing a request, the rest of what the client sends is read off for this long. */
const LINGER_MS = 2000;

/** Starts listening; port 0 picks a free port. The URL names the address actually bound. */
export function listen(
  app: Express,
  port: number,
  host: string,
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
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnect);
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
function answerOnSocket(socket: Duplex, error: LicensingError): void {
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  // Closing at once with unread input would reset the connection, and the client could lose
  // the answer: what it still sends is read off for a moment first.
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
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
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  answerOnSocket(socket, clientErrorAnswer(error.code));
}

/** CONNECT asks for a tunnel, which no route of this system offers. */
function refuseConnect(req: IncomingMessage, socket: Duplex): void {
  answerOnSocket(
    socket,
    new LicensingError('NOT_FOUND', `There is no ${req.method ?? 'CONNECT'} ${req.url ?? ''}.`),
  );
}
