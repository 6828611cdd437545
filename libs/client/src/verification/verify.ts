/**
 * Checking what the server signed (RFC 9421 answers, license files) against the pinned public
 * keys, with libs/signatures (bundled into this package): the client holds no second
 * implementation of any format. WebCrypto only, so it runs in browsers and Node 20+ alike.
 */
import {
  answerComponents,
  contentDigestField,
  NONCE_HEADER,
  readSignature,
  requestTarget,
  sha256OfContentDigest,
  signatureBase,
  toBase64Url,
  verificationKeys,
  verifyEd25519,
  type Ed25519PublicJwk,
} from '../../../signatures/index.js';

/** The pinned keys by id: only the valid Ed25519 keys of what the caller gave. */
export type PinnedKeys = Map<string, Ed25519PublicJwk>;

/** What the `keys` option accepts: a JWK Set (`{"keys": [...]}`, as `GET /keys` answers) or its list. */
export type KeysOption = { keys: readonly unknown[] } | readonly unknown[];

/** Whether `keys` has the shape of a JWK Set or a list of JWKs (the keys themselves are checked later). */
export function isKeysOption(keys: unknown): keys is KeysOption {
  if (Array.isArray(keys)) return true;
  return (
    typeof keys === 'object' && keys !== null && Array.isArray((keys as { keys?: unknown }).keys)
  );
}

/** The usable keys of a JWK Set or a list of JWKs (`verificationKeys`: Ed25519, named by thumbprint). */
export function pinKeys(keys: KeysOption): Promise<PinnedKeys> {
  return verificationKeys(Array.isArray(keys) ? { keys } : keys);
}

/** A fresh nonce: 24 random bytes from WebCrypto, 32 base64url characters (NONCE_PATTERN). */
export function newNonce(): string {
  const bytes = new Uint8Array(24);
  globalThis.crypto.getRandomValues(bytes);
  return toBase64Url(bytes);
}

const utf8 = (text: string) => new TextEncoder().encode(text);

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
}

/**
 * The `Content-Digest` a verifying client sends with a form body (RFC 9530): the server checks
 * the body against it and the answer's signature covers it, binding the answer to the fields sent.
 */
export async function requestContentDigest(body: string): Promise<string> {
  return contentDigestField(await sha256(utf8(body)));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Ed25519 through WebCrypto: true, or why not (a runtime without Ed25519 verifies nothing). */
async function verifies(
  key: Ed25519PublicJwk,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<true | string> {
  try {
    if (await verifyEd25519(key, data, signature)) return true;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return `this runtime cannot check Ed25519 signatures (${detail})`;
  }
  return MISMATCH;
}

const MISMATCH = 'its signature does not match';

export interface AnswerToVerify {
  /** The request as sent: its method and the URL fetched. */
  method: string;
  url: string;
  /** The nonce sent in `Licensing-Nonce`. */
  nonce: string;
  /** The `Content-Digest` sent with the request's body; null for a request without one. */
  requestDigest: string | null;
  status: number;
  headers: Headers;
  /** The body exactly as received. */
  body: Uint8Array;
}

/**
 * Checks an answer's `licensing` signature: made by a pinned key over this request (method, path,
 * query, and the digest of the body it sent), this status, a `Content-Digest` that matches the body's bytes, and the echoed nonce;
 * `created` no later than now + tolerance and `expires` no earlier than now - tolerance (unless
 * `checkTime` is false: a stored answer checked again for the offline grace).
 * Resolves to the signature's `created` (seconds) or the reason it fails.
 */
export async function verifyAnswer(
  keys: PinnedKeys,
  answer: AnswerToVerify,
  now: number,
  toleranceMs: number,
  checkTime = true,
): Promise<{ created: number } | string> {
  try {
    return await check(keys, answer, now, toleranceMs, checkTime);
  } catch (error) {
    return `it could not be checked (${error instanceof Error ? error.message : String(error)})`;
  }
}

async function check(
  keys: PinnedKeys,
  answer: AnswerToVerify,
  now: number,
  toleranceMs: number,
  checkTime: boolean,
): Promise<{ created: number } | string> {
  if (keys.size === 0) return 'none of the pinned keys is a usable Ed25519 key';
  const read = readSignature(
    answer.headers.get('signature-input'),
    answer.headers.get('signature'),
    {
      nonce: true,
      requestDigest: answer.requestDigest !== null,
    },
  );
  if (typeof read === 'string') return read;
  const key = keys.get(read.params.keyid);
  if (key === undefined) return `it is signed by a key that is not pinned (${read.params.keyid})`;
  const contentDigest = answer.headers.get('content-digest');
  if (contentDigest === null) return 'it has no Content-Digest';
  const named = sha256OfContentDigest(contentDigest);
  if (named === null) return 'its Content-Digest names no SHA-256';
  if (!sameBytes(named, await sha256(answer.body))) {
    return 'its body does not match its Content-Digest';
  }
  const echoed = answer.headers.get(NONCE_HEADER);
  if (echoed !== answer.nonce) return 'it does not echo the nonce of this request';
  const base = signatureBase(
    read.list,
    answerComponents(
      { method: answer.method, ...requestTarget(answer.url), contentDigest: answer.requestDigest },
      { status: answer.status, contentDigest, nonce: echoed },
    ),
  );
  if (base === null) return 'its signature covers a component this client does not check';
  const verified = await verifies(key, utf8(base), read.signature);
  if (verified === MISMATCH) return `${MISMATCH} this answer to this request`;
  if (verified !== true) return verified;
  const { created, expires } = read.params;
  if (!checkTime) return { created };
  if (created * 1000 > now + toleranceMs) {
    return `it was signed at ${iso(created * 1000)}, later than this device's clock (${iso(now)}) allows`;
  }
  if (expires * 1000 < now - toleranceMs) {
    return `its signature expired at ${iso(expires * 1000)} (this device's clock: ${iso(now)})`;
  }
  return { created };
}

/** Whether `signature` over `signingInput` is by the pinned key `kid`, or the reason it is not. */
export async function verifySignedBytes(
  keys: PinnedKeys,
  kid: string,
  signingInput: string,
  signature: Uint8Array,
): Promise<true | string> {
  const key = keys.get(kid);
  if (key === undefined) return `it is signed by a key that is not pinned (${kid})`;
  return verifies(key, utf8(signingInput), signature);
}
