/**
 * The heartbeat timer: keeps a leased activation alive by renewing it at a third of its lease,
 * one call at a time, backing off after failures. It depends on no runtime but `setTimeout`.
 */
import type { AnswerTime } from '../exchange.js';
import { clientFailure } from '../http.js';
import { nonNegative } from '../options.js';
import {
  classifyResult,
  retryDelay,
  type LicensingResult,
  type ValidationData,
} from '../result.js';

/** Milliseconds between checks while the answers carry no lease: one hour. */
export const DEFAULT_NO_LEASE_INTERVAL_MS = 60 * 60 * 1000;
/** Milliseconds before the first retry after a heartbeat that did not renew the lease. */
export const DEFAULT_HEARTBEAT_RETRY_DELAY_MS = 60_000;
/** The heartbeat never comes more often than this, whatever lease an answer gives. */
export const MIN_HEARTBEAT_INTERVAL_MS = 1000;
/** The longest delay `setTimeout` keeps (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What a heartbeat led to:
 * - `renewed`: the lease was renewed; the next heartbeat comes at a third of it;
 * - `no-lease`: the answer carries no lease (the plan has none); checked again after
 *   `noLeaseInterval`, or ended when that is `null`;
 * - `retrying`: the lease was not renewed (a transient failure, an answer from the offline grace,
 *   any other failure); retried after a backoff;
 * - `ended`: a verdict on the license or the activation (not valid, the identifier not activated:
 *   its lease lapsed or it was removed, a license problem code); the heartbeat has stopped.
 */
export type HeartbeatStatus = 'renewed' | 'no-lease' | 'retrying' | 'ended';

export interface HeartbeatEvent {
  status: HeartbeatStatus;
  /** Milliseconds until the next heartbeat; `null` when there is none (ended). */
  next: number | null;
  /** Milliseconds of lease the answer gave, from the server's time of the answer; else `null`. */
  lease: number | null;
  /** Heartbeats in a row that did not renew the lease; 0 after one that did. */
  failures: number;
}

/** The timer functions the heartbeat uses; by default `setTimeout`, unref'd in Node. */
export interface HeartbeatTimers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface HeartbeatOptions {
  /**
   * Called after every heartbeat with its result (as `heartbeat` answers it) and what comes
   * next, also for the answer that ends it; never after `stop()`. What it throws is ignored.
   */
  onResult?: (result: LicensingResult<ValidationData>, event: HeartbeatEvent) => void;
  /**
   * Milliseconds before the first retry after a heartbeat that did not renew the lease (default
   * 60 000); doubled after each further one, with up to 20 % jitter, up to the regular interval.
   */
  retryDelay?: number;
  /**
   * Milliseconds between checks while the answers carry no lease (default one hour), so a lease
   * the plan gains later is kept; `null` ends the heartbeat at the first answer without one.
   */
  noLeaseInterval?: number | null;
  /** Stops the heartbeat when aborted. */
  signal?: AbortSignal;
  /** Replaces `setTimeout` and `clearTimeout` (tests, runtimes with their own scheduling). */
  timers?: HeartbeatTimers;
}

/** A running heartbeat. */
export interface Heartbeat {
  /**
   * Stops it: no further heartbeat is sent, and the result of one in flight is not reported.
   * Safe to call more than once, and from `onResult`.
   */
  stop(): void;
  /** `false` once stopped, or ended by an answer. */
  readonly running: boolean;
  /** Resolves once the heartbeat has stopped or ended and no call of it is in flight. */
  readonly stopped: Promise<void>;
}

/** One heartbeat's answer and the lease it gave (milliseconds from the answer), if any. */
export interface Beat {
  result: LicensingResult<ValidationData>;
  lease: number | null;
}

export interface HeartbeatSettings {
  onResult?: HeartbeatOptions['onResult'];
  retryDelay: number;
  noLeaseInterval: number | null;
  /** The client's: a retry before it ends would only get the remembered failure. */
  negativeCacheTtl: number;
  signal?: AbortSignal;
  timers: HeartbeatTimers;
}

export const defaultTimers: HeartbeatTimers = {
  set(callback, ms) {
    const handle = globalThis.setTimeout(callback, ms);
    // Node: a heartbeat alone never keeps the program running (browsers give a number).
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clear(handle) {
    globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0]);
  },
};

