import { fromBase64, toBase64Url } from './structured-fields.js';

/**
 * The public keys answers and license files are signed with, as the public API publishes them
 * (`GET {api_base}/keys`): a JWK Set (RFC 7517) of Ed25519 keys (RFC 8037), each named by its
 * JWK thumbprint (RFC 7638), so a key's id follows from the key and never needs to be chosen.
 * Checked with WebCrypto, in browsers and in Node 20+ alike.
 */

export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** The 32-byte public key, base64url. */
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

export interface JwkSet {
  keys: Ed25519PublicJwk[];
}

type Subtle = NonNullable<typeof globalThis.crypto>['subtle'];

function subtle(): Subtle {
  const crypto = globalThis.crypto?.subtle;
  if (crypto === undefined) throw new Error('WebCrypto (crypto.subtle) is not available here.');
  return crypto;
}

/** RFC 7638: the base64url SHA-256 of the key's required members, in lexical order. */
export async function jwkThumbprint(x: string): Promise<string> {
  const members = JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x });
  const digest = await subtle().digest('SHA-256', new TextEncoder().encode(members));
  return toBase64Url(new Uint8Array(digest));
}

/** The published form of a raw 32-byte Ed25519 public key. */
export async function publicJwk(publicKey: Uint8Array): Promise<Ed25519PublicJwk> {
  const x = toBase64Url(publicKey);
  return { kty: 'OKP', crv: 'Ed25519', x, kid: await jwkThumbprint(x), use: 'sig', alg: 'EdDSA' };
}

/**
 * The Ed25519 keys of a JWK Set that are usable for checking signatures, by id. A key whose id is
 * not its thumbprint is left out: a key set cannot then name one key with another's id.
 */
export async function verificationKeys(set: unknown): Promise<Map<string, Ed25519PublicJwk>> {
  const keys = new Map<string, Ed25519PublicJwk>();
  const list = (set as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list)) return keys;
  for (const candidate of list as Array<Partial<Ed25519PublicJwk> | null>) {
    if (candidate?.kty !== 'OKP' || candidate.crv !== 'Ed25519') continue;
    if (typeof candidate.x !== 'string' || typeof candidate.kid !== 'string') continue;
    if (fromBase64(candidate.x)?.length !== 32) continue;
    if ((await jwkThumbprint(candidate.x)) !== candidate.kid) continue;
    keys.set(candidate.kid, {
      kty: 'OKP',
      crv: 'Ed25519',
      x: candidate.x,
      kid: candidate.kid,
      use: 'sig',
      alg: 'EdDSA',
    });
  }
  return keys;
}

/** Whether `signature` is `key`'s Ed25519 signature of `data` (RFC 8032; RFC 9421 3.3.6). */
export async function verifyEd25519(
  key: Pick<Ed25519PublicJwk, 'x'>,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (signature.length !== 64) return false;
  const imported = await subtle().importKey(
    'jwk',
    { kty: 'OKP', crv: 'Ed25519', x: key.x },
    { name: 'Ed25519' },
    false,
    ['verify'],
  );
  // Copies of their own: WebCrypto takes no view of shared memory (a browser's types say so).
  return subtle().verify(
    { name: 'Ed25519' },
    imported,
    new Uint8Array(signature),
    new Uint8Array(data),
  );
}
