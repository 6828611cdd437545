/**
 * Retries and the negative cache (README.md): a call that is safe to repeat is retried after a
 * transient failure, shares an identical call in flight, and gets a transient failure of an
 * identical call from the last `negativeCacheTtl` milliseconds without a request.
 */
import { exchange, type Connection, type Operation, type Outcome } from './exchange.js';
import { classifyResult } from './result.js';

const copy = <T>(outcome: Outcome<T>): Outcome<T> => ({
  ...outcome,
  result: { ...outcome.result },
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface RetrySettings {
  retries: number;
  /** Milliseconds. */
  retryBaseDelay: number;
  /** Milliseconds. */
  negativeCacheTtl: number;
}

export class Requests {
  private readonly inFlight = new Map<string, Promise<Outcome<unknown>>>();
  private readonly failures = new Map<string, { until: number; outcome: Outcome<unknown> }>();

  constructor(
    private readonly connection: Connection,
    private readonly settings: RetrySettings,
  ) {}

  /** The call's outcome, shared or remembered when it is safe to repeat. */
  request<T>(operation: Operation): Promise<Outcome<T>> {
    if (!operation.repeatable) return this.attempts<T>(operation);
    const id = `${operation.method} ${operation.url}\n${operation.body ?? ''}`;
    const now = this.connection.now();
    for (const [name, remembered] of this.failures) {
      if (remembered.until <= now) this.failures.delete(name);
    }
    const remembered = this.failures.get(id);
    if (remembered) return Promise.resolve(copy(remembered.outcome as Outcome<T>));
    let pending = this.inFlight.get(id) as Promise<Outcome<T>> | undefined;
    if (pending === undefined) {
      pending = this.attempts<T>(operation).then((outcome) => {
        this.inFlight.delete(id);
        const ttl = this.settings.negativeCacheTtl;
        if (ttl > 0 && classifyResult(outcome.result) === 'transient') {
          this.failures.set(id, { until: this.connection.now() + ttl, outcome });
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
    const { timeout } = this.connection;
    const { retries, retryBaseDelay } = this.settings;
    const deadline = Date.now() + timeout;
    const reserve = Math.min(1000, timeout / 4);
    for (let attempt = 0; ; attempt++) {
      const outcome = await exchange<T>(this.connection, operation, deadline);
      const { result } = outcome;
      if (!operation.repeatable || attempt >= retries || outcome.timedOut) return outcome;
      if (result.success || classifyResult(result) !== 'transient') return outcome;
      let wait = retryBaseDelay * 2 ** attempt * (0.5 + Math.random() / 2);
      if (result.retryAfter !== undefined) wait = Math.max(wait, result.retryAfter * 1000);
      if (wait + reserve > deadline - Date.now()) return outcome;
      await sleep(wait);
    }
  }
}
