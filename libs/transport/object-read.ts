import { connect as tcpConnect, isIP, type OnReadOpts, type Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

/**
 * One GET of an object from the object store on a presigned URL, for the gateway to relay
 * (docs/performance.md, Downloads). The answer's head is read here and its body is written by
 * `relayTo` straight from the socket's reads (`Connection: close`, a `Content-Length` answer).
 * Node's HTTP client, and a socket's own reads, put every chunk of at most 64 KB into a newly
 * allocated buffer: at package sizes that was most of the relay's cost (allocations, page
 * faults, garbage collection and one write per 64 KB). Here the socket reads into large buffers
 * of a pool shared by every relay, each handed to the client's write as it is and taken back
 * when that write is done. Only for the object store, which answers a GET with a length.
 */

/** The head of an answer is small; more than this is not an object store's answer. */
const MAX_HEAD_BYTES = 64 * 1024;
/** The size of one socket read. */
const READ_BYTES = 256 * 1024;
/**
 * Reads handed to the client's writes and not yet written, per relay: with the buffer the next
 * read goes into, a relay holds at most this many plus one buffers (1 MB).
 */
const MAX_WRITES_IN_FLIGHT = 3;
/** Free buffers kept for the next relays (16 MB); the others are left to the collector. */
const MAX_SPARE_BUFFERS = 64;

const spare: Buffer[] = [];
const takeBuffer = (): Buffer => spare.pop() ?? Buffer.allocUnsafeSlow(READ_BYTES);
const giveBack = (buffer: Buffer): void => {
  if (spare.length < MAX_SPARE_BUFFERS) spare.push(buffer);
};

export interface ObjectBody {
  /**
   * Writes the body's first `length` bytes to `destination` (not ended here) with backpressure,
   * calling `onChunk` with each part's size; resolves once all were written, then closes the
   * store's connection. Rejects when the store stops early or fails, or the destination closes.
   */
  relayTo(destination: Writable, length: number, onChunk?: (bytes: number) => void): Promise<void>;
  /** Closes the store's connection without reading the body. */
  destroy(): void;
}

export interface ObjectAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: ObjectBody;
}

