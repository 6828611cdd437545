/**
 * The reference client of the Licensing Service Interface (spec 4.5, 7 and 9). It never throws
 * for a failed call: every method resolves to a `LicensingResult`. With the server's public keys
 * pinned it verifies every answer before reading it; with a store it keeps what offline checks
 * need. README.md documents the rules (verification, the offline grace, retries, the negative
 * cache).
 */
import { NONCE_HEADER, toBase64, fromBase64, type JwkSet } from '../../signatures/index.js';
import {
  blobSink,
  expectationsOf,
  filenameFrom,
  normaliseSha256,
  streamSink,
  type DownloadDestination,
  type DownloadOptions,
  type Sink,
} from './download.js';
import {
  clientFailure,
  connectionFailure,
  Deadline,
  interpret,
  interpretKeySet,
  invalidResponse,
  isInvalidResponse,
} from './http.js';
import {
  defaultTimers,
  DEFAULT_HEARTBEAT_RETRY_DELAY_MS,
  DEFAULT_NO_LEASE_INTERVAL_MS,
  runHeartbeat,
  type Beat,
  type Heartbeat,
  type HeartbeatOptions,
} from './heartbeat.js';
import { checkLicenseFile, clockTampered, signatureInvalid } from './license-file.js';
import { fileSink } from './node-file.js';
import {
  classifyResult,
  type ActivationData,
  type CheckoutData,
  type DownloadData,
  type FailureResult,
  type LicenseFileData,
  type LicensingResult,
  type UpdateInfo,
  type ValidationData,
} from './result.js';
import { Sha256 } from './sha256.js';
import {
  bounded,
  isCacheOption,
  SafeStore,
  SignedTime,
  STORE_PREFIX,
  type CacheOption,
} from './store.js';
import {
  isKeysOption,
  newNonce,
  pinKeys,
  requestContentDigest,
  verifyAnswer,
  type KeysOption,
  type PinnedKeys,
} from './verify.js';

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

type Fields = Record<string, string | number | null | undefined>;

/** One HTTP call of the JSON API. */
interface Operation {
  method: 'GET' | 'POST';
  url: string;
  body?: string;
  /** Safe to repeat: retried after transient failures, shared in flight, negative-cached. */
  repeatable: boolean;
  /** The server signs the answer: verified when keys are pinned. */
  signed: boolean;
  /** The answer is a JWK Set, not an envelope. */
  keySet?: boolean;
}

/** The answer a verification accepted, kept for the offline grace and checked again there. */
interface SignedAnswer {
  method: string;
  url: string;
  nonce: string;
  /** The `Content-Digest` of the request's body, which the signature covers; null without one. */
  requestDigest: string | null;
  status: number;
  headers: Record<string, string>;
  /** Base64 of the body's bytes. */
  body: string;
}

/** When an answer came: by the client's clock, and by the server's when it said. */
interface AnswerTime {
  /** The client's clock (`now`) when the answer was read, in ms. */
  received: number;
  /**
   * The server's time of the answer, in ms, to the second: the signature's `created` when
   * verified, else the `Date` header; null without either.
   */
  server: number | null;
}

interface Outcome<T> {
  result: LicensingResult<T>;
  /** The verified answer (with its signature's `created`, in ms), or null. */
  signed: { answer: SignedAnswer; created: number } | null;
  timedOut: boolean;
  /** Null when no answer was received. */
  time: AnswerTime | null;
}

const SIGNED_HEADERS = ['signature-input', 'signature', 'content-digest', NONCE_HEADER];

const copy = <T>(outcome: Outcome<T>): Outcome<T> => ({
  ...outcome,
  result: { ...outcome.result },
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new TypeError(`${name} must be a non-negative number of milliseconds: ${value}`);
  }
  return value;
}

