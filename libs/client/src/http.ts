/** Turning fetch outcomes into results (spec 7, rule 3). */
import type { FailureResult, LicensingResult } from './result.js';

export const INVALID_RESPONSE = 'Invalid response from server.';
export const CONNECTION_ERROR = 'Connection error:';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Seconds from a `Retry-After` header: delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function withRetryAfter(result: FailureResult, headers: Headers | null): FailureResult {
  const retryAfter = parseRetryAfter(headers?.get('retry-after') ?? null);
  return retryAfter === undefined ? result : { ...result, retryAfter };
}

export function invalidResponse(status: number, headers: Headers | null): FailureResult {
  return withRetryAfter(
    { success: false, data: null, message: INVALID_RESPONSE, code: '', httpStatus: status },
    headers,
  );
}

/** A failure of the client itself, before or after the HTTP exchange (empty code). */
export function clientFailure(message: string, status = 0, code = ''): FailureResult {
  return { success: false, data: null, message, code, httpStatus: status };
}

/** Whether a result is `Invalid response from server.`: an answer that said nothing readable. */
export function isInvalidResponse(result: LicensingResult<unknown>): boolean {
  return !result.success && result.code === '' && result.message === INVALID_RESPONSE;
}

/** `GET /keys`: the JWK Set itself (no `data` envelope), or an error envelope. */
export function interpretKeySet<T>(
  status: number,
  headers: Headers,
  text: string,
): LicensingResult<T> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return invalidResponse(status, headers);
  }
  if (status >= 200 && status < 300 && isRecord(body) && Array.isArray(body.keys)) {
    return { success: true, data: body as T, message: '', code: '', httpStatus: status };
  }
  const result = interpret<T>(status, headers, text);
  return result.success ? invalidResponse(status, headers) : result;
}

/** The result of an HTTP answer's JSON body: the `data` envelope, the `error` envelope, or neither. */
export function interpret<T>(status: number, headers: Headers, text: string): LicensingResult<T> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return invalidResponse(status, headers);
  }
  if (!isRecord(body)) return invalidResponse(status, headers);
  const error = body.error;
  if (isRecord(error) && typeof error.code === 'string' && error.code !== '') {
    const { code, message, ...rest } = error;
    const failure: FailureResult = {
      success: false,
      data: null,
      message: typeof message === 'string' && message !== '' ? message : code,
      code,
      httpStatus: status,
    };
    if (Object.keys(rest).length > 0) failure.details = rest;
    return withRetryAfter(failure, headers);
  }
  if ('data' in body && status >= 200 && status < 300) {
    return {
      success: true,
      data: (body.data ?? null) as T,
      message: '',
      code: '',
      httpStatus: status,
    };
  }
  return invalidResponse(status, headers);
}

/** Aborts a request when it takes too long; `restart` turns it into an idle timer for downloads. */
export class Deadline {
  readonly controller = new AbortController();
  timedOut = false;
  cancelled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onExternalAbort = () => {
    this.cancelled = true;
    this.controller.abort(new Error('The request was cancelled.'));
  };

  /**
   * @param ms how long until the request is aborted
   * @param external the caller's signal, which cancels the request
   * @param timeoutMs the client's timeout, as a timeout message names it (default `ms`)
   */
  constructor(
    readonly ms: number,
    private readonly external?: AbortSignal,
    readonly timeoutMs = ms,
  ) {
    if (external?.aborted) this.onExternalAbort();
    else external?.addEventListener('abort', this.onExternalAbort, { once: true });
    this.restart();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  restart(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error('The request timed out.'));
    }, this.ms);
  }

  /** Stops the timer (while the client itself is busy, e.g. writing a chunk). */
  pause(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  clear(): void {
    this.pause();
    this.external?.removeEventListener('abort', this.onExternalAbort);
  }
}

/** The most specific text of a fetch failure: undici hides the socket error in `cause`. */
function describe(error: unknown): string {
  let current: unknown = error;
  let text = '';
  for (let depth = 0; depth < 4 && isRecord(current); depth++) {
    const message = typeof current.message === 'string' ? current.message : '';
    const code = typeof current.code === 'string' ? current.code : '';
    if (message !== '' && message !== 'fetch failed') text = message;
    else if (code !== '' && text === '') text = code;
    current = current.cause;
  }
  if (text === '' && error instanceof Error) text = error.message;
  return text === '' ? 'the request failed' : text;
}

function seconds(ms: number): string {
  const value = ms / 1000;
  return `${value} second${value === 1 ? '' : 's'}`;
}

/** `Connection error: ...` for a network failure, a timeout or a cancellation. */
export function connectionFailure(
  error: unknown,
  deadline: Deadline,
  what?: string,
  status = 0,
): FailureResult {
  let detail: string;
  if (deadline.timedOut) detail = `no answer from the server within ${seconds(deadline.timeoutMs)}`;
  else if (deadline.cancelled) detail = 'the request was cancelled';
  else detail = describe(error);
  return clientFailure(`${CONNECTION_ERROR} ${what ? `${what} (${detail})` : detail}.`, status);
}
