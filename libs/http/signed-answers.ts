import { createHash, sign, type KeyObject } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { SigningKeys } from '../config/index.js';
import { LicensingError, type JwkSet as JwkSetSchema } from '../contracts/index.js';
import { checkedContentDigest } from './input/body.js';
import {
  NONCE_HEADER,
  NONCE_PATTERN,
  contentDigestField,
  fromBase64,
  publicJwk,
  requestTarget,
  signatureField,
  signingInput,
  type JwkSet,
} from '../signatures/index.js';

/**
 * Signed answers (docs/api-decisions.md, "Signed answers"): the public API signs what a client
 * must be able to trust offline or through a proxy it does not trust, with Ed25519 keys named by
 * their JWK thumbprint. The formats are libs/signatures'; this is the server's half: the keys,
 * the signature of every answer of a signed route, and what its OpenAPI entry says of them.
 */

type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
/** The key set the contracts document is exactly the one libs/signatures writes and reads. */
export type KeySetSchemaMatchesFormat = Expect<Same<z.output<typeof JwkSetSchema>, JwkSet>>;

/** The public form of a key (libs/signatures `publicJwk`): its id is its thumbprint. */
async function jwkOf(key: KeyObject) {
  const { x } = key.export({ format: 'jwk' });
  const raw = typeof x === 'string' ? fromBase64(x) : null;
  if (raw === null) throw new Error('An Ed25519 key without its public point.');
  return publicJwk(raw);
}

/** The JWK Set of every configured key, the signer's first (GET {api_base}/keys). */
export async function publishedKeySet(keys: SigningKeys): Promise<JwkSet> {
  return { keys: await Promise.all(keys.published.map(jwkOf)) };
}

/** The key that signs, named by its thumbprint, and the key set that publishes it. */
export class Signer {
  private constructor(
    /** The signing key's id: its JWK thumbprint, the first key of `keySet`. */
    readonly kid: string,
    readonly keySet: JwkSet,
    private readonly key: KeyObject,
  ) {}

  static async fromKeys(keys: SigningKeys): Promise<Signer> {
    const keySet = await publishedKeySet(keys);
    return new Signer(keySet.keys[0]!.kid, keySet, keys.signer);
  }

  /** The Ed25519 signature of the text's UTF-8 bytes (RFC 8032). */
  sign(text: string): Uint8Array {
    return new Uint8Array(sign(null, Buffer.from(text, 'utf8'), this.key));
  }
}

/** What a surface signs its answers with: the signer, and how long a signature holds. */
export interface AnswerSigning {
  signer: Signer;
  /** SIGNATURE_TTL_SECONDS: a signature's `expires` is its `created` plus this. */
  ttlSeconds: number;
}

/** The headers of a signed answer (RFC 9530, RFC 9421), as the OpenAPI document shows them. */
export const SignedAnswerHeaders = z.object({
  'Content-Digest': z
    .string()
    .meta({ description: 'RFC 9530: `sha-256=:<base64>:` of the body bytes as sent.' }),
  'Signature-Input': z.string().meta({
    description:
      'RFC 9421: `licensing=("@status" "content-digest" "@method";req "@path";req "@query";req' +
      ' ["content-digest";req] ["licensing-nonce"]);created=…;expires=…;keyid="<kid>";' +
      'alg="ed25519"`: the request\'s own Content-Digest and nonce when it sent them.',
  }),
  Signature: z.string().meta({
    description:
      'RFC 9421: `licensing=:<base64>:`, the Ed25519 signature of the signature base, by the ' +
      'key `keyid` names in GET {api_base}/keys.',
  }),
  'Licensing-Nonce': z
    .string()
    .optional()
    .meta({ description: 'The nonce the request sent, echoed; the signature covers it.' }),
  'Cache-Control': z
    .literal('no-store')
    .meta({ description: 'A signed answer is for its request alone: no cache keeps it.' }),
});

/** The request headers of a signed route, as the OpenAPI document shows them. */
export const SignedRouteRequestHeaders = z.object({
  'Content-Digest': z
    .string()
    .optional()
    .meta({
      description:
        'Optional, RFC 9530: `sha-256=:<base64>:` of the body as sent. A body that does not ' +
        'match it is refused with 400 INVALID_REQUEST; one that does is covered by the ' +
        "answer's signature, so the answer is bound to the form fields sent.",
    }),
  'Licensing-Nonce': z
    .string()
    .regex(NONCE_PATTERN)
    .optional()
    .meta({
      description:
        'Optional: 16 to 128 base64url characters, fresh for each request. The answer echoes ' +
        'it and its signature covers it, so a recorded answer cannot be replayed to this ' +
        'request. Anything else is refused with 400 INVALID_REQUEST.',
    }),
});