export class LicensingClient {
  /** `{store root}/api/index.php/v1/licensing`. */
  readonly apiBase: string;
  readonly productId: number;
  /** Milliseconds. */
  readonly timeout: number;
  /** Milliseconds. */
  readonly clockTolerance: number;
  /** Milliseconds. */
  readonly offlineGrace: number;
  readonly retries: number;
  /** Whether answers are verified (keys were given). */
  readonly verifying: boolean;
  private readonly fetcher: typeof fetch;
  private readonly headers: Record<string, string>;
  private readonly pinned: Promise<PinnedKeys> | null;
  private readonly store: SafeStore | null;
  private readonly signedTime: SignedTime;
  private readonly retryBaseDelay: number;
  private readonly negativeCacheTtl: number;
  private readonly now: () => number;
  private readonly inFlight = new Map<string, Promise<Outcome<unknown>>>();
  private readonly failures = new Map<string, { until: number; outcome: Outcome<unknown> }>();

  /**
   * @param storeUrl the store root URL, with or without a trailing slash
   * @param productId the product this software is (sent as `product_id` with every call)
   * @param options the timeout in milliseconds, or options
   */
  constructor(storeUrl: string, productId: number | string, options: number | ClientOptions = {}) {
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
    this.apiBase = root.href.replace(/\/+$/, '') + API_PATH;
    this.productId = Number(id);
    this.timeout = timeout;
    this.retries = retries;
    this.clockTolerance = nonNegative(
      'clockTolerance',
      settings.clockTolerance,
      DEFAULT_CLOCK_TOLERANCE_MS,
    );
    this.offlineGrace = nonNegative(
      'offlineGrace',
      settings.offlineGrace,
      DEFAULT_OFFLINE_GRACE_MS,
    );
    this.retryBaseDelay = nonNegative(
      'retryBaseDelay',
      settings.retryBaseDelay,
      DEFAULT_RETRY_BASE_DELAY_MS,
    );
    this.negativeCacheTtl = nonNegative(
      'negativeCacheTtl',
      settings.negativeCacheTtl,
      DEFAULT_NEGATIVE_CACHE_MS,
    );
    const custom = settings.fetch;
    // Called unbound: browsers refuse `fetch` called as a method of another object.
    this.fetcher = (input, init) => (custom ?? globalThis.fetch)(input, init);
    this.headers = { ...settings.headers };
    this.pinned = settings.keys === undefined ? null : pinKeys(settings.keys);
    // A key set that cannot be read verifies nothing; it never becomes an unhandled rejection.
    this.pinned?.catch(() => undefined);
    this.verifying = this.pinned !== null;
    this.store = settings.cache ? new SafeStore(settings.cache) : null;
    this.signedTime = new SignedTime(this.store);
    this.now = settings.now ?? Date.now;
  }

  /** Spec 4.1: registers `identifier` on the license. Idempotent, so retried. */
  async activate(
    key: string,
    identifier: string,
    name?: string,
  ): Promise<LicensingResult<ActivationData>> {
    const operation = this.post('licenses/activate', { license_key: key, identifier, name }, true);
    return (await this.request<ActivationData>(operation)).result;
  }

  /**
   * Spec 4.2: whether the license is usable, and whether `identifier` (if given) is activated.
   * With keys and a cache, a transient failure is answered from the last verified validation of
   * the same key, identifier and product, within the offline grace (`stale: true`).
   */
  async validate(key: string, identifier?: string): Promise<LicensingResult<ValidationData>> {
    return (await this.validation(key, identifier)).result;
  }

  /**
   * Renews the lease of `identifier`'s activation: a validate with the identifier, verified,
   * retried and answered from the offline grace as `validate` is. `data.lease_expires_at` is when
   * the lease now ends (null: the plan has none). An answer from the offline grace
   * (`stale: true`) renewed nothing. Without an identifier nothing is sent (`INVALID_REQUEST`).
   */
  async heartbeat(key: string, identifier: string): Promise<LicensingResult<ValidationData>> {
    return (await this.beat(key, identifier)).result;
  }

