/**
 * The result every client call returns (spec 7, rule 3), the payload types of the service (spec
 * 4), and the helper that tells a license problem from a transient failure (spec 7, rule 2).
 */
// The payload types are the service's own (libs/contracts), as plain types checked against its
// schemas. Type-only imports: nothing of the contracts or of zod reaches the built JavaScript,
// and tsup copies the declarations into this package's `.d.ts`.
import type {
  PlainActivationResult,
  PlainActivationType,
  PlainLicenseStatus,
  PlainReleaseChannel,
  PlainStartedTrial,
  PlainUpdateInfo,
  PlainUsageResult,
  PlainValidationResult,
} from '../../contracts/payload-types.js';

export type ActivationType = PlainActivationType;
export type LicenseStatus = PlainLicenseStatus;
/** A release channel: `stable`, `rc`, `beta`, `alpha` or `dev` (docs/updaters.md). */
export type ReleaseChannel = PlainReleaseChannel;

/** Payload of activate (spec 4.1) and deactivate. */
export type ActivationData = PlainActivationResult;

/** Payload of `POST /trials`: the trial license's key, its expiry and the activation. */
export type TrialData = PlainStartedTrial;

/** Payload of validate (spec 4.2). */
export type ValidationData = PlainValidationResult;

/**
 * What `validate` sends besides the key: the identifier to check, and the entitlement codes to
 * ask about (sent as `entitlements=a,b`; docs/api-decisions.md, "Entitlements").
 */
export interface ValidateOptions {
  identifier?: string;
  entitlements?: readonly string[];
}

/** Payload of `POST /licenses/usage`: the usage counter of the period. */
export type UsageData = PlainUsageResult;

/** What `recordUsage` records: how many uses (default 1), once per key, for an identifier. */
export interface UsageOptions {
  increment?: number;
  /** Chosen for this use and sent again on a retry; a new UUID when not given. */
  idempotencyKey?: string;
  /** An identifier activated on the license; optional. */
  identifier?: string;
}

/**
 * Payload of the update check (spec 2.6 and 4.4). Without a version only a few fields appear:
 * check `update_available` first.
 */
export type UpdateInfo = PlainUpdateInfo;

/** Payload of `POST /licenses/checkout`: an offline license file and its lease. */
export interface CheckoutData {
  /** The license file: a JWS (compact serialization, EdDSA, `typ: licensing-file+jwt`). */
  license_file: string;
  /** ISO 8601 UTC. */
  issued_at: string;
  /** End of the lease, ISO 8601 UTC. */
  expires_at: string;
}

/**
 * What `verifyLicenseFile` answers: the license state the file holds, as validate reports it
 * (`identifier_activated` is true: the identifier was activated when the file was issued), with
 * the file's identifier, product and lease.
 */
export interface LicenseFileData extends ValidationData {
  /** The normalised identifier the file is for. */
  identifier: string;
  product_id: number;
  /** When the file was issued, ISO 8601 UTC. */
  issued_at: string;
  /** End of the lease, ISO 8601 UTC (`expires_at` is the license's own expiry). */
  lease_expires_at: string;
}

/** What `download` saved (the client builds this; it is not a server payload). */
export interface DownloadData {
  /** File name from `Content-Disposition` (made safe), else `product-{id}`. */
  filename: string;
  /** Absolute path of the saved file, for a file-path destination. */
  path: string | null;
  /** The package, for the `null` (Blob) destination. */
  blob: Blob | null;
  /** Bytes received. */
  size: number;
  /** SHA-256 of the bytes received, lowercase hex. */
  sha256: string;
  contentType: string | null;
  /** Whether the server sent a checksum header (or the caller an expected checksum) that matched. */
  checksumVerified: boolean;
}

export interface SuccessResult<T> {
  success: true;
  data: T;
  message: '';
  code: '';
  /** HTTP status of the answer (for a `stale` answer, of the failed attempt: 0 without one). */
  httpStatus: number;
  /**
   * Only on a validation answered from the offline grace (spec 7 rule 2): `data` is the last
   * verified answer, because the server could not give one now.
   */
  stale?: true;
  /** With `stale`: when the server signed the answer in `data` (ISO 8601 UTC). */
  checked_at?: string;
  /** With `stale`: the transient failure the stale answer stands in for (its `retryAfter`, ...). */
  cause?: FailureResult;
}

export interface FailureResult {
  success: false;
  data: null;
  /** The server's message, or a client message (`Connection error: ...`, `Invalid response from server.`). */
  message: string;
  /** The server's error code; empty when the failure happened before a valid answer. */
  code: string;
  /** HTTP status of the answer; `0` when no answer (status line) was received. */
  httpStatus: number;
  /** Seconds to wait before retrying, from the `Retry-After` header (for example on `RATE_LIMITED`). */
  retryAfter?: number;
  /** Extra fields of the error object, e.g. `activation_limit` and `activations_used`. */
  details?: Record<string, unknown>;
}

/** `{success, data, message, code}` (spec 7, rule 3), plus `httpStatus` and, on failures, `retryAfter` and `details`. */
export type LicensingResult<T> = SuccessResult<T> | FailureResult;

