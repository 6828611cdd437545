/**
 * The offline grace (README.md): while the server cannot answer, validate answers from the last
 * verified validation of the same key, identifier, product and entitlements asked about, checked
 * again as it was signed.
 */
import { fromBase64 } from '../../../signatures/index.js';
import type { Connection, Operation, SignedAnswer } from '../exchange.js';
import { interpret } from '../http.js';
import { clockTampered } from '../verification/license-file.js';
import {
  classifyResult,
  type FailureResult,
  type LicensingResult,
  type ValidationData,
} from '../result.js';
import { Sha256 } from '../downloads/sha256.js';
import { STORE_PREFIX } from '../store.js';
import { requestContentDigest, verifyAnswer } from '../verification/verify.js';

/** The store entry of a validation: a digest, so the store does not hold the key in its names. */
export function validationEntry(
  apiBase: string,
  productId: number,
  key: string,
  identifier: string | undefined,
  entitlements?: string,
): string {
  // The entitlements asked about change the verdict; without them the entry is as it always was.
  const fields = [apiBase, productId, key, identifier ?? ''];
  const text = (entitlements ? [...fields, entitlements] : fields).join('\n');
  return `${STORE_PREFIX}validate:${new Sha256().update(new TextEncoder().encode(text)).hex()}`;
}

/** The answer of the offline grace to a transient failure of validate, or the failure. */
export async function offlineAnswer(
  connection: Connection & { offlineGrace: number },
  failure: FailureResult,
  stored: string | null,
  operation: Operation,
  until: number,
): Promise<LicensingResult<ValidationData>> {
  const { now, clockTolerance } = connection;
  const keys = await connection.pinned?.catch(() => null);
  if (!keys || stored === null) return failure;
  let previous: LicensingResult<ValidationData>;
  let verified: { created: number } | string;
  let answer: SignedAnswer;
  try {
    answer = JSON.parse(stored) as SignedAnswer;
    const body = typeof answer?.body === 'string' ? fromBase64(answer.body) : null;
    if (body === null) return failure;
    // Checked again: the store is the caller's, and only what the server signed is trusted.
    verified = await verifyAnswer(
      keys,
      {
        ...answer,
        requestDigest: typeof answer.requestDigest === 'string' ? answer.requestDigest : null,
        headers: new Headers(answer.headers),
        body,
      },
      now(),
      clockTolerance,
      false,
    );
    previous = interpret<ValidationData>(
      answer.status,
      new Headers(),
      new TextDecoder().decode(body),
    );
  } catch {
    // Whatever the store holds instead of an answer this client kept, there is no grace.
    return failure;
  }
  if (typeof verified === 'string') return failure;
  if (!previous.success || classifyResult(previous) !== 'ok') return failure;
  // The signature binds the answer to the fields its request sent: they must be this call's.
  if (answer.url !== operation.url) return failure;
  if (answer.requestDigest !== (await requestContentDigest(operation.body ?? ''))) return failure;

  const time = now();
  const created = verified.created * 1000;
  const latest = Math.max(await connection.signedTime.get(until), created);
  if (time < latest - clockTolerance) return clockTampered(time, latest);
  if (time - created > connection.offlineGrace) return failure;
  return {
    success: true,
    data: previous.data,
    message: '',
    code: '',
    httpStatus: failure.httpStatus,
    stale: true,
    checked_at: new Date(created).toISOString(),
    cause: failure,
  };
}
