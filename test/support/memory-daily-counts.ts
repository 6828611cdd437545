import type {
  DailyCountRange,
  DailyCountStore,
  DailyIncrement,
  DayTotals,
} from '../../libs/daily-counts/index.js';

/**
 * The daily counts in memory, with the semantics of the MongoDB store (the store contract test
 * runs both): one record per day and product, added to. `refuseNext` makes the next `add` refuse
 * the increments of those products (as a refused upsert), `failNext` makes it throw, as a lost
 * connection does; `adds` counts the writes made.
 */
export function memoryDailyCountStore<M extends string>(
  metrics: readonly M[],
): DailyCountStore<M> & {
  adds: number;
  refuseNext(productIds: ReadonlyArray<number | null>): void;
  failNext(): void;
} {
  const records = new Map<string, DailyIncrement<M>>();
  let refused: ReadonlySet<number | null> = new Set();
  let fail = false;
  return {
    adds: 0,
    refuseNext(productIds) {
      refused = new Set(productIds);
    },
    failNext() {
      fail = true;
    },
    async add(increments) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (fail) {
        fail = false;
        throw new Error('connection lost');
      }
      this.adds++;
      const refusedNow = refused;
      refused = new Set();
      const unwritten: DailyIncrement<M>[] = [];
      for (const increment of increments) {
        if (refusedNow.has(increment.product_id)) {
          unwritten.push(increment);
          continue;
        }
        const key = `${increment.day}/${increment.product_id}`;
        const record: DailyIncrement<M> = records.get(key) ?? {
          day: increment.day,
          product_id: increment.product_id,
          counts: {},
        };
        for (const [metric, by] of Object.entries(increment.counts) as Array<[M, number]>) {
          record.counts[metric] = (record.counts[metric] ?? 0) + by;
        }
        records.set(key, record);
      }
      return unwritten;
    },
    async totals({ from, to, productId }: DailyCountRange) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const byDay = new Map<string, DayTotals<M>>();
      for (const record of records.values()) {
        if (record.day < from || record.day > to) continue;
        if (productId !== null && record.product_id !== productId) continue;
        let totals = byDay.get(record.day);
        if (!totals) {
          totals = { day: record.day } as DayTotals<M>;
          for (const metric of metrics) (totals as Record<M, number>)[metric] = 0;
          byDay.set(record.day, totals);
        }
        for (const metric of metrics) {
          (totals as Record<M, number>)[metric] += record.counts[metric] ?? 0;
        }
      }
      return [...byDay.values()].sort((a, b) => (a.day < b.day ? -1 : 1));
    },
  };
}
