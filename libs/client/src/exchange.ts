/**
 * One HTTP call of the JSON API and its result: the request (with a fresh nonce and the body's
 * digest when verifying), the answer read as a `LicensingResult`, and, with keys pinned, the
 * answer's signature checked before anything in it is believed.
 */
import { NONCE_HEADER, toBase64 } from '../../signatures/index.js';
import {
  connectionFailure,
  Deadline,
  interpret,
  interpretKeySet,
  isInvalidResponse,
} from './http.js';
import { signatureInvalid } from './verification/license-file.js';
import type { LicensingResult } from './result.js';
import type { SignedTime } from './store.js';
import {
  newNonce,
  requestContentDigest,
  verifyAnswer,
  type PinnedKeys,
} from './verification/verify.js';

/** What a call needs of its client. */
export interface Connection {
  readonly fetcher: typeof fetch;
  readonly headers: Record<string, string>;
  readonly pinned: Promise<PinnedKeys> | null;
  /** Milliseconds. */
  readonly timeout: number;
  /** Milliseconds. */
  readonly clockTolerance: number;
  readonly signedTime: SignedTime;
  readonly now: () => number;
}

export type Fields = Record<string, string | number | null | undefined>;

/** One HTTP call of the JSON API. */
export interface Operation {
  method: 'GET' | 'POST';
  url: string;
  body?: string;
  /** Safe to repeat: retried after transient failures, shared in flight, negative-cached. */
  repeatable: boolean;
  /** The server signs the answer: verified when keys are pinned. */
  signed: boolean;
  /** The answer is a JWK Set, not an envelope. */
  keySet?: boolean;
}

/** The answer a verification accepted, kept for the offline grace and checked again there. */
export interface SignedAnswer {
  method: string;
  url: string;
  nonce: string;
  /** The `Content-Digest` of the request's body, which the signature covers; null without one. */
  requestDigest: string | null;
  status: number;
  headers: Record<string, string>;
  /** Base64 of the body's bytes. */
  body: string;
}

/** When an answer came: by the client's clock, and by the server's when it said. */
export interface AnswerTime {
  /** The client's clock (`now`) when the answer was read, in ms. */
  received: number;
  /**
   * The server's time of the answer, in ms, to the second: the signature's `created` when
   * verified, else the `Date` header; null without either.
   */
  server: number | null;
}

export interface Outcome<T> {
  result: LicensingResult<T>;
  /** The verified answer (with its signature's `created`, in ms), or null. */
  signed: { answer: SignedAnswer; created: number } | null;
  timedOut: boolean;
  /** Null when no answer was received. */
  time: AnswerTime | null;
}

const SIGNED_HEADERS = ['signature-input', 'signature', 'content-digest', NONCE_HEADER];

/** A form POST of the API: `fields` and the product id, empty ones left out. */
export function formOperation(
  url: string,
  fields: Fields,
  productId: number,
  repeatable: boolean,
): Operation {
  const body = new URLSearchParams();
  const all: Fields = { ...fields, product_id: productId };
  for (const [name, value] of Object.entries(all)) {
    if (value !== undefined && value !== null && value !== '') body.set(name, String(value));
  }
  return { method: 'POST', url, body: body.toString(), repeatable, signed: true };
}

/** One HTTP exchange: the request (with a fresh nonce when verifying) and its answer, verified. */
export async function exchange<T>(
  connection: Connection,
  operation: Operation,
  until: number,
): Promise<Outcome<T>> {
  const { pinned, timeout, now, clockTolerance } = connection;
  const keys = operation.signed && pinned ? await pinned.catch(() => null) : null;
  const verifying = operation.signed && pinned !== null;
  const nonce = verifying ? newNonce() : null;
  // Sent with the body, checked by the server and covered by the answer's signature: an answer
  // to a request with other form fields (another key) cannot pass for this one's.
  const requestDigest =
    verifying && operation.body !== undefined ? await requestContentDigest(operation.body) : null;
  const deadline = new Deadline(Math.max(1, until - Date.now()), undefined, timeout);
  const unsigned = (
    result: LicensingResult<T>,
    time: AnswerTime | null,
    timedOut = false,
  ): Outcome<T> => ({ result, signed: null, timedOut, time });
  try {
    let response: Response | undefined;
    let bytes: Uint8Array;
    try {
      response = await connection.fetcher(operation.url, {
        method: operation.method,
        headers: {
          ...connection.headers,
          Accept: 'application/json',
          ...(operation.body === undefined
            ? {}
            : { 'Content-Type': 'application/x-www-form-urlencoded' }),
          ...(nonce === null ? {} : { [NONCE_HEADER]: nonce }),
          ...(requestDigest === null ? {} : { 'Content-Digest': requestDigest }),
        },
        body: operation.body,
        signal: deadline.signal,
      });
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      return unsigned(
        connectionFailure(error, deadline, undefined, response?.status ?? 0),
        null,
        deadline.timedOut,
      );
    }
    const { status, headers } = response;
    const dated = Date.parse(headers.get('date') ?? '');
    const time: AnswerTime = { received: now(), server: Number.isNaN(dated) ? null : dated };
    const text = new TextDecoder().decode(bytes);
    const result = operation.keySet
      ? interpretKeySet<T>(status, headers, text)
      : interpret<T>(status, headers, text);
    // An answer with nothing readable says nothing, signed or not; anything else is read only
    // once verified.
    if (!verifying || nonce === null || isInvalidResponse(result)) return unsigned(result, time);
    const answer: SignedAnswer = {
      method: operation.method,
      url: operation.url,
      nonce,
      requestDigest,
      status,
      headers: {},
      body: toBase64(bytes),
    };
    for (const name of SIGNED_HEADERS) {
      const value = headers.get(name);
      if (value !== null) answer.headers[name] = value;
    }
    const verified = keys
      ? await verifyAnswer(keys, { ...answer, headers, body: bytes }, now(), clockTolerance)
      : 'the pinned keys could not be read';
    if (typeof verified === 'string') {
      return unsigned(
        signatureInvalid(`The server's answer failed verification: ${verified}.`, status),
        time,
      );
    }
    const created = verified.created * 1000;
    await connection.signedTime.note(created, until);
    // What the server signed is its time; the Date header is not covered by the signature.
    return {
      result,
      signed: { answer, created },
      timedOut: false,
      time: { ...time, server: created },
    };
  } finally {
    deadline.clear();
  }
}
