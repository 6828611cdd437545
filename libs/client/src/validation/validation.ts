/**
 * The validate call (spec 4.2) and the heartbeat's renewal on it: with keys and a store, a
 * verified verdict is kept, and a transient failure is answered from the last one within the
 * offline grace (README.md).
 */
import { formOperation, type AnswerTime, type Connection } from '../exchange.js';
import { leaseFrom, type Beat } from './heartbeat.js';
import { clientFailure } from '../http.js';
import { offlineAnswer, validationEntry } from './offline-grace.js';
import type { Requests } from '../requests.js';
import { classifyResult, type LicensingResult, type ValidationData } from '../result.js';
import { bounded, type SafeStore } from '../store.js';

/** What a validation is sent and answered with: the client's settings and its parts. */
export interface Validator {
  apiBase: string;
  productId: number;
  /** Milliseconds. */
  timeout: number;
  connection: Connection & { offlineGrace: number };
  requests: Requests;
  /** Where verified verdicts are kept; null: no offline grace (no keys, no store, no grace). */
  graceStore: SafeStore | null;
}

/** `validate`, with the time of its answer (null for one from the offline grace). */
export async function validation(
  validator: Validator,
  key: string,
  identifier: string | undefined,
  entitlements?: string,
): Promise<{ result: LicensingResult<ValidationData>; time: AnswerTime | null }> {
  const { apiBase, productId, requests, graceStore: store } = validator;
  const fields = { license_key: key, identifier, entitlements };
  const operation = formOperation(`${apiBase}/licenses/validate`, fields, productId, true);
  if (store === null) return await requests.request<ValidationData>(operation);

  const until = Date.now() + validator.timeout;
  const entry = validationEntry(apiBase, productId, key, identifier, entitlements);
  // Read while the request runs, so the grace costs no wait of its own.
  const stored = store.read(entry);
  const outcome = await requests.request<ValidationData>(operation);
  const { result, signed } = outcome;
  const kind = classifyResult(result);
  if (signed !== null && (result.success || kind === 'license')) {
    // A verified verdict replaces the last one, good or not: a revoked license stays revoked.
    await bounded(store.write(entry, JSON.stringify(signed.answer)), until - Date.now(), undefined);
    return outcome;
  }
  if (kind !== 'transient' || result.success) return outcome;
  const text = await bounded(stored, until - Date.now(), null);
  const offline = await offlineAnswer(validator.connection, result, text, operation, until);
  return { result: offline, time: null };
}

/** A heartbeat's answer and the lease it gave, measured from the server's time of the answer. */
export async function beat(validator: Validator, key: string, identifier: string): Promise<Beat> {
  if (!identifier) {
    return {
      result: clientFailure(
        'A heartbeat needs the identifier whose lease it renews.',
        0,
        'INVALID_REQUEST',
      ),
      lease: null,
    };
  }
  const { result, time } = await validation(validator, key, identifier);
  if (!result.success || result.stale || time === null) return { result, lease: null };
  return { result, lease: leaseFrom(result.data, time) };
}
