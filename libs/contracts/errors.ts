/**
 * Error codes of the public API (spec section 7) and of the management API, with the HTTP status
 * each one maps to by default. This table is the single place where codes meet HTTP statuses.
 */
export const errorStatus = {
  // Spec section 7.
  INVALID_REQUEST: 400,
  LICENSE_INVALID: 403,
  PRODUCT_MISMATCH: 403,
  LICENSE_EXPIRED: 403,
  ACTIVATION_LIMIT_REACHED: 403,
  // Usage counters (docs/api-decisions.md, "Usage counters").
  USAGE_LIMIT_REACHED: 403,
  // Deactivate and downloads: the spec leaves the status open; see docs/api-decisions.md.
  ACTIVATION_REQUIRED: 403,
  ACTIVATION_NOT_FOUND: 404,
  // Downloads (spec 4.5 leaves these open; docs/api-decisions.md): Account only, bad Range.
  DOWNLOAD_NOT_AVAILABLE: 403,
  RANGE_NOT_SATISFIABLE: 416,
  // A file or version that needs an entitlement the key lacks (docs/api-decisions.md, "Entitlements").
  ENTITLEMENT_REQUIRED: 403,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  // Management API and transport.
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ACTIVATION_EXISTS: 409,
  ACTIVATION_LIMIT_TOO_LOW: 409,
  // A second trial for one identifier and product (docs/api-decisions.md, "Trials").
  TRIAL_ALREADY_USED: 409,
  // A change with consequences an admin has not confirmed (a plan change; docs/api-decisions.md).
  CONFIRMATION_REQUIRED: 409,
  LAST_OWNER: 409,
  // An entitlement a plan or a license still grants is not deleted.
  ENTITLEMENT_IN_USE: 409,
  // A webhook delivery retried while one of its attempts is under way (docs/webhooks.md).
  ATTEMPT_IN_PROGRESS: 409,
  // A store's delivery whose signature does not verify (docs/stores.md, "Receiving").
  STORE_SIGNATURE_INVALID: 400,
  // An applied store event is applied again only when it failed or was unmapped.
  STORE_EVENT_NOT_RETRYABLE: 409,
  // HTTP edge: requests refused before any route reads them (docs/api-decisions.md).
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_HEADERS_TOO_LARGE: 431,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export const errorCodes = Object.keys(errorStatus) as ErrorCode[];

/** Extra integer fields carried by some errors (spec 4.1: ACTIVATION_LIMIT_REACHED). */
export type ErrorDetails = Record<string, string | number | boolean | null>;

/**
 * A refusal is carried in exactly two shapes:
 * - `Refusal`, the value: the error code, a message for the client and the extra fields of the
 *   error object. Rules that name a reason to say no (`unknownKey()`, `limitReached(...)`) make
 *   it; it becomes the error the caller receives only through `LicensingError.from`.
 * - `Refused`, `{ ok: false, refusal }`: the no of every decision that can say no. Its yes is
 *   `{ ok: true, ... }`, with the value decided (`{ ok: true, identifier }`) or, when a decision
 *   has several, an `outcome` naming which (`{ ok: true, outcome: 'already-active', ... }`). A
 *   caller tests `!decision.ok` and throws `LicensingError.from(decision.refusal)`.
 */
export interface Refusal {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details: ErrorDetails;
}

export function refusal(code: ErrorCode, message: string, details: ErrorDetails = {}): Refusal {
  return { code, message, details };
}

/** A decision that said no (see `Refusal`); one that says yes is `{ ok: true, ... }`. */
export interface Refused {
  readonly ok: false;
  readonly refusal: Refusal;
}

export function refused(code: ErrorCode, message: string, details?: ErrorDetails): Refused {
  return { ok: false, refusal: refusal(code, message, details) };
}

/**
 * The one error type of the system. Domain code throws it; the transport carries it between
 * processes; the HTTP edge renders it as `{"error": {"code", "message", ...details}}`.
 */
export class LicensingError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetails; status?: number } = {},
  ) {
    super(message);
    this.name = 'LicensingError';
    this.code = code;
    this.status = options.status ?? errorStatus[code];
    // Details add fields beside `code` and `message`; they never replace them.
    const { code: _code, message: _message, ...details } = options.details ?? {};
    this.details = details;
  }

  /** The error a refusal is answered with. */
  static from({ code, message, details }: Refusal): LicensingError {
    return new LicensingError(code, message, { details });
  }

  /** The body of the spec's error envelope: `code` and `message` first, then any details. */
  toBody(): { error: { code: ErrorCode; message: string } & ErrorDetails } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorStatus, value);
}

export function internalError(message = 'Unexpected server failure.'): LicensingError {
  return new LicensingError('INTERNAL_ERROR', message);
}

/** A request refused as malformed: 400 INVALID_REQUEST, the message naming what is wrong. */
export function invalidRequest(message: string): LicensingError {
  return new LicensingError('INVALID_REQUEST', message);
}
