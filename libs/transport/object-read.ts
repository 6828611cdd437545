import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/**
 * One GET of an object from the object store on a presigned URL, for the gateway to relay
 * (docs/performance.md, Downloads). The answer's head is read here and its body is the socket
 * itself (`Connection: close`, a `Content-Length` answer): Node's HTTP client copies every body
 * chunk into a new buffer, which for package files doubled the gateway's allocations and its
 * garbage collection. Only for the object store, which answers a GET with a length.
 */

/** The head of an answer is small; more than this is not an object store's answer. */
const MAX_HEAD_BYTES = 64 * 1024;

export interface ObjectAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  /** The body: exactly `content-length` bytes, then the end (or an error). */
  body: Socket;
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
  const socket: Socket = tls
    ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }) })
    : tcpConnect({ host, port });
  socket.setNoDelay(true);
  socket.setTimeout(options.idleTimeoutMs, () => {
    socket.destroy(new Error('The object store did not answer in time.'));
  });
  const request = [
    `GET ${target.pathname}${target.search} HTTP/1.1`,
    `Host: ${target.host}`,
    'Connection: close',
    ...Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  socket.write(request);

  const answer = new Promise<ObjectAnswer>((resolve, reject) => {
    let head: Buffer = Buffer.alloc(0);
    const fail = (error: Error) => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onError = (error: Error) => fail(error);
    const onClose = () => fail(new Error('The object store closed the connection early.'));
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES) fail(new Error('The object store answer is malformed.'));
        return;
      }
      const parsed = parseHead(head.subarray(0, end).toString('latin1'));
      if (!parsed) return fail(new Error('The object store answer is malformed.'));
      cleanup();
      socket.pause();
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve({ ...parsed, body: socket });
    };
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
  });
  return { answer, cancel: () => socket.destroy() };
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