export const BAD_NONCE_DESCRIPTION =
  'A Licensing-Nonce that is not 16 to 128 base64url characters.';

function badNonce(): LicensingError {
  return new LicensingError(
    'INVALID_REQUEST',
    'The Licensing-Nonce header must be 16 to 128 base64url characters (A-Z, a-z, 0-9, - and _).',
  );
}

/**
 * Holds what the route writes and sends it at `end` with its `Content-Digest`, `Signature-Input`
 * and `Signature` (libs/signatures `signingInput`), so every answer the route gives, errors of
 * later middleware and of the app's error mapping included, goes out signed, over the exact bytes
 * sent.
 */
function signAtEnd(
  res: Response,
  sign: (status: number, contentDigest: string) => { signatureInput: string; signature: string },
): void {
  const chunks: Buffer[] = [];
  // What Express writes is usually the whole body as one UTF-8 string (`res.json`): it is hashed
  // and sent as it is, so Node writes it with the head in one write, with no copy.
  let text: string | null = null;
  const collect = (chunk: unknown, encoding: unknown) => {
    if (text !== null) {
      chunks.push(Buffer.from(text, 'utf8'));
      text = null;
    }
    const utf8 = encoding === undefined || encoding === 'utf8' || encoding === 'utf-8';
    if (typeof chunk === 'string' && utf8 && chunks.length === 0) {
      text = chunk;
    } else if (typeof chunk === 'string') {
      chunks.push(
        Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
      );
    } else if (chunk instanceof Uint8Array) {
      chunks.push(Buffer.from(chunk));
    }
  };
  const end = res.end.bind(res) as (
    chunk: Buffer | string,
    encoding: BufferEncoding,
    done?: () => void,
  ) => Response;
  res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
    collect(chunk, encoding);
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  }) as Response['write'];
  res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
    collect(chunk, encoding);
    const done = [chunk, encoding, callback].find((arg) => typeof arg === 'function') as
      (() => void) | undefined;
    const body = text ?? Buffer.concat(chunks);
    if (!res.headersSent) {
      const hash = createHash('sha256');
      const sha256 = (
        typeof body === 'string' ? hash.update(body, 'utf8') : hash.update(body)
      ).digest();
      const digest = contentDigestField(new Uint8Array(sha256));
      const { signatureInput, signature } = sign(res.statusCode, digest);
      res.setHeader('Content-Digest', digest);
      res.setHeader('Signature-Input', signatureInput);
      res.setHeader('Signature', signature);
    }
    return end(body, 'utf8', done);
  }) as Response['end'];
}

/**
 * The head of a signed route's chain: the answer, whatever it is, is signed over its status and
 * body and the request's method, path and query, and the client's `Licensing-Nonce`, which it
 * echoes. A malformed nonce is refused (400 INVALID_REQUEST, signed without it).
 */
export function signAnswers({ signer, ttlSeconds }: AnswerSigning): RequestHandler {
  return (req, res, next) => {
    const sent = req.get(NONCE_HEADER);
    const nonce = sent !== undefined && NONCE_PATTERN.test(sent) ? sent : null;
    const request = { method: req.method, ...requestTarget(req.originalUrl) };
    // Bound to its request (and nonce), a signed answer is no answer for anyone else's.
    res.set('Cache-Control', 'no-store');
    if (nonce !== null) res.set('Licensing-Nonce', nonce);
    signAtEnd(res, (status, contentDigest) => {
      const created = Math.floor(Date.now() / 1000);
      const { base, signatureInput } = signingInput(
        // The request's own digest, once the body has been read and found to match it.
        { ...request, contentDigest: checkedContentDigest(res) },
        { status, contentDigest, nonce },
        { created, expires: created + ttlSeconds, keyid: signer.kid },
      );
      return { signatureInput, signature: signatureField(signer.sign(base)) };
    });
    next(sent !== undefined && nonce === null ? badNonce() : undefined);
  };
}
