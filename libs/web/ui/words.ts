/**
 * The words both web pages show for the API's values: a license's status, a lease's length, the
 * mark of an exempt activation, and what each error code means to the person who met it.
 */
import type { LicenseStatus } from '../../contracts/index.js';
import type { ErrorCode } from '../../contracts/errors.js';

export const STATUS_WORDS: Record<LicenseStatus, string> = {
  active: 'Active',
  expired: 'Expired',
  suspended: 'Suspended',
  revoked: 'Revoked',
  cancelled: 'Cancelled',
};

const UNITS: readonly (readonly [string, number])[] = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** Seconds as a person says them, exactly: `1 hour`, `1 day 12 hours`, `1 minute 30 seconds`. */
export function durationWords(seconds: number): string {
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of UNITS) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${unit}${count === 1 ? '' : 's'}`);
  }
  return parts.length === 0 ? '0 seconds' : parts.join(' ');
}

/**
 * A lease's length: in words, with the seconds the API holds when the words are not already
 * seconds (`1 hour (3600 s)`, `45 seconds`), so an admin can match it to what they typed.
 */
export function leaseWords(seconds: number): string {
  return seconds < 60 ? durationWords(seconds) : `${durationWords(seconds)} (${seconds} s)`;
}

/**
 * The mark of an exempt activation (docs/api-decisions.md, "Exempt identifiers"): it matched
 * one of the plan's staging patterns and takes no activation slot.
 */
export const EXEMPT_MARK = 'staging, not counted';

/**
 * Words for every code (a new code does not compile without them); the server's message follows
 * them.
 */
const ERROR_MEANINGS: Record<ErrorCode, string> = {
  USAGE_LIMIT_REACHED: 'The license has used all the uses its plan allows in this period',
  INVALID_REQUEST: 'The request was not accepted',
  UNAUTHORIZED: 'The admin token was not accepted',
  FORBIDDEN: 'Your role does not allow this',
  NOT_FOUND: 'Not found',
  LICENSE_INVALID: 'This license key is not valid, or the license is not active',
  LICENSE_EXPIRED: 'The license has expired',
  PRODUCT_MISMATCH: 'The license does not cover this product',
  ACTIVATION_LIMIT_REACHED: 'Every activation slot of the license is in use',
  ACTIVATION_LIMIT_TOO_LOW: 'The limit would be below the activations in use',
  TRIAL_ALREADY_USED: 'A trial was already issued for this identifier and product',
  CONFIRMATION_REQUIRED: 'This change needs confirming first',
  ACTIVATION_EXISTS: 'This identifier is already activated',
  ACTIVATION_NOT_FOUND: 'This identifier is not activated',
  ACTIVATION_REQUIRED: 'This needs an identifier activated with the license',
  DOWNLOAD_NOT_AVAILABLE: "This product's files come from the customer's account",
  RANGE_NOT_SATISFIABLE: 'The part of the file asked for lies beyond its end',
  ENTITLEMENT_REQUIRED: 'This file needs an entitlement the license does not have',
  ENTITLEMENT_IN_USE: 'A plan or a license still grants this entitlement',
  ALREADY_EXISTS: 'That already exists',
  LAST_OWNER: 'The last owner must stay an owner',
  ATTEMPT_IN_PROGRESS: 'The delivery is being attempted right now',
  STORE_SIGNATURE_INVALID: "The store event's signature did not verify",
  STORE_EVENT_NOT_RETRYABLE: 'Only a failed or unmapped store event is applied again',
  PAYLOAD_TOO_LARGE: 'The file or request is too large',
  REQUEST_HEADERS_TOO_LARGE: 'The request headers are too large',
  REQUEST_TIMEOUT: 'The request did not arrive in time',
  UNSUPPORTED_MEDIA_TYPE: 'The request was sent in a form the server does not read',
  RATE_LIMITED: 'Too many requests: wait a moment and try again',
  SERVICE_UNAVAILABLE: 'A service is not answering',
  INTERNAL_ERROR: 'Something failed on the server: try again',
};

/** What a code means; a code of no API (a failed connection) reads as a plain failure. */
export function errorMeaning(code: string): string {
  // Not Object.hasOwn: the bundles target ES2020.
  return Object.prototype.hasOwnProperty.call(ERROR_MEANINGS, code)
    ? ERROR_MEANINGS[code as ErrorCode]
    : 'The request failed';
}
