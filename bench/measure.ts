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
import type { BenchPath } from './paths.js';

export interface PathMeasurement {
  path: BenchPath;
  load: LoadResult;
  /** CPU seconds of each measured process over the measured run; null when unknown. */
  cpuSeconds: Map<string, number | null>;
}

export interface MeasureContext {
  load: LoadGenerator;
  origins: { bare: string; gateway: string };
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
      connections: context.connections,
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
  };
}
