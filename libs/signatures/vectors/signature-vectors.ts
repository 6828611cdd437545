import type { JwkSet } from '../keys.js';
import { answerVectors, type AnswerVector } from './answer-vectors.js';
import { licenseFileVectors, type LicenseFileVector } from './license-file-vectors.js';
import { fixedSeed, seededKey } from './signing.js';

/**
 * Signature vectors every client of the service must pass (the TypeScript client and the PHP
 * one read the same file, signature-vectors.json beside this): answers signed as the server
 * signs them (RFC 9421, RFC 9530) and license files as checkout issues them, made with
 * libs/signatures from fixed Ed25519 seeds, so the same every time; `write-vectors.ts` writes
 * them, and test/client/signature-vectors.test.ts fails when the file differs.
 */
export interface SignatureVectors {
  about: string;
  /** The key set a client pins: the signer's public key, as GET {api_base}/keys publishes it. */
  keys: JwkSet;
  /** Seconds a client's clock may be off the server's (its default). */
  clock_tolerance: number;
  answers: AnswerVector[];
  license_files: LicenseFileVector[];
}

/** The seeds: bytes of 1 for the signer, of 2 for the key nobody pinned. */
export async function signatureVectors(): Promise<SignatureVectors> {
  const keys = { signer: await seededKey(fixedSeed(1)), other: await seededKey(fixedSeed(2)) };
  return {
    about:
      'Made by libs/signatures/vectors/write-vectors.ts. Pin `keys`; a client with the tolerance ' +
      'given, its clock at `now`, having sent `request`, must accept or refuse each `response` ' +
      'as `expect` says, and each license file with `code`.',
    keys: { keys: [keys.signer.jwk] },
    clock_tolerance: 300,
    answers: await answerVectors(keys),
    license_files: await licenseFileVectors(keys),
  };
}

/**
 * The file's text: JSON, one vector a line (what a diff shows is then which vectors changed),
 * and a final newline.
 */
export function vectorsText(vectors: SignatureVectors): string {
  const list = (items: unknown[]) =>
    `[\n${items.map((item) => `    ${JSON.stringify(item)}`).join(',\n')}\n  ]`;
  return [
    '{',
    `  "about": ${JSON.stringify(vectors.about)},`,
    `  "keys": ${JSON.stringify(vectors.keys)},`,
    `  "clock_tolerance": ${JSON.stringify(vectors.clock_tolerance)},`,
    `  "answers": ${list(vectors.answers)},`,
    `  "license_files": ${list(vectors.license_files)}`,
    '}',
    '',
  ].join('\n');
}