/** The settings of `startHeartbeat`'s options, or a `TypeError` naming the one that is wrong. */
export function heartbeatSettings(
  options: HeartbeatOptions,
  negativeCacheTtl: number,
): HeartbeatSettings {
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
  return {
    onResult: options.onResult,
    retryDelay,
    noLeaseInterval,
    negativeCacheTtl,
    signal: options.signal,
    timers: options.timers ?? defaultTimers,
  };
}

/** Milliseconds of lease an answer gave, from the server's time of the answer; null without one. */
export function leaseFrom(data: ValidationData | undefined, time: AnswerTime): number | null {
  const leaseEnd = data?.lease_expires_at;
  const end = typeof leaseEnd === 'string' ? Date.parse(leaseEnd) : NaN;
  if (Number.isNaN(end)) return null;
  // The device's clock may be off: it is used only within the second the server named.
  const answered =
    time.server === null
      ? time.received
      : Math.min(Math.max(time.received, time.server), time.server + 999);
  return end - answered;
}

const timerDelay = (ms: number) => Math.min(MAX_TIMER_MS, Math.max(0, Math.round(ms)));

/**
 * Runs `beat` now, then again when its answer says: at a third of the lease, after
 * `noLeaseInterval` without one, after a backoff when it failed. Never two at once: the next is
 * scheduled only once the previous has answered.
 */
export function runHeartbeat(beat: () => Promise<Beat>, settings: HeartbeatSettings): Heartbeat {
  const { timers, signal } = settings;
  let running = true;
  let handle: unknown = null;
  let inFlight = false;
  let failures = 0;
  // The regular interval of the last lease known: the longest a retry waits.
  let regular: number | null = null;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));

  const settle = () => {
    if (!running && !inFlight) resolveStopped();
  };
  const stop = () => {
    if (!running) return;
    running = false;
    if (handle !== null) timers.clear(handle);
    handle = null;
    signal?.removeEventListener('abort', stop);
    settle();
  };

  const decide = ({ result, lease }: Beat): HeartbeatEvent => {
    const kind = classifyResult(result);
    if (kind === 'license') return { status: 'ended', next: null, lease, failures };
    if (result.success && !result.stale) {
      failures = 0;
      if (lease !== null) {
        regular = timerDelay(Math.max(MIN_HEARTBEAT_INTERVAL_MS, lease / 3));
        return { status: 'renewed', next: regular, lease, failures };
      }
      regular = null;
      const next = settings.noLeaseInterval;
      return { status: next === null ? 'ended' : 'no-lease', next, lease, failures };
    }
    // Not renewed: a failure, or the offline grace standing in for one.
    failures++;
    const cause: LicensingResult<unknown> = result.success ? (result.cause ?? result) : result;
    const base = settings.retryDelay;
    const cap = Math.max(base, regular ?? settings.noLeaseInterval ?? DEFAULT_NO_LEASE_INTERVAL_MS);
    const backoff = retryDelay(cause, failures - 1, { baseMs: base, maxMs: cap });
    const next = timerDelay(Math.max(backoff, settings.negativeCacheTtl));
    return { status: 'retrying', next, lease: null, failures };
  };

  const run = async () => {
    handle = null;
    if (!running) return;
    inFlight = true;
    let outcome: Beat;
    try {
      outcome = await beat();
    } catch (error) {
      // The client never throws; a custom fetch or store might, and must not end the heartbeat.
      const message = error instanceof Error ? error.message : String(error);
      outcome = { result: clientFailure(`Heartbeat failed: ${message}`), lease: null };
    } finally {
      inFlight = false;
    }
    if (!running) return settle();
    const event = decide(outcome);
    // Ended before it is reported, so the callback sees `running` false.
    if (event.next === null) stop();
    try {
      settings.onResult?.(outcome.result, event);
    } catch {
      // A failing callback must not stop the heartbeat.
    }
    if (!running || event.next === null) return;
    handle = timers.set(() => void run(), event.next);
  };

  if (signal?.aborted) stop();
  else {
    signal?.addEventListener('abort', stop);
    void run();
  }
  return {
    stop,
    get running() {
      return running;
    },
    stopped,
  };
}
