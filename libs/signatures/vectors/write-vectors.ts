/**
 * Writes signature-vectors.json beside it: `npx tsx libs/signatures/vectors/write-vectors.ts`.
 * Run it after a change to what libs/signatures signs; the vectors test says when it is due.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { signatureVectors, vectorsText } from './signature-vectors.js';

export const VECTORS_FILE = fileURLToPath(new URL('./signature-vectors.json', import.meta.url));

writeFileSync(VECTORS_FILE, vectorsText(await signatureVectors()));
process.stdout.write(`${VECTORS_FILE}\n`);