  /**
   * Sends a heartbeat now, then again at a third of the lease each answer gives, until
   * `stop()`; see `HeartbeatOptions` and README.md for what happens without a lease, after a
   * failure and on a verdict. Its timers never keep Node running on their own. Throws a
   * `TypeError` for an empty key or identifier, or an invalid option.
   */
  startHeartbeat(key: string, identifier: string, options: HeartbeatOptions = {}): Heartbeat {
    if (typeof key !== 'string' || key === '') {
      throw new TypeError('A heartbeat needs the license key.');
    }
    if (typeof identifier !== 'string' || identifier === '') {
      throw new TypeError('A heartbeat needs the identifier whose lease it renews.');
    }
    const retryDelay = nonNegative(
      'retryDelay',
      options.retryDelay,
      DEFAULT_HEARTBEAT_RETRY_DELAY_MS,
    );
    const noLeaseInterval =
      options.noLeaseInterval === null
        ? null
        : nonNegative('noLeaseInterval', options.noLeaseInterval, DEFAULT_NO_LEASE_INTERVAL_MS);
    if (noLeaseInterval === 0) {
      throw new TypeError('noLeaseInterval must be positive, or null to stop without a lease.');
    }
    return runHeartbeat(() => this.beat(key, identifier), {
      onResult: options.onResult,
      retryDelay,
      noLeaseInterval,
      negativeCacheTtl: this.negativeCacheTtl,
      signal: options.signal,
      timers: options.timers ?? defaultTimers,
    });
  }

  /** A heartbeat's answer and the lease it gave, measured from the server's time of the answer. */
  private async beat(key: string, identifier: string): Promise<Beat> {
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
    const { result, time } = await this.validation(key, identifier);
    if (!result.success || result.stale || time === null) return { result, lease: null };
    const leaseEnd = result.data?.lease_expires_at;
    const end = typeof leaseEnd === 'string' ? Date.parse(leaseEnd) : NaN;
    if (Number.isNaN(end)) return { result, lease: null };
    // The device's clock may be off: it is used only within the second the server named.
    const answered =
      time.server === null
        ? time.received
        : Math.min(Math.max(time.received, time.server), time.server + 999);
    return { result, lease: end - answered };
  }

  /** `validate`, with the time of its answer (null for one from the offline grace). */
  private async validation(
    key: string,
    identifier: string | undefined,
  ): Promise<{ result: LicensingResult<ValidationData>; time: AnswerTime | null }> {
    const operation = this.post('licenses/validate', { license_key: key, identifier }, true);
    const store = this.pinned && this.offlineGrace > 0 ? this.store : null;
    if (store === null) return await this.request<ValidationData>(operation);

    const until = Date.now() + this.timeout;
    const entry = `${STORE_PREFIX}validate:${this.entryName(key, identifier)}`;
    // Read while the request runs, so the grace costs no wait of its own.
    const stored = store.read(entry);
    const outcome = await this.request<ValidationData>(operation);
    const { result, signed } = outcome;
    const kind = classifyResult(result);
    if (signed !== null && (result.success || kind === 'license')) {
      // A verified verdict replaces the last one, good or not: a revoked license stays revoked.
      await bounded(
        store.write(entry, JSON.stringify(signed.answer)),
        until - Date.now(),
        undefined,
      );
      return outcome;
    }
    if (kind !== 'transient' || result.success) return outcome;
    const text = await bounded(stored, until - Date.now(), null);
    return { result: await this.offline(result, text, operation, until), time: null };
  }

  /** Spec 4.3: frees the activation of `identifier`. Not retried (see README.md). */
  async deactivate(key: string, identifier: string): Promise<LicensingResult<ActivationData>> {
    const operation = this.post('licenses/deactivate', { license_key: key, identifier }, false);
    return (await this.request<ActivationData>(operation)).result;
  }

  /** Spec 4.4: the latest published version; the key (optional) scopes it and adds license state. */
  async checkUpdate(key?: string): Promise<LicensingResult<UpdateInfo>> {
    const url = new URL(`${this.apiBase}/updates/${this.productId}`);
    if (key) url.searchParams.set('license_key', key);
    const operation: Operation = { method: 'GET', url: url.href, repeatable: true, signed: true };
    return (await this.request<UpdateInfo>(operation)).result;
  }

