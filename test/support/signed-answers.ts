import { createHash, randomBytes } from 'node:crypto';
import {
  answerComponents,
  readSignature,
  requestTarget,
  sha256OfContentDigest,
  signatureBase,
  verificationKeys,
  verifyEd25519,
  type ReadSignature,
} from '../../libs/signatures/index.js';

/** An answer as a test got it: status, headers (lower-case names) and the body as text. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** The request an answer was for, as the client sent it. */
export interface SentRequest {
  method: string;
  /** The path and query as sent (`/api/.../updates/7?dlid=K`). */
  target: string;
  /** The `Content-Digest` sent with the body, when one was. */
  contentDigest?: string;
}

const header = (answer: Answer, name: string): string | null => {
  const value = answer.headers[name];
  return typeof value === 'string' ? value : null;
};

/**
 * Checks an answer as the reference client does, with libs/signatures alone: its Content-Digest
 * is the SHA-256 of its body, it carries the `licensing` signature over what the profile covers
 * (the nonce when one was sent, echoed; the request's Content-Digest when it sent one), made by a key of `keySet` (the JSON of GET /keys), over
 * the signature base of this answer to this request. Null when it holds; otherwise what fails.
 */
export async function signatureProblem(
  answer: Answer,
  request: SentRequest,
  keySet: unknown,
  nonce: string | null = null,
): Promise<string | null> {
  const digest = header(answer, 'content-digest');
  if (digest === null) return 'no Content-Digest';
  const sha256 = sha256OfContentDigest(digest);
  const body = createHash('sha256').update(Buffer.from(answer.text, 'utf8')).digest();
  if (sha256 === null || !Buffer.from(sha256).equals(body)) return 'the digest is not the body';
  const echoed = header(answer, 'licensing-nonce');
  if (echoed !== nonce) return `the nonce echoed is ${String(echoed)}, not ${String(nonce)}`;
  const read = signed(answer, nonce !== null, request.contentDigest !== undefined);
  if (typeof read === 'string') return read;
  const key = (await verificationKeys(keySet)).get(read.params.keyid);
  if (key === undefined) return `no published key ${read.params.keyid}`;
  const base = signatureBase(
    read.list,
    answerComponents(
      {
        method: request.method,
        ...requestTarget(request.target),
        contentDigest: request.contentDigest ?? null,
      },
      { status: answer.status, contentDigest: digest, nonce: echoed },
    ),
  );
  if (base === null) return 'no signature base';
  const ok = await verifyEd25519(key, new TextEncoder().encode(base), read.signature);
  return ok ? null : 'the signature does not verify';
}

/** The answer's `licensing` signature, read (libs/signatures `readSignature`). */
export function signed(
  answer: Answer,
  expectNonce = false,
  expectRequestDigest = false,
): ReadSignature | string {
  return readSignature(header(answer, 'signature-input'), header(answer, 'signature'), {
    nonce: expectNonce,
    requestDigest: expectRequestDigest,
  });
}

/** A fresh nonce: 24 base64url characters. */
export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}
