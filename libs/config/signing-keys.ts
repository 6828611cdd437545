/** SIGNING_KEY: the Ed25519 keys that sign the public API's answers and license files. */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { z } from 'zod';

/**
 * The Ed25519 keys of SIGNING_KEY: the first, a private key, signs the public API's answers and
 * license files; every one (the signer first) is published, so that what was signed before a
 * rotation still verifies.
 */
export interface SigningKeys {
  signer: KeyObject;
  /** The public keys of every configured key, the signer's first. */
  published: KeyObject[];
}

const SIGNING_KEY_FORMAT =
  'must be PEM blocks of Ed25519 keys, the first a private key (PKCS#8, as ' +
  '`openssl genpkey -algorithm ed25519` writes it), any further ones private or public (SPKI)';

/** A PEM block: its label and the whole block. */
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** SIGNING_KEY read, or what is wrong with it (never a word of the key itself). */
export function parseSigningKeys(text: string): SigningKeys | string {
  const blocks = [...text.matchAll(PEM_BLOCK)];
  if (blocks.length === 0 || text.replace(PEM_BLOCK, '').trim() !== '') return SIGNING_KEY_FORMAT;
  const published: KeyObject[] = [];
  let signer: KeyObject | undefined;
  for (const [index, [block, label]] of blocks.entries()) {
    const which = `${SIGNING_KEY_FORMAT}; key ${index + 1}`;
    if (label !== 'PRIVATE KEY' && (index === 0 || label !== 'PUBLIC KEY')) {
      return `${which} is a ${label ?? 'block'} block`;
    }
    let key: KeyObject;
    try {
      key = label === 'PRIVATE KEY' ? createPrivateKey(block) : createPublicKey(block);
    } catch {
      return `${which} cannot be read`;
    }
    if (key.asymmetricKeyType !== 'ed25519') return `${which} is not an Ed25519 key`;
    const publicKey = key.type === 'private' ? createPublicKey(key) : key;
    if (published.some((known) => known.equals(publicKey))) return `${which} is listed twice`;
    if (index === 0) signer = key;
    published.push(publicKey);
  }
  return { signer: signer!, published };
}

export const signingKeys = z
  .string()
  .default('')
  .transform((text, ctx): SigningKeys | undefined => {
    if (text.trim() === '') return undefined;
    const keys = parseSigningKeys(text);
    if (typeof keys !== 'string') return keys;
    ctx.addIssue({ code: 'custom', message: keys });
    return z.NEVER;
  });

/** For the embedded default only: a new Ed25519 signing key, as PEM (PKCS#8). */
export function generateSigningKey(): string {
  return generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
}