  /**
   * `POST /licenses/checkout`: an offline license file for an activated identifier, for `ttl`
   * seconds (optional; the server refuses one over its maximum, 30 days by default), at most
   * until the activation's lease on a plan with one (the checkout renews it): `data.expires_at`
   * is when the file ends. With keys the file is verified as `verifyLicenseFile` does (without
   * the identifier, which the server normalised) before it is handed out. Not retried.
   */
  async checkout(
    key: string,
    identifier: string,
    ttl?: number,
  ): Promise<LicensingResult<CheckoutData>> {
    const fields = { license_key: key, identifier, ttl };
    const outcome = await this.request<CheckoutData>(this.post('licenses/checkout', fields, false));
    const result = outcome.result;
    if (this.pinned === null || !result.success) return result;
    const checked = await this.verifyLicenseFile(result.data?.license_file);
    return checked.success ? result : { ...checked, httpStatus: result.httpStatus };
  }

  /**
   * Checks a license file offline, against the pinned keys only: `SIGNATURE_INVALID` (not signed
   * by a pinned key, altered, not a license file), `CLOCK_TAMPERED`, `PRODUCT_MISMATCH` (another
   * product than this client's), `IDENTIFIER_MISMATCH` (when `identifier` is given),
   * `LICENSE_FILE_EXPIRED` (past its lease). On success, the license state the file holds.
   */
  async verifyLicenseFile(
    file: string | null | undefined,
    options: VerifyLicenseFileOptions = {},
  ): Promise<LicensingResult<LicenseFileData>> {
    const now = options.now === undefined ? this.now() : Number(options.now);
    return checkLicenseFile(file, {
      keys: this.pinned ? await this.pinned.catch(() => null) : null,
      productId: this.productId,
      identifier: options.identifier,
      now,
      clockTolerance: this.clockTolerance,
      signedTime: this.signedTime,
      until: Date.now() + this.timeout,
    });
  }

  /**
   * `GET {api_base}/keys`: the server's public key set, a JWK Set (not in a data envelope), to
   * save and pin. Not verified: pin a set obtained over a channel you trust.
   */
  async fetchKeys(): Promise<LicensingResult<JwkSet>> {
    const operation: Operation = {
      method: 'GET',
      url: `${this.apiBase}/keys`,
      repeatable: true,
      signed: false,
      keySet: true,
    };
    return (await this.request<JwkSet>(operation)).result;
  }

  /**
   * Spec 4.5: downloads the package. Sends the key as `dlid` and the identifier, with
   * `Accept: application/json`; saves the body only on HTTP 200, otherwise returns the JSON error.
   *
   * @param destination a file path or an existing directory (Node), a `WritableStream` (any
   *   runtime; aborted if the download fails), or `null` to get the package as `data.blob`.
   */
  async download(
    key: string,
    identifier: string | null | undefined,
    destination: DownloadDestination,
    options: DownloadOptions = {},
  ): Promise<LicensingResult<DownloadData>> {
    options = withUpdate(options);
    let url: URL;
    try {
      url = new URL(options.url ?? `${this.apiBase}/downloads/${this.productId}`);
    } catch {
      return clientFailure(`Invalid download URL: ${options.url}`);
    }
    url.searchParams.set('dlid', key);
    if (identifier) url.searchParams.set('identifier', identifier);

    const deadline = new Deadline(this.timeout, options.signal);
    try {
      let response: Response;
      try {
        response = await this.fetcher(url.href, {
          method: 'GET',
          headers: { ...this.headers, Accept: 'application/json' },
          // A gateway with DOWNLOAD_DELIVERY=redirect answers 302 to the object store.
          redirect: 'follow',
          signal: deadline.signal,
        });
      } catch (error) {
        return connectionFailure(error, deadline);
      }
      if (response.status !== 200) {
        let text: string;
        try {
          text = await response.text();
        } catch (error) {
          return connectionFailure(error, deadline, undefined, response.status);
        }
        const result = interpret<DownloadData>(response.status, response.headers, text);
        // Only a 200 carries a package; anything else must be an error envelope.
        return result.success ? invalidResponse(response.status, response.headers) : result;
      }
      return await this.save(response, destination, options, deadline);
    } finally {
      deadline.clear();
    }
  }

