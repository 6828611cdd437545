import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { LicensingError, isErrorCode } from '../contracts/index.js';

/**
 * The client of the download service's byte port (docs/architecture.md): package bytes travel
 * over HTTP on short-lived links the download service signed, never over the message bus. The
 * management API writes uploads to it and reads its answers here.
 */

/** Connecting, waiting for an answer, or a stall mid-transfer: none may take longer than this. */
export const BYTE_PORT_IDLE_TIMEOUT_MS = 120_000;
/** Its answers other than a file are small JSON envelopes. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends one request to a byte-port link and resolves with the answer as it starts (status and
 * headers; the body still to read). `body` is streamed, chunked; the request is cut when
 * `signal` aborts. A link that cannot be reached, or that stalls, rejects.
 */
export function openBytePort(options: {
  url: string;
  method: 'GET' | 'HEAD' | 'PUT';
  headers?: OutgoingHttpHeaders;
  body?: Readable;
  signal?: AbortSignal;
  idleTimeoutMs?: number;
}): { answer: Promise<IncomingMessage>; cancel(): void } {
  const target = new URL(options.url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const request = send(target, {
    method: options.method,
    headers: {
      ...options.headers,
      ...(options.body ? { 'transfer-encoding': 'chunked' } : {}),
    },
    timeout: options.idleTimeoutMs ?? BYTE_PORT_IDLE_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  request.on('timeout', () => {
    request.destroy(new Error('The download service did not answer in time.'));
  });
  const answer = new Promise<IncomingMessage>((resolve, reject) => {
    request.on('response', resolve);
    request.on('error', reject);
  });
  if (options.body) options.body.pipe(request);
  else request.end();
  return { answer, cancel: () => request.destroy() };
}

/** The answer's body as JSON (undefined when it is not JSON), read up to a small limit. */
export async function readBytePortJson(incoming: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) throw new Error('The download service answer is too large.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The refusal a byte-port answer carries, as the LicensingError its envelope names, so its code
 * and status reach the caller (a file over the upload limit, a failure of storage). An answer
 * without an envelope, or a refused link (which only this system's own fault can cause), is a
 * plain Error: an internal failure.
 */
export async function bytePortRefusal(incoming: IncomingMessage): Promise<Error> {
  const status = incoming.statusCode ?? 502;
  const body = await readBytePortJson(incoming);
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (!isErrorCode(error?.code) || typeof error.message !== 'string') {
    return new Error(`The download service answered HTTP ${status} without an error.`);
  }
  if (error.code === 'UNAUTHORIZED') {
    return new Error('The download service refused the link it had signed.');
  }
  return new LicensingError(error.code, error.message, { status });
}
