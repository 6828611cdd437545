/**
 * The CPU per request of a measured run and the comparisons of rows made of it, pure functions of
 * the measurements (unit-tested in test/unit/bench-figures.test.ts).
 */
import type { PathMeasurement, RateMeasurement } from './measure.js';
import { significant } from './markdown-figures.js';
import type { PathTarget } from './paths.js';
import { BASELINE, FLOOR, SERVICES } from './settings.js';

/** Microseconds of CPU per request of each process; null when unknown or nothing was answered. */
export function microsPerRequest(
  cpuSeconds: ReadonlyMap<string, number | null>,
  requests: number,
): Map<string, number | null> {
  const micros = new Map<string, number | null>();
  for (const [name, seconds] of cpuSeconds) {
    micros.set(name, seconds === null || requests <= 0 ? null : (seconds * 1e6) / requests);
  }
  return micros;
}

/** The project's CPU per request of a row: the services' sum, or the baseline's or floor's own. */
export function projectMicros(
  target: PathTarget,
  micros: ReadonlyMap<string, number | null>,
): number | null {
  if (target === 'bare') return micros.get(BASELINE) ?? null;
  if (target === 'floor') return micros.get(FLOOR) ?? null;
  let sum = 0;
  for (const name of SERVICES) {
    const value = micros.get(name);
    if (value === null || value === undefined) return null;
    sum += value;
  }
  return sum;
}

/** The project CPU per request of a measured run, in µs. */
function runMicros(m: PathMeasurement | RateMeasurement): number | null {
  return projectMicros(m.path.target, microsPerRequest(m.cpuSeconds, m.load.answered));
}

export interface RowRatios {
  row: PathMeasurement;
  base: PathMeasurement;
  /** The row's project CPU per request over the base row's. */
  plain: number | null;
  /** The same, each first divided by the bare Express app's at that row's own rate. */
  overBareAtRate: number | null;
  /** The row's over the base path's when loaded at the row's rate, when it was. */
  atSameRate: number | null;
}

/**
 * One row's project CPU per request against another's of the same run: plainly; with each first
 * divided by the bare Express app's at that row's own rate; and against the base path loaded at
 * the row's rate (`baseAtRowRate`), the comparison that a row answering few requests a second
 * needs, since a service spends more on each request the fewer it answers. Null when either row
 * did not run; a ratio is null when a figure it needs is unknown.
 */
export function rowRatios(
  measurements: readonly PathMeasurement[],
  key: string,
  baseKey: string,
  baseAtRowRate: RateMeasurement | null = null,
): RowRatios | null {
  const row = measurements.find((m) => m.path.key === key);
  const base = measurements.find((m) => m.path.key === baseKey);
  if (!row || !base) return null;
  const divide = (a: number | null, b: number | null) =>
    a === null || b === null || b <= 0 ? null : a / b;
  const micros = runMicros(row);
  const baseMicros = runMicros(base);
  return {
    row,
    base,
    plain: divide(micros, baseMicros),
    overBareAtRate: divide(
      divide(micros, row.bareAtSameRate),
      divide(baseMicros, base.bareAtSameRate),
    ),
    atSameRate: baseAtRowRate === null ? null : divide(micros, runMicros(baseAtRowRate)),
  };
}

/** The note under the table comparing two rows of the run (rowRatios), or null. */
export function comparisonNote(
  measurements: readonly PathMeasurement[],
  key: string,
  baseKey: string,
  baseAtRowRate: RateMeasurement | null = null,
): string | null {
  const found = rowRatios(measurements, key, baseKey, baseAtRowRate);
  if (!found) return null;
  const { row, base, plain, overBareAtRate, atSameRate } = found;
  const times = (value: number | null) => (value === null ? 'n/a' : `${significant(value)}×`);
  const rate = (m: PathMeasurement) => (m.load.expected / m.load.seconds).toFixed(0);
  const sameRate =
    baseAtRowRate === null
      ? ''
      : ` ${base.path.name} loaded at ${baseAtRowRate.rate} requests a second right after ` +
        `took ${significant(runMicros(baseAtRowRate))} µs a request: ${times(atSameRate)}.`;
  return (
    `${row.path.name} against ${base.path.name}, project CPU per request in this run: ` +
    `${times(plain)} (${significant(runMicros(row))} µs ÷ ${significant(runMicros(base))} µs); ` +
    `with each first divided by the bare Express app at its own rate (${rate(row)} and ` +
    `${rate(base)} requests a second): ${times(overBareAtRate)}.${sameRate}`
  );
}