  private async save(
    response: Response,
    destination: DownloadDestination,
    options: DownloadOptions,
    deadline: Deadline,
  ): Promise<LicensingResult<DownloadData>> {
    const status = response.status;
    const expected = expectationsOf(response.headers);
    const wanted = options.expectedSha256;
    if (wanted !== undefined) {
      expected.sha256.push({ source: 'expectedSha256', hex: normaliseSha256(wanted) ?? wanted });
    }
    const filename =
      filenameFrom(response.headers.get('content-disposition')) ?? `product-${this.productId}`;
    const contentType = response.headers.get('content-type');
    const total = expected.contentLength ?? options.expectedSize ?? null;

    let sink: Sink;
    try {
      if (typeof destination === 'string') sink = await fileSink(destination, filename);
      else if (destination === null) sink = blobSink(contentType);
      else sink = streamSink(destination);
    } catch (error) {
      await response.body?.cancel().catch(() => undefined);
      return clientFailure(`Could not write the package: ${messageOf(error)}`, status);
    }

    const fail = async (failure: FailureResult) => {
      await sink.discard(new Error(failure.message));
      return failure;
    };
    const progress = (received: number) => {
      try {
        options.onProgress?.({ received, total });
      } catch {
        // A failing progress display must not fail the download.
      }
    };

    let received = 0;
    progress(0);
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        deadline.restart();
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          const of = total === null ? '' : ` of ${total}`;
          return fail(
            connectionFailure(
              error,
              deadline,
              `the download stopped after ${received}${of} bytes`,
              status,
            ),
          );
        }
        // Only the server's silence counts: a slow destination does not time the download out.
        deadline.pause();
        if (chunk.done) break;
        try {
          await sink.write(chunk.value);
        } catch (error) {
          await reader.cancel().catch(() => undefined);
          return fail(clientFailure(`Could not write the package: ${messageOf(error)}`, status));
        }
        received += chunk.value.length;
        progress(received);
      }
    }
    deadline.clear();

    for (const size of [expected.contentLength, options.expectedSize]) {
      if (size !== null && size !== undefined && size !== received) {
        return fail(
          clientFailure(
            `Download verification failed: expected ${size} bytes, received ${received}.`,
            status,
          ),
        );
      }
    }
    const sha256 = sink.digest();
    for (const { source, hex } of expected.sha256) {
      if (hex !== sha256) {
        return fail(
          clientFailure(
            `Download verification failed: the SHA-256 checksum does not match ${source} (expected ${hex}, received ${sha256}).`,
            status,
          ),
        );
      }
    }

    let saved: { path: string | null; blob: Blob | null };
    try {
      saved = await sink.commit();
    } catch (error) {
      return fail(clientFailure(`Could not write the package: ${messageOf(error)}`, status));
    }
    return {
      success: true,
      data: {
        filename,
        path: saved.path,
        blob: saved.blob,
        size: received,
        sha256,
        contentType,
        checksumVerified: expected.sha256.length > 0,
      },
      message: '',
      code: '',
      httpStatus: status,
    };
  }

  /** The answer of the offline grace to a transient failure of validate, or the failure. */
  private async offline(
    failure: FailureResult,
    stored: string | null,
    operation: Operation,
    until: number,
  ): Promise<LicensingResult<ValidationData>> {
    const keys = await this.pinned?.catch(() => null);
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
        this.now(),
        this.clockTolerance,
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

    const now = this.now();
    const created = verified.created * 1000;
    const latest = Math.max(await this.signedTime.get(until), created);
    if (now < latest - this.clockTolerance) return clockTampered(now, latest);
    if (now - created > this.offlineGrace) return failure;
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

  /** The store entry of a validation: a digest, so the store does not hold the key in its names. */
  private entryName(key: string, identifier: string | undefined): string {
    const text = [this.apiBase, this.productId, key, identifier ?? ''].join('\n');
    return new Sha256().update(new TextEncoder().encode(text)).hex();
  }

  private post(operation: string, fields: Fields, repeatable: boolean): Operation {
    const body = new URLSearchParams();
    const all: Fields = { ...fields, product_id: this.productId };
    for (const [name, value] of Object.entries(all)) {
      if (value !== undefined && value !== null && value !== '') body.set(name, String(value));
    }
    return {
      method: 'POST',
      url: `${this.apiBase}/${operation}`,
      body: body.toString(),
      repeatable,
      signed: true,
    };
  }

  /**
   * A call that is safe to repeat shares an identical call in flight, and gets a transient
   * failure of an identical call from the last `negativeCacheTtl` milliseconds without a request.
   */
  private request<T>(operation: Operation): Promise<Outcome<T>> {
    if (!operation.repeatable) return this.attempts<T>(operation);
    const id = `${operation.method} ${operation.url}\n${operation.body ?? ''}`;
    const now = this.now();
    for (const [name, remembered] of this.failures) {
      if (remembered.until <= now) this.failures.delete(name);
    }
    const remembered = this.failures.get(id);
    if (remembered) return Promise.resolve(copy(remembered.outcome as Outcome<T>));
    let pending = this.inFlight.get(id) as Promise<Outcome<T>> | undefined;
    if (pending === undefined) {
      pending = this.attempts<T>(operation).then((outcome) => {
        this.inFlight.delete(id);
        if (this.negativeCacheTtl > 0 && classifyResult(outcome.result) === 'transient') {
          this.failures.set(id, { until: this.now() + this.negativeCacheTtl, outcome });
        }
        return outcome;
      });
      this.inFlight.set(id, pending);
    }
    return pending.then(copy);
  }

  /**
   * Sends the call, and for a call safe to repeat retries it after a transient failure, at most
   * `retries` times: after a jittered exponential delay, never before `Retry-After`, and only
   * while the wait and a fair share of time for the next attempt fit in the call's timeout.
   */
  private async attempts<T>(operation: Operation): Promise<Outcome<T>> {
    const deadline = Date.now() + this.timeout;
    const reserve = Math.min(1000, this.timeout / 4);
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.exchange<T>(operation, deadline);
      const { result } = outcome;
      if (!operation.repeatable || attempt >= this.retries || outcome.timedOut) return outcome;
      if (result.success || classifyResult(result) !== 'transient') return outcome;
      let wait = this.retryBaseDelay * 2 ** attempt * (0.5 + Math.random() / 2);
      if (result.retryAfter !== undefined) wait = Math.max(wait, result.retryAfter * 1000);
      if (wait + reserve > deadline - Date.now()) return outcome;
      await sleep(wait);
    }
  }

  /** One HTTP exchange: the request (with a fresh nonce when verifying) and its answer, verified. */
  private async exchange<T>(operation: Operation, until: number): Promise<Outcome<T>> {
    const keys = operation.signed && this.pinned ? await this.pinned.catch(() => null) : null;
    const verifying = operation.signed && this.pinned !== null;
    const nonce = verifying ? newNonce() : null;
    // Sent with the body, checked by the server and covered by the answer's signature: an answer
    // to a request with other form fields (another key) cannot pass for this one's.
    const requestDigest =
      verifying && operation.body !== undefined ? await requestContentDigest(operation.body) : null;
    const deadline = new Deadline(Math.max(1, until - Date.now()), undefined, this.timeout);
    const unsigned = (
      result: LicensingResult<T>,
      time: AnswerTime | null,
      timedOut = false,
    ): Outcome<T> => ({ result, signed: null, timedOut, time });
    try {
      let response: Response | undefined;
      let bytes: Uint8Array;
      try {
        response = await this.fetcher(operation.url, {
          method: operation.method,
          headers: {
            ...this.headers,
            Accept: 'application/json',
            ...(operation.body === undefined
              ? {}
              : { 'Content-Type': 'application/x-www-form-urlencoded' }),
            ...(nonce === null ? {} : { [NONCE_HEADER]: nonce }),
            ...(requestDigest === null ? {} : { 'Content-Digest': requestDigest }),
          },
          body: operation.body,
          signal: deadline.signal,
        });
        bytes = new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        return unsigned(
          connectionFailure(error, deadline, undefined, response?.status ?? 0),
          null,
          deadline.timedOut,
        );
      }
      const { status, headers } = response;
      const dated = Date.parse(headers.get('date') ?? '');
      const time: AnswerTime = {
        received: this.now(),
        server: Number.isNaN(dated) ? null : dated,
      };
      const text = new TextDecoder().decode(bytes);
      const result = operation.keySet
        ? interpretKeySet<T>(status, headers, text)
        : interpret<T>(status, headers, text);
      // An answer with nothing readable says nothing, signed or not; anything else is read only
      // once verified.
      if (!verifying || nonce === null || isInvalidResponse(result)) return unsigned(result, time);
      const answer: SignedAnswer = {
        method: operation.method,
        url: operation.url,
        nonce,
        requestDigest,
        status,
        headers: {},
        body: toBase64(bytes),
      };
      for (const name of SIGNED_HEADERS) {
        const value = headers.get(name);
        if (value !== null) answer.headers[name] = value;
      }
      const verified = keys
        ? await verifyAnswer(
            keys,
            { ...answer, headers, body: bytes },
            this.now(),
            this.clockTolerance,
          )
        : 'the pinned keys could not be read';
      if (typeof verified === 'string') {
        return unsigned(
          signatureInvalid(`The server's answer failed verification: ${verified}.`, status),
          time,
        );
      }
      const created = verified.created * 1000;
      await this.signedTime.note(created, until);
      // What the server signed is its time; the Date header is not covered by the signature.
      return {
        result,
        signed: { answer, created },
        timedOut: false,
        time: { ...time, server: created },
      };
    } finally {
      deadline.clear();
    }
  }
}

