import type { DailyIncrement, DayTotals } from './tally.js';

/** How long the counts of a day are kept: past this, its documents expire (a TTL index). */
export const DAILY_COUNT_RETENTION_DAYS = 400;

/** What a query of the counts covers: days from `from` to `to`, both included. */
export interface DailyCountRange {
  from: string;
  to: string;
  /** Null: every product, summed. */
  productId: number | null;
}

/**
 * The daily counts of a service, in its own database: one record per UTC day and product, each
 * metric a number added to as things happen (`mongo-store.ts`; an in-memory fake in
 * test/support).
 */
export interface DailyCountStore<M extends string> {
  /**
   * Adds each increment to the record of its day and product, created when missing. Answers the
   * increments it knows were not written (a write refused); throws when it cannot tell which
   * were.
   */
  add(increments: readonly DailyIncrement<M>[]): Promise<DailyIncrement<M>[]>;

  /** The totals of each day of the range that has a record, oldest first. */
  totals(range: DailyCountRange): Promise<DayTotals<M>[]>;
}
