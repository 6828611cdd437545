/** SPARKLE_PRIVATE_KEY (or its file): the seller's Sparkle EdDSA key, which signs macOS packages. */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { expandedPublicKey, signWithExpandedKey } from './ed25519-expanded.js';

/** PKCS#8 of an Ed25519 private key, up to its 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** SPKI of an Ed25519 public key, up to its 32 bytes (RFC 8410). */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const SPARKLE_KEY_FORMAT =
  'must be a Sparkle EdDSA private key as `generate_keys -x <file>` writes it ' +
  '(base64 of 32 bytes, or of 96 bytes for a key made before Sparkle 2.6)';

/**
 * The seller's Sparkle key: signs a package as Sparkle's `sign_update` does (Ed25519 over the
 * whole file). The secret is held in private fields, so no log or JSON of the settings shows it.
 */
export class SparkleKey {
  readonly #sign: (message: Uint8Array) => Buffer;
  /** The key checking the signatures: the app's `SUPublicEDKey`. */
  readonly verifier: KeyObject;

  private constructor(sign: (message: Uint8Array) => Buffer, verifier: KeyObject) {
    this.#sign = sign;
    this.verifier = verifier;
  }

  /**
   * Reads `generate_keys -x`: base64 of the 32-byte seed (Sparkle 2.6 and later), or of the
   * 64-byte expanded private key followed by the 32-byte public key (keys made before). A key
   * whose halves do not belong together is refused, as no app would accept its signatures.
   */
  static parse(text: string): SparkleKey | string {
    const encoded = text.trim();
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return `${SPARKLE_KEY_FORMAT}; it is not base64`;
    const secret = Buffer.from(encoded, 'base64');
    if (secret.length === 32) {
      const key = createPrivateKey({
        key: Buffer.concat([PKCS8_ED25519_PREFIX, secret]),
        format: 'der',
        type: 'pkcs8',
      });
      return new SparkleKey((message) => sign(null, message, key), createPublicKey(key));
    }
    if (secret.length === 96) {
      const expanded = Uint8Array.prototype.slice.call(secret, 0, 64);
      const publicKey = Uint8Array.prototype.slice.call(secret, 64);
      const verifier = createPublicKey({
        key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]),
        format: 'der',
        type: 'spki',
      });
      if (!expandedPublicKey(expanded).equals(publicKey)) {
        return `${SPARKLE_KEY_FORMAT}; its public half is not that of its private half`;
      }
      return new SparkleKey(
        (message) => signWithExpandedKey(expanded, publicKey, message),
        verifier,
      );
    }
    return `${SPARKLE_KEY_FORMAT}; it decodes to ${secret.length} bytes`;
  }

  /** `SUPublicEDKey`: the 32-byte public key, base64. */
  get publicKey(): string {
    const jwk = this.verifier.export({ format: 'jwk' });
    return Buffer.from(jwk.x!, 'base64url').toString('base64');
  }

  /** `sparkle:edSignature` of these bytes: base64 of the 64-byte Ed25519 signature. */
  signature(bytes: Uint8Array): string {
    const signature = this.#sign(bytes);
    // Never stored unless it verifies: an app refuses an update whose signature does not.
    if (!verify(null, bytes, this.verifier, signature)) {
      throw new Error('The Sparkle signature just made does not verify.');
    }
    return signature.toString('base64');
  }
}

/** The setting's text (or its file's, libs/config/load.ts): the key, or unset when empty. */
export const sparkleKeySetting = z
  .string()
  .default('')
  .transform((text, ctx): SparkleKey | undefined => {
    if (text.trim() === '') return undefined;
    const key = SparkleKey.parse(text);
    if (typeof key !== 'string') return key;
    ctx.addIssue({ code: 'custom', message: key });
    return z.NEVER;
  });
