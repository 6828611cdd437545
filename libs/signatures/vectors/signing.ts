import { contentDigestField, publicJwk, type Ed25519PublicJwk } from '../index.js';
import { fromBase64 } from '../structured-fields.js';

/**
 * An Ed25519 key made from a fixed seed with WebCrypto, so that what it signs is the same on
 * every run (RFC 8032 signatures are deterministic): the vectors' signer and their other key.
 */
export interface SeededKey {
  jwk: Ed25519PublicJwk;
  sign(text: string): Promise<Uint8Array>;
}

// RFC 8410: the PKCS #8 wrapping of a 32-byte Ed25519 seed.
const PKCS8_PREFIX = [
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/** The key of a 32-byte seed. */
export async function seededKey(seed: Uint8Array): Promise<SeededKey> {
  if (seed.length !== 32) throw new Error('An Ed25519 seed is 32 bytes.');
  const subtle = globalThis.crypto.subtle;
  const der = new Uint8Array([...PKCS8_PREFIX, ...seed]);
  const privateKey = await subtle.importKey('pkcs8', der, { name: 'Ed25519' }, true, ['sign']);
  const { x } = await subtle.exportKey('jwk', privateKey);
  const raw = typeof x === 'string' ? fromBase64(x) : null;
  if (raw === null) throw new Error('WebCrypto exported no public point.');
  return {
    jwk: await publicJwk(raw),
    sign: async (text) =>
      new Uint8Array(
        await subtle.sign({ name: 'Ed25519' }, privateKey, new TextEncoder().encode(text)),
      ),
  };
}

/** A seed of 32 bytes that all equal `byte`: readable in the file, fixed forever. */
export const fixedSeed = (byte: number) => new Uint8Array(32).fill(byte);

/** The RFC 9530 `Content-Digest` of a text's UTF-8 bytes. */
export async function digestOf(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  return contentDigestField(
    new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes)),
  );
}