/** Sends the GET; `answer` resolves with the head read, the body still to read. */
export function readObject(options: {
  url: string;
  headers?: Record<string, string>;
  /** Connecting, waiting for the answer, or a stall mid-body: none may take longer. */
  idleTimeoutMs: number;
}): { answer: Promise<ObjectAnswer>; cancel(): void } {
  const target = new URL(options.url);
  const tls = target.protocol === 'https:';
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = target.port ? Number(target.port) : tls ? 443 : 80;

  /** The buffer the socket reads into next; never one a write still holds. */
  let readBuffer: Buffer | null = null;
  /** The buffer of the last read, when nothing of it is kept: the next read reuses it. */
  let reusable: Buffer | null = null;
  let head: Buffer | null = Buffer.alloc(0);
  /** Body bytes read with the head, before `relayTo` was called. */
  let early: { buffer: Buffer; start: number; end: number } | null = null;
  let relaying: ((chunk: Buffer, buffer: Buffer) => boolean) | null = null;
  /** Reading waits for `relayTo`, for the destination to drain, or for writes to finish. */
  let held = false;
  let onHeadRead: ((error: Error | null) => void) | null = null;

  const onRead = (bytes: number, buffer: Buffer): boolean => {
    reusable = buffer;
    if (head !== null) {
      head = Buffer.concat([head, buffer.subarray(0, bytes)]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES) {
          onHeadRead?.(new Error('The object store answer is malformed.'));
        }
        return true;
      }
      const bodyBytes = head.length - end - 4;
      if (bodyBytes > 0) {
        early = { buffer, start: bytes - bodyBytes, end: bytes };
        reusable = null;
      }
      const text = head.subarray(0, end).toString('latin1');
      head = null;
      parsedHead = parseHead(text);
      held = true;
      onHeadRead?.(parsedHead ? null : new Error('The object store answer is malformed.'));
      return false;
    }
    if (relaying === null) return false;
    reusable = null;
    return relaying(buffer.subarray(0, bytes), buffer);
  };

  const onread: OnReadOpts = {
    buffer: () => {
      readBuffer = reusable ?? takeBuffer();
      reusable = null;
      return readBuffer;
    },
    callback: onRead,
  };
  let parsedHead: { status: number; headers: Record<string, string> } | null = null;
  // TLS sockets take `onread` as plain ones do (Node's tls.connect passes it on); its types
  // leave it out.
  const tlsOptions: ConnectionOptions & { onread: OnReadOpts } = {
    host,
    port,
    onread,
    ...(isIP(host) ? {} : { servername: host }),
  };
  const socket: Socket = tls ? tlsConnect(tlsOptions) : tcpConnect({ host, port, onread });
  /** Why the connection ended, when it failed: a relay that starts after it says so. */
  let failure: Error | null = null;
  socket.on('error', (error) => {
    failure = error;
  });
  socket.setNoDelay(true);
  socket.setTimeout(options.idleTimeoutMs, () => {
    socket.destroy(new Error('The object store did not answer in time.'));
  });
  // Flowing from the start: reads go to `onRead`, and the end of the answer is seen.
  socket.resume();
  socket.write(
    [
      `GET ${target.pathname}${target.search} HTTP/1.1`,
      `Host: ${target.host}`,
      'Connection: close',
      ...Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
      '',
      '',
    ].join('\r\n'),
  );

  const release = () => {
    if (socket.destroyed) return;
    socket.destroy();
  };
  socket.once('close', () => {
    // The buffer of the next read is free again once no read can come.
    if (readBuffer) giveBack(readBuffer);
    readBuffer = null;
  });

  const body: ObjectBody = {
    destroy: release,
    relayTo: (destination, length, onChunk) =>
      new Promise<void>((resolve, reject) => {
        let written = 0;
        let inFlight = 0;
        let draining = false;
        let settled = false;
        const settle = (error: Error | null) => {
          if (settled) return;
          settled = true;
          socket.off('close', onSourceClose);
          socket.off('error', onSourceError);
          destination.off('close', onDestinationClose);
          release();
          if (error) reject(error);
          else resolve();
        };
        const onSourceError = (error: Error) => settle(error);
        const onSourceClose = () =>
          settle(new Error('The object store closed the connection early.'));
        const onDestinationClose = () => settle(new Error('The client closed the connection.'));
        const mayRead = () =>
          !draining && inFlight < MAX_WRITES_IN_FLIGHT && written < length && !settled;
        const resumeIfFree = () => {
          if (held && mayRead()) {
            held = false;
            socket.resume();
          }
        };
        const write = (chunk: Buffer, buffer: Buffer): boolean => {
          const part =
            chunk.length > length - written ? chunk.subarray(0, length - written) : chunk;
          written += part.length;
          inFlight++;
          onChunk?.(part.length);
          const more = destination.write(part, () => {
            inFlight--;
            giveBack(buffer);
            if (written === length && inFlight === 0) settle(null);
            else resumeIfFree();
          });
          if (!more) {
            draining = true;
            destination.once('drain', () => {
              draining = false;
              resumeIfFree();
            });
          }
          // The store may send more than the range asked (s3rver reads `bytes=0-0` as
          // `bytes=0-`): once `length` bytes are written, the rest is not read.
          if (written === length) socket.off('close', onSourceClose);
          if (mayRead()) return true;
          held = true;
          return false;
        };
        if (length === 0) return settle(null);
        destination.on('close', onDestinationClose);
        relaying = write;
        if (early) {
          const { buffer, start, end } = early;
          early = null;
          write(buffer.subarray(start, end), buffer);
        }
        if (written < length) {
          if (socket.destroyed) {
            return settle(failure ?? new Error('The object store closed the connection early.'));
          }
          socket.on('close', onSourceClose);
          socket.on('error', onSourceError);
        }
        resumeIfFree();
      }),
  };

  const answer = new Promise<ObjectAnswer>((resolve, reject) => {
    const cleanup = () => {
      socket.off('error', fail);
      socket.off('close', onClose);
      onHeadRead = null;
    };
    function fail(error: Error) {
      cleanup();
      release();
      reject(error);
    }
    const onClose = () => fail(new Error('The object store closed the connection early.'));
    onHeadRead = (error) => {
      if (error) return fail(error);
      cleanup();
      resolve({ ...parsedHead!, body });
    };
    socket.on('error', fail);
    socket.on('close', onClose);
  });
  return { answer, cancel: release };
}

/** The status and headers of an answer's head; null when it is not HTTP/1.x. */
export function parseHead(
  text: string,
): { status: number; headers: Record<string, string> } | null {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!match) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(match[1]), headers };
}
