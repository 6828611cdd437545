/**
 * What the benchmark and its load generator (children/load-worker.ts, a process of its own)
 * say to each other over IPC. Only data crosses: the worker builds autocannon's requests from it.
 */

/** `[<id>]` in a body or path: a fresh id in every request (autocannon's idReplacement). */
export const EACH_REQUEST_ID = '[<id>]';
/**
 * `[<cycle>]` in a body or path: a fresh id each time a connection starts the list of requests
 * over, the same in every request of one pass (an activation, then its deactivation).
 */
export const EACH_CYCLE_ID = '[<cycle>]';

export interface LoadRequest {
  method: 'GET' | 'POST' | 'HEAD';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadJob {
  /** `http://host:port` of the server under load. */
  origin: string;
  /** Sent in turn on each connection, over and over. */
  requests: LoadRequest[];
  connections: number;
  seconds: number;
  /** The status every answer should have; latencies are of these answers. */
  expectedStatus: number;
  /** Requests per second over all connections; unset, as fast as the server answers. */
  rate?: number;
}

export interface LoadResult {
  /** The measured window as the worker saw it, from the start of the run to its end. */
  seconds: number;
  /** Every answer, whatever its status. */
  answered: number;
  /** Answers with the expected status. */
  expected: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  /** Connection errors and timeouts (autocannon's `errors`, which include timeouts). */
  errors: number;
  timeouts: number;
  /** Latency percentiles of the answers with the expected status, in milliseconds. */
  p50: number;
  p99: number;
}

export type ToWorker = { type: 'run'; id: number; job: LoadJob };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'started'; id: number }
  | { type: 'done'; id: number; result: LoadResult }
  | { type: 'failed'; id: number; message: string };

/** The value at percentile `p` of sorted values (nearest rank); NaN when there is none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}
