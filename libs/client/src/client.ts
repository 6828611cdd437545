/**
 * The reference client of the Licensing Service Interface (spec 4.5, 7 and 9). It never throws
 * for a failed call: every method resolves to a `LicensingResult`.
 */
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
import { clientFailure, connectionFailure, Deadline, interpret, invalidResponse } from './http.js';
import { fileSink } from './node-file.js';
import type {
  ActivationData,
  DownloadData,
  FailureResult,
  LicensingResult,
  UpdateInfo,
  ValidationData,
} from './result.js';

/** Spec 9: the client appends this to the store root URL. */
export const API_PATH = '/api/index.php/v1/licensing';
/** Spec 8: default request timeout of the reference client. */
export const DEFAULT_TIMEOUT_MS = 15_000;

export interface ClientOptions {
  /** Request timeout in milliseconds (default 15 000). For downloads it is the longest silence. */
  timeout?: number;
  /** A fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
  /** Extra request headers, e.g. a `User-Agent` where the runtime allows one. */
  headers?: Record<string, string>;
}

type Fields = Record<string, string | number | null | undefined>;

export class LicensingClient {
  /** `{store root}/api/index.php/v1/licensing`. */
  readonly apiBase: string;
  readonly productId: number;
  /** Milliseconds. */
  readonly timeout: number;
  private readonly fetcher: typeof fetch;
  private readonly headers: Record<string, string>;

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
    root.search = '';
    root.hash = '';
    this.apiBase = root.href.replace(/\/+$/, '') + API_PATH;
    this.productId = Number(id);
    this.timeout = timeout;
    const custom = settings.fetch;
    // Called unbound: browsers refuse `fetch` called as a method of another object.
    this.fetcher = (input, init) => (custom ?? globalThis.fetch)(input, init);
    this.headers = { ...settings.headers };
  }

  /** Spec 4.1: registers `identifier` on the license. Idempotent. */
  activate(
    key: string,
    identifier: string,
    name?: string,
  ): Promise<LicensingResult<ActivationData>> {
    return this.post('licenses/activate', { license_key: key, identifier, name });
  }

  /** Spec 4.2: whether the license is usable, and whether `identifier` (if given) is activated. */
  validate(key: string, identifier?: string): Promise<LicensingResult<ValidationData>> {
    return this.post('licenses/validate', { license_key: key, identifier });
  }

  /** Spec 4.3: frees the activation of `identifier`. */
  deactivate(key: string, identifier: string): Promise<LicensingResult<ActivationData>> {
    return this.post('licenses/deactivate', { license_key: key, identifier });
  }

  /** Spec 4.4: the latest published version; the key (optional) scopes it and adds license state. */
  checkUpdate(key?: string): Promise<LicensingResult<UpdateInfo>> {
    const url = new URL(`${this.apiBase}/updates/${this.productId}`);
    if (key) url.searchParams.set('license_key', key);
    return this.send<UpdateInfo>(url.href, { method: 'GET' });
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

  private post<T>(operation: string, fields: Fields): Promise<LicensingResult<T>> {
    const body = new URLSearchParams();
    const all: Fields = { ...fields, product_id: this.productId };
    for (const [name, value] of Object.entries(all)) {
      if (value !== undefined && value !== null && value !== '') body.set(name, String(value));
    }
    return this.send<T>(`${this.apiBase}/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
  }

  private async send<T>(url: string, init: RequestInit): Promise<LicensingResult<T>> {
    const deadline = new Deadline(this.timeout);
    try {
      let response: Response | undefined;
      let text: string;
      try {
        response = await this.fetcher(url, {
          ...init,
          headers: { ...this.headers, Accept: 'application/json', ...init.headers },
          signal: deadline.signal,
        });
        text = await response.text();
      } catch (error) {
        return connectionFailure(error, deadline, undefined, response?.status ?? 0);
      }
      return interpret<T>(response.status, response.headers, text);
    } finally {
      deadline.clear();
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