export interface OfflineVerifyOptions extends VerifyLicenseFileOptions {
  /** The server's public keys, pinned, as the client's `keys` option. */
  keys: KeysOption;
  /** The product this software is. */
  productId: number | string;
  /** The client's `cache` option: the latest signed time it remembers, updated with the file's. */
  cache?: CacheOption;
  /** As the client's option, in milliseconds (default 5 minutes). */
  clockTolerance?: number;
}

/**
 * `LicensingClient.verifyLicenseFile` without a client, for software that only ever checks
 * files offline (no store URL needed).
 */
export async function verifyLicenseFile(
  file: string | null | undefined,
  options: OfflineVerifyOptions,
): Promise<LicensingResult<LicenseFileData>> {
  const { keys, productId, cache, clockTolerance, ...check } = options;
  // The store URL is not used offline; the client checks the other options as it always does.
  const client = new LicensingClient('http://offline.invalid', productId, {
    keys,
    cache,
    clockTolerance,
  });
  return client.verifyLicenseFile(file, check);
}

/** The download options with what a (verified) update check said: URL, size and SHA-256. */
function withUpdate(options: DownloadOptions): DownloadOptions {
  const update = options.update;
  if (!update?.update_available) return options;
  const sha256 = (update as { sha256?: unknown }).sha256;
  return {
    ...options,
    url: options.url ?? update.download_url ?? undefined,
    expectedSize: options.expectedSize ?? update.file_size,
    expectedSha256:
      options.expectedSha256 ?? (typeof sha256 === 'string' && sha256 !== '' ? sha256 : undefined),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
