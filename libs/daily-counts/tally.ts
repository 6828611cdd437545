/**
 * Daily counts: how many times something happened on each UTC day, per product, kept by the
 * service that owns what is counted (docs/architecture.md, "Daily counts"). What is counted
 * (`M`, the metric) is the service's own word: `validations`, `downloads_served`.
 */

/** The UTC calendar day of a moment, `YYYY-MM-DD`: the days of the counts begin at 00:00 UTC. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The UTC day `days` after `day` (before it when negative). */
export function addDays(day: string, days: number): string {
  const start = Date.parse(`${day}T00:00:00.000Z`);
  return utcDay(new Date(start + days * 24 * 60 * 60 * 1000));
}

/** How many of each metric to add to one day of one product (null: no product known). */
export interface DailyIncrement<M extends string> {
  day: string;
  product_id: number | null;
  counts: Partial<Record<M, number>>;
}

/** One day's counts, each metric 0 where nothing was counted. */
export type DayTotals<M extends string> = { day: string } & Record<M, number>;

/**
 * Counts held in memory until they are written: one increment per day and product, whatever the
 * number of events, so that writing them costs one `$inc` per day and product however busy the
 * path that counts.
 */
export class DailyTally<M extends string> {
  private held = new Map<string, DailyIncrement<M>>();

  /** Adds `by` (1 unless said) to a metric of the day of `at`, for a product. */
  add(metric: M, productId: number | null, at: Date, by = 1): void {
    this.addTo(utcDay(at), productId, { [metric]: by } as Partial<Record<M, number>>);
  }

  /** Adds increments back, such as those a write failed to store. */
  restore(increments: readonly DailyIncrement<M>[]): void {
    for (const { day, product_id, counts } of increments) this.addTo(day, product_id, counts);
  }

  /** What is held, as one increment per day and product; the tally is then empty. */
  take(): DailyIncrement<M>[] {
    const taken = [...this.held.values()];
    this.held = new Map();
    return taken;
  }

  get empty(): boolean {
    return this.held.size === 0;
  }

  private addTo(day: string, productId: number | null, counts: Partial<Record<M, number>>): void {
    const key = `${day}/${productId ?? ''}`;
    let increment = this.held.get(key);
    if (!increment) {
      increment = { day, product_id: productId, counts: {} };
      this.held.set(key, increment);
    }
    for (const [metric, by] of Object.entries(counts) as Array<[M, number | undefined]>) {
      if (!by) continue;
      const sum = (increment.counts[metric] ?? 0) + by;
      if (sum === 0) delete increment.counts[metric];
      else increment.counts[metric] = sum;
    }
    if (Object.keys(increment.counts).length === 0) this.held.delete(key);
  }
}

/**
 * The days from `from` to `to`, both included, each with its totals from `found` (which may
 * leave days out) or 0 for every metric.
 */
export function everyDay<M extends string>(
  range: { from: string; to: string },
  metrics: readonly M[],
  found: readonly DayTotals<M>[],
): DayTotals<M>[] {
  const byDay = new Map(found.map((totals) => [totals.day, totals]));
  const days: DayTotals<M>[] = [];
  for (let day = range.from; day <= range.to; day = addDays(day, 1)) {
    const totals = byDay.get(day);
    const row = { day } as DayTotals<M>;
    for (const metric of metrics) {
      (row as Record<M, number>)[metric] = totals?.[metric] ?? 0;
    }
    days.push(row);
  }
  return days;
}
