/**
 * One path under load: a check that it answers as expected, an unmeasured warm-up, then the
 * measured run, with the CPU time of every measured process over exactly that run.
 */
import { randomBytes } from 'node:crypto';
import { cpuSecondsBetween, cpuSnapshot, type CpuSnapshot, type Measured } from './cpu.js';
import type { LoadGenerator } from './load.js';
import {
  EACH_CYCLE_ID,
  EACH_REQUEST_ID,
  type LoadRequest,
  type LoadResult,
} from './load-protocol.js';
import type { BenchPath, PathTarget } from './paths.js';
import { BASELINE } from './settings.js';

export interface PathMeasurement {
  path: BenchPath;
  load: LoadResult;
  /** CPU seconds of each measured process over the measured run; null when unknown. */
  cpuSeconds: Map<string, number | null>;
  /**
   * The bare Express app's CPU per request, in µs, when loaded at this path's rate of answers
   * right after it (a server answering few requests a second spends more on each than one kept
   * busy); null for the baseline itself, or when it could not be read.
   */
  bareAtSameRate: number | null;
}

/** A path loaded at a set rate of requests, measured as a row is (`measureAtRate`). */
export interface RateMeasurement {
  path: BenchPath;
  /** The requests a second it was loaded at. */
  rate: number;
  load: LoadResult;
  cpuSeconds: Map<string, number | null>;
}

export interface MeasureContext {
  load: LoadGenerator;
  /** The bare Express path, loaded again at each gateway path's rate. */
  baseline: BenchPath;
  origins: Record<PathTarget, string>;
  measured: readonly Measured[];
  ticksPerSecond: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
}

/** Lets the answers still in flight after a run settle before the next one. */
const SETTLE_MS = 500;

/** Sends the path's requests once, ids filled in; fails loudly on any unexpected answer. */
async function check(origin: string, requests: LoadRequest[], expected: number): Promise<void> {
  const id = randomBytes(6).toString('hex');
  const fill = (text: string) => text.replaceAll(EACH_REQUEST_ID, id).replaceAll(EACH_CYCLE_ID, id);
  for (const request of requests) {
    const res = await fetch(`${origin}${fill(request.path)}`, {
      method: request.method,
      headers: request.headers ?? {},
      ...(request.body === undefined ? {} : { body: fill(request.body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== expected) {
      throw new Error(
        `${request.method} ${request.path}: HTTP ${res.status}, expected ${expected}: ${text}`,
      );
    }
  }
}

const connectionsOf = (path: BenchPath, context: MeasureContext) =>
  Math.min(context.connections, path.maxConnections ?? context.connections);

export async function measurePath(
  path: BenchPath,
  context: MeasureContext,
): Promise<PathMeasurement> {
  const origin = context.origins[path.target];
  const job = async (seconds: number) => {
    const requests = await path.requests();
    await check(origin, requests, path.expectedStatus);
    return {
      origin,
      requests,
      connections: connectionsOf(path, context),
      seconds,
      expectedStatus: path.expectedStatus,
    };
  };
  // Prepared first (a fresh license, through the management API), so that the management
  // process is back to idle when the measured run starts.
  const measuredJob = await job(context.seconds);
  await context.load.run(await job(context.warmupSeconds));
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

  let before: CpuSnapshot | undefined;
  const load = await context.load.run(measuredJob, () => {
    before = cpuSnapshot(context.measured);
  });
  const after = cpuSnapshot(context.measured);
  if (!before) throw new Error(`${path.name}: the load generator never said it started`);
  return {
    path,
    load,
    cpuSeconds: cpuSecondsBetween(before, after, context.ticksPerSecond),
    bareAtSameRate:
      path.target === 'bare' ? null : await bareAtRate(load.expected / load.seconds, context),
  };
}

/** The bare Express app's CPU per request (µs) under `rate` requests a second. */
async function bareAtRate(rate: number, context: MeasureContext): Promise<number | null> {
  if (!(rate >= 1)) return null;
  const requests = await context.baseline.requests();
  const bare = context.measured.filter((m) => m.name === BASELINE);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  let before: CpuSnapshot | undefined;
  const load = await context.load.run(
    {
      origin: context.origins.bare,
      requests,
      connections: context.connections,
      seconds: context.seconds,
      expectedStatus: context.baseline.expectedStatus,
      rate: Math.round(rate),
    },
    () => {
      before = cpuSnapshot(bare);
    },
  );
  if (!before || load.answered === 0) return null;
  const seconds = cpuSecondsBetween(before, cpuSnapshot(bare), context.ticksPerSecond).get(
    BASELINE,
  );
  return seconds === null || seconds === undefined ? null : (seconds * 1e6) / load.answered;
}

/**
 * A path measured again at another path's rate of answers, right after it, for the CPU per
 * request of two paths at the same rate: a service answering a few requests a second spends far
 * more on each (its timers and wake-ups), whatever the request. Null when the rate is below one.
 */
export async function measureAtRate(
  path: BenchPath,
  rate: number,
  context: MeasureContext,
): Promise<RateMeasurement | null> {
  if (!(rate >= 1)) return null;
  const requests = await path.requests();
  await check(context.origins[path.target], requests, path.expectedStatus);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  let before: CpuSnapshot | undefined;
  const load = await context.load.run(
    {
      origin: context.origins[path.target],
      requests,
      connections: connectionsOf(path, context),
      seconds: context.seconds,
      expectedStatus: path.expectedStatus,
      rate: Math.round(rate),
    },
    () => {
      before = cpuSnapshot(context.measured);
    },
  );
  const after = cpuSnapshot(context.measured);
  if (!before) throw new Error(`${path.name}: the load generator never said it started`);
  return {
    path,
    rate: Math.round(rate),
    load,
    cpuSeconds: cpuSecondsBetween(before, after, context.ticksPerSecond),
  };
}
