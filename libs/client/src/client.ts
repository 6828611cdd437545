/**
 * The reference client of the Licensing Service Interface (spec 4.5, 7 and 9). It never throws
 * for a failed call: every method resolves to a `LicensingResult`. With the server's public keys
 * pinned it verifies every answer before reading it; with a store it keeps what offline checks
 * need. README.md documents the rules (verification, the offline grace, retries, the negative
 * cache).
 */
import type { JwkSet } from '../../signatures/index.js';
import type { DownloadDestination, DownloadOptions } from './downloads/download.js';
import { formOperation, type Connection, type Fields, type Operation } from './exchange.js';
import {
  heartbeatSettings,
  runHeartbeat,
  type Heartbeat,
  type HeartbeatOptions,
} from './validation/heartbeat.js';
import { checkLicenseFile } from './verification/license-file.js';
import { readOptions, type ClientOptions, type VerifyLicenseFileOptions } from './options.js';
import { downloadPackage } from './downloads/package-download.js';
import { Requests } from './requests.js';
import {
  type ActivationData,
  type CheckoutData,
  type DownloadData,
  type LicenseFileData,
  type LicensingResult,
  type ReleaseChannel,
  type TrialData,
  type UpdateInfo,
  type UsageData,
  type UsageOptions,
  type ValidateOptions,
  type ValidationData,
} from './result.js';
import { SafeStore, SignedTime } from './store.js';
import { beat, validation, type Validator } from './validation/validation.js';
import { pinKeys, type PinnedKeys } from './verification/verify.js';

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
  private readonly pinned: Promise<PinnedKeys> | null;
  private readonly signedTime: SignedTime;
  private readonly negativeCacheTtl: number;
  private readonly now: () => number;
  private readonly connection: Connection & { offlineGrace: number };
  private readonly requests: Requests;
  private readonly validator: Validator;

  /**
   * @param storeUrl the store root URL, with or without a trailing slash
   * @param productId the product this software is (sent as `product_id` with every call)
   * @param options the timeout in milliseconds, or options
   */
  constructor(storeUrl: string, productId: number | string, options: number | ClientOptions = {}) {
    const settings = readOptions(storeUrl, productId, options);
    this.apiBase = settings.apiBase;
    this.productId = settings.productId;
    this.timeout = settings.timeout;
    this.retries = settings.retries;
    this.clockTolerance = settings.clockTolerance;
    this.offlineGrace = settings.offlineGrace;
    this.negativeCacheTtl = settings.negativeCacheTtl;
    this.pinned = settings.keys === undefined ? null : pinKeys(settings.keys);
    // A key set that cannot be read verifies nothing; it never becomes an unhandled rejection.
    this.pinned?.catch(() => undefined);
    this.verifying = this.pinned !== null;
    const store = settings.cache ? new SafeStore(settings.cache) : null;
    this.signedTime = new SignedTime(store);
    this.now = settings.now;
    this.connection = {
      fetcher: settings.fetcher,
      headers: settings.headers,
      pinned: this.pinned,
      timeout: this.timeout,
      clockTolerance: this.clockTolerance,
      offlineGrace: this.offlineGrace,
      signedTime: this.signedTime,
      now: this.now,
    };
    this.requests = new Requests(this.connection, settings);
    this.validator = {
      apiBase: this.apiBase,
      productId: this.productId,
      timeout: this.timeout,
      connection: this.connection,
      requests: this.requests,
      graceStore: this.pinned && this.offlineGrace > 0 ? store : null,
    };
  }

  /** Spec 4.1: registers `identifier` on the license. Idempotent, so retried. */
  async activate(
    key: string,
    identifier: string,
    name?: string,
  ): Promise<LicensingResult<ActivationData>> {
    const operation = this.post('licenses/activate', { license_key: key, identifier, name }, true);
    return (await this.requests.request<ActivationData>(operation)).result;
  }

  /**
   * `POST /trials`: a trial license of this client's product for `identifier`, with the
   * identifier activated on it (docs/api-decisions.md, "Trials"). One per identifier and product,
   * ever: another is refused with `TRIAL_ALREADY_USED`. `email`, when given, is kept as the
   * license's customer and never answered. Not retried: a retried start is refused as a second.
   */
  async startTrial(
    identifier: string,
    options: { email?: string } = {},
  ): Promise<LicensingResult<TrialData>> {
    const operation = this.post('trials', { identifier, email: options.email }, false);
    return (await this.requests.request<TrialData>(operation)).result;
  }

  /**
   * Spec 4.2: whether the license is usable, and whether `identifier` (if given) is activated.
   * With keys and a cache, a transient failure is answered from the last verified validation of
   * the same key, identifier, product and entitlements, within the offline grace (`stale: true`).
   * `options` is the identifier, or `{ identifier?, entitlements? }`: the codes asked about are
   * sent as `entitlements=a,b`, and those the license lacks come back in `entitlements_missing`.
   */
  async validate(
    key: string,
    options?: string | ValidateOptions,
  ): Promise<LicensingResult<ValidationData>> {
    const settings: ValidateOptions =
      typeof options === 'string' ? { identifier: options } : (options ?? {});
    const entitlements = settings.entitlements?.join(',');
    return (await validation(this.validator, key, settings.identifier, entitlements)).result;
  }

  /**
   * Renews the lease of `identifier`'s activation: a validate with the identifier, verified,
   * retried and answered from the offline grace as `validate` is. `data.lease_expires_at` is when
   * the lease now ends (null: the plan has none). An answer from the offline grace
   * (`stale: true`) renewed nothing. Without an identifier nothing is sent (`INVALID_REQUEST`).
   */
  async heartbeat(key: string, identifier: string): Promise<LicensingResult<ValidationData>> {
    return (await beat(this.validator, key, identifier)).result;
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
    const settings = heartbeatSettings(options, this.negativeCacheTtl);
    return runHeartbeat(() => beat(this.validator, key, identifier), settings);
  }

  /** Spec 4.3: frees the activation of `identifier`. Not retried (see README.md). */
  async deactivate(key: string, identifier: string): Promise<LicensingResult<ActivationData>> {
    const operation = this.post('licenses/deactivate', { license_key: key, identifier }, false);
    return (await this.requests.request<ActivationData>(operation)).result;
  }

  /**
   * Spec 4.4: the latest published version; the key (optional) scopes it and adds license state.
   * `identifier` (the one the key is used on) places the caller in staged rollouts and `channel`
   * takes a less stable channel too (docs/updaters.md); pass the same to `download`.
   */
  async checkUpdate(
    key?: string,
    options: { identifier?: string; channel?: ReleaseChannel } = {},
  ): Promise<LicensingResult<UpdateInfo>> {
    const url = new URL(`${this.apiBase}/updates/${this.productId}`);
    if (key) url.searchParams.set('license_key', key);
    if (options.identifier) url.searchParams.set('identifier', options.identifier);
    if (options.channel && options.channel !== 'stable') {
      url.searchParams.set('channel', options.channel);
    }
    const operation: Operation = { method: 'GET', url: url.href, repeatable: true, signed: true };
    return (await this.requests.request<UpdateInfo>(operation)).result;
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
    const outcome = await this.requests.request<CheckoutData>(
      this.post('licenses/checkout', fields, false),
    );
    const result = outcome.result;
    if (this.pinned === null || !result.success) return result;
    const checked = await this.verifyLicenseFile(result.data?.license_file);
    return checked.success ? result : { ...checked, httpStatus: result.httpStatus };
  }

  /**
   * `POST /licenses/usage`: records uses on the license's usage counter (docs/api-decisions.md,
   * "Usage counters"); `data.uses` is the period's count after it. Retried with the same
   * idempotency key, which the server counts once. `USAGE_LIMIT_REACHED` carries `uses` and
   * `max_uses`.
   */
  async recordUsage(key: string, usage: UsageOptions = {}): Promise<LicensingResult<UsageData>> {
    const fields = {
      license_key: key,
      increment: usage.increment ?? 1,
      idempotency_key: usage.idempotencyKey ?? globalThis.crypto.randomUUID(),
      identifier: usage.identifier,
    };
    return (await this.requests.request<UsageData>(this.post('licenses/usage', fields, true)))
      .result;
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
    return (await this.requests.request<JwkSet>(operation)).result;
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
    const endpoint = `${this.apiBase}/downloads/${this.productId}`;
    const request = { key, identifier };
    return downloadPackage(
      this.connection,
      endpoint,
      this.productId,
      request,
      destination,
      options,
    );
  }

  private post(operation: string, fields: Fields, repeatable: boolean): Operation {
    return formOperation(`${this.apiBase}/${operation}`, fields, this.productId, repeatable);
  }
}