/** The error codes of spec 7 (later versions of the service may add more: spec 7, rule 1). */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'LICENSE_INVALID',
  'PRODUCT_MISMATCH',
  'LICENSE_EXPIRED',
  'ACTIVATION_LIMIT_REACHED',
  'USAGE_LIMIT_REACHED',
  'ACTIVATION_REQUIRED',
  'ACTIVATION_NOT_FOUND',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
] as const;

/**
 * Codes the client gives itself, never sent by the server (`PRODUCT_MISMATCH` is also given for a
 * license file of another product):
 * - `SIGNATURE_INVALID`: an answer or a license file that fails verification against the pinned
 *   keys (unsigned, unknown key, tampered, for another request or nonce, expired signature);
 * - `LICENSE_FILE_EXPIRED`: a license file past its lease;
 * - `IDENTIFIER_MISMATCH`: a license file issued for another identifier;
 * - `CLOCK_TAMPERED`: the device's clock is behind a time the server vouched for, so offline
 *   checks (license files, the offline grace) cannot be trusted.
 */
export const CLIENT_ERROR_CODES = [
  'SIGNATURE_INVALID',
  'LICENSE_FILE_EXPIRED',
  'IDENTIFIER_MISMATCH',
  'CLOCK_TAMPERED',
] as const;

/**
 * Codes that are an answer about the license or its activations, or (the client's own codes) a
 * refusal to trust what claims to be one: a forged answer is neither trusted nor retried.
 */
export const LICENSE_PROBLEM_CODES: readonly string[] = [
  'LICENSE_INVALID',
  'PRODUCT_MISMATCH',
  'LICENSE_EXPIRED',
  'ACTIVATION_LIMIT_REACHED',
  'USAGE_LIMIT_REACHED',
  'ACTIVATION_REQUIRED',
  'ACTIVATION_NOT_FOUND',
  // A trial refused: this identifier had its trial of the product (docs/api-decisions.md).
  'TRIAL_ALREADY_USED',
  ...CLIENT_ERROR_CODES,
];

/** Codes that say nothing about the license (spec 7, rule 2). */
export const TRANSIENT_CODES: readonly string[] = ['RATE_LIMITED', 'INTERNAL_ERROR'];

/**
 * What a result means for the software:
 * - `ok`: success (for validate: the license is valid and the identifier, if sent, is activated);
 * - `license`: the service answered about the license: refuse, or ask the customer to act;
 * - `transient`: says nothing about the license (rate limit, server error, connection failure,
 *   timeout, unreadable answer): keep the last good state and retry later;
 * - `failure`: any other error, e.g. `INVALID_REQUEST` or a code this client does not know
 *   (spec 7, rule 1). Not a verdict on the license either.
 */
export type ResultKind = 'ok' | 'license' | 'transient' | 'failure';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function classifyResult(result: LicensingResult<unknown>): ResultKind {
  if (result.success) {
    const data = result.data;
    if (isRecord(data) && (data.valid === false || data.identifier_activated === false)) {
      return 'license';
    }
    return 'ok';
  }
  if (LICENSE_PROBLEM_CODES.includes(result.code)) return 'license';
  if (TRANSIENT_CODES.includes(result.code) || result.code === '') return 'transient';
  // An unknown code from an overloaded proxy or a newer server is still not about the license.
  if (result.httpStatus === 429 || result.httpStatus >= 500) return 'transient';
  return 'failure';
}

/** `true` when the service said something about the license that the software must act on. */
export function isLicenseProblem(result: LicensingResult<unknown>): boolean {
  return classifyResult(result) === 'license';
}

/** `true` when the failure says nothing about the license: never lock a customer out for it. */
export function isTransientFailure(result: LicensingResult<unknown>): boolean {
  return classifyResult(result) === 'transient';
}

export interface RetryOptions {
  /** First delay, in milliseconds. Default 60 000 (one minute). */
  baseMs?: number;
  /** Longest delay, in milliseconds. Default 6 hours. */
  maxMs?: number;
  /** Random spread of up to this fraction of the delay, so many installations do not retry together. Default 0.2. */
  jitter?: number;
  /** Source of randomness in [0, 1); default `Math.random`. */
  random?: () => number;
}

/**
 * Milliseconds to wait before retry number `attempt` (0 for the first retry): exponential backoff
 * with jitter, never shorter than the server's `Retry-After`.
 */
export function retryDelay(
  result: LicensingResult<unknown>,
  attempt: number,
  options: RetryOptions = {},
): number {
  const base = options.baseMs ?? 60_000;
  const max = options.maxMs ?? 6 * 60 * 60 * 1000;
  const jitter = options.jitter ?? 0.2;
  const random = options.random ?? Math.random;
  const exponential = Math.min(max, base * 2 ** Math.max(0, Math.floor(attempt)));
  const delay = Math.round(exponential * (1 + jitter * random()));
  const retryAfterMs =
    !result.success && result.retryAfter !== undefined ? result.retryAfter * 1000 : 0;
  return Math.max(Math.min(delay, max), retryAfterMs);
}
