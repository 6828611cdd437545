/**
 * The client's options (README.md documents them), their defaults, and the checks that make a
 * wrong one a `TypeError` when the client is made rather than a failure of every call.
 */
import { isCacheOption, type CacheOption } from './store.js';
import { isKeysOption, type KeysOption } from './verification/verify.js';

/** Spec 9: the client appends this to the store root URL. */
export const API_PATH = '/api/index.php/v1/licensing';
/** Spec 8: default request timeout of the reference client. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** How far the device's clock may be from the server's: 5 minutes. */
export const DEFAULT_CLOCK_TOLERANCE_MS = 5 * 60 * 1000;
/** How long the last verified validation stands in while the server cannot answer: 72 hours. */
export const DEFAULT_OFFLINE_GRACE_MS = 72 * 60 * 60 * 1000;
/** Retries after a transient failure, for the calls that are safe to repeat (the most allowed). */
export const MAX_RETRIES = 2;
/** First retry delay before jitter; doubled for the second. */
export const DEFAULT_RETRY_BASE_DELAY_MS = 250;
/** How long a transient failure is remembered, so identical calls do not repeat it. */
export const DEFAULT_NEGATIVE_CACHE_MS = 60_000;

export interface ClientOptions {
  /**
   * Milliseconds (default 15 000). Bounds the whole call, retries and their waits included; for
   * downloads it is the wait for the answer, then the longest silence between two chunks.
   */
  timeout?: number;
  /** A fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
  /** Extra request headers, e.g. a `User-Agent` where the runtime allows one. */
  headers?: Record<string, string>;
  /**
   * The server's public keys, pinned: a JWK Set (`{"keys": [...]}`, as `GET {api_base}/keys`
   * answers) or a list of JWKs. Only Ed25519 keys whose `kid` is their RFC 7638 thumbprint are
   * kept. With keys, every call sends a fresh nonce and every answer is verified before it is read.
   */
  keys?: KeysOption;
  /** How far the device's clock may be from the server's, in milliseconds (default 5 minutes). */
  clockTolerance?: number;
  /**
   * A small store of strings (`get`/`set`, sync or async, or `localStorage`): the latest time the
   * server vouched for (clock-tamper detection) and the last verified validations (offline grace).
   */
  cache?: CacheOption;
  /** Milliseconds the last verified validation stays usable while the server cannot answer (default 72 h; 0: never). */
  offlineGrace?: number;
  /** Retries after a transient failure of activate, validate, the update check and `fetchKeys`: 0 to 2 (default 2). */
  retries?: number;
  /** Milliseconds before the first retry, before jitter (default 250); doubled for the second. */
  retryBaseDelay?: number;
  /** Milliseconds a transient failure is remembered for identical calls (default 60 000; 0: never). */
  negativeCacheTtl?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

export interface VerifyLicenseFileOptions {
  /** The time to check the file at (default: the client's clock). */
  now?: number | Date;
  /**
   * The identifier this software runs on, compared exactly with the one the file holds: the
   * normalised identifier the server stored (activate's `data.identifier`). Not checked when absent.
   */
  identifier?: string;
}

/** The options checked, with their defaults filled in. */
export interface Settings {
  /** `{store root}/api/index.php/v1/licensing`. */
  apiBase: string;
  productId: number;
  timeout: number;
  retries: number;
  clockTolerance: number;
  offlineGrace: number;
  retryBaseDelay: number;
  negativeCacheTtl: number;
  fetcher: typeof fetch;
  headers: Record<string, string>;
  keys: KeysOption | undefined;
  cache: CacheOption | undefined;
  now: () => number;
}

export function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new TypeError(`${name} must be a non-negative number of milliseconds: ${value}`);
  }
  return value;
}

/** The client's settings, or a `TypeError` naming the first option that is wrong. */
export function readOptions(
  storeUrl: string,
  productId: number | string,
  options: number | ClientOptions,
): Settings {
  const settings = typeof options === 'number' ? { timeout: options } : options;
  let root: URL;
  try {
    root = new URL(String(storeUrl).trim());
  } catch {
    throw new TypeError(`The store URL is not an absolute URL: ${String(storeUrl)}`);
  }
  if (root.protocol !== 'http:' && root.protocol !== 'https:') {
    throw new TypeError(`The store URL must be http or https: ${String(storeUrl)}`);
  }
  const id = String(productId).trim();
  if (!/^[1-9]\d*$/.test(id) || !Number.isSafeInteger(Number(id))) {
    throw new TypeError(`The product id must be a positive integer: ${String(productId)}`);
  }
  const timeout = settings.timeout ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new TypeError(`The timeout must be a positive number of milliseconds: ${timeout}`);
  }
  const retries = settings.retries ?? MAX_RETRIES;
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES) {
    throw new TypeError(`retries must be 0, 1 or 2: ${retries}`);
  }
  if (settings.keys !== undefined && !isKeysOption(settings.keys)) {
    throw new TypeError('keys must be a JWK Set ({"keys": [...]}) or a list of JWKs.');
  }
  if (settings.cache !== undefined && !isCacheOption(settings.cache)) {
    throw new TypeError('cache must have get and set (or getItem and setItem) methods.');
  }
  root.search = '';
  root.hash = '';
  const custom = settings.fetch;
  return {
    apiBase: root.href.replace(/\/+$/, '') + API_PATH,
    productId: Number(id),
    timeout,
    retries,
    clockTolerance: nonNegative(
      'clockTolerance',
      settings.clockTolerance,
      DEFAULT_CLOCK_TOLERANCE_MS,
    ),
    offlineGrace: nonNegative('offlineGrace', settings.offlineGrace, DEFAULT_OFFLINE_GRACE_MS),
    retryBaseDelay: nonNegative(
      'retryBaseDelay',
      settings.retryBaseDelay,
      DEFAULT_RETRY_BASE_DELAY_MS,
    ),
    negativeCacheTtl: nonNegative(
      'negativeCacheTtl',
      settings.negativeCacheTtl,
      DEFAULT_NEGATIVE_CACHE_MS,
    ),
    // Called unbound: browsers refuse `fetch` called as a method of another object.
    fetcher: (input, init) => (custom ?? globalThis.fetch)(input, init),
    headers: { ...settings.headers },
    keys: settings.keys,
    cache: settings.cache,
    now: settings.now ?? Date.now,
  };
}
