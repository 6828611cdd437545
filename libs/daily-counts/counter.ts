import type { Logger } from '../logging/index.js';
import type { DailyCountRange, DailyCountStore } from './store.js';
import { DailyTally, type DayTotals } from './tally.js';

/**
 * How often a process writes the counts it holds. What it counted since its last write is lost
 * if it is killed (a normal stop writes it): at most this long of its counts.
 */
export const DAILY_COUNT_FLUSH_MS = 1000;

/** How a service counts, and reads what it and its replicas counted. */
export interface DailyCounts<M extends string> {
  /** Counts one of `metric` on the UTC day of `at` (by: 1 unless said, -1 takes one back). */
  count(metric: M, productId: number | null, at: Date, by?: number): void;
  /** Each day of the range with a count, oldest first; this process writes what it holds first. */
  totals(range: DailyCountRange): Promise<DayTotals<M>[]>;
}

/**
 * Daily counts kept in memory and written every DAILY_COUNT_FLUSH_MS: counting never waits for
 * the database, so the paths that count (validate, the hottest) pay no round trip for it, and a
 * second of counts, however many, costs one `$inc` per day and product. Writes are made one at a
 * time; what a write did not store is held again for the next one, so a database that is away
 * for a while loses nothing that this process lives to write again. A write whose outcome is not
 * known (the connection lost after it was sent) is tried again too, and may then count twice.
 */
export class DailyCounter<M extends string> implements DailyCounts<M> {
  private readonly tally = new DailyTally<M>();
  private readonly store: DailyCountStore<M>;
  private readonly logger: Logger;
  private readonly flushMs: number;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(deps: { store: DailyCountStore<M>; logger: Logger; flushMs?: number }) {
    this.store = deps.store;
    this.logger = deps.logger;
    this.flushMs = deps.flushMs ?? DAILY_COUNT_FLUSH_MS;
  }

  /** Writes what is held every `flushMs` until `stop`. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    // Counting alone keeps no process alive.
    this.timer.unref();
  }

  count(metric: M, productId: number | null, at: Date, by = 1): void {
    this.tally.add(metric, productId, at, by);
  }

  async totals(range: DailyCountRange): Promise<DayTotals<M>[]> {
    await this.flush();
    return this.store.totals(range);
  }

  /** Writes what is held now, after any write under way; never rejects. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.tally.empty) return;
    const increments = this.tally.take();
    try {
      const unwritten = await this.store.add(increments);
      if (unwritten.length > 0) {
        this.tally.restore(unwritten);
        this.logger.warn(
          { unwritten: unwritten.length },
          'some daily counts were not written; they are tried again',
        );
      }
    } catch (error) {
      this.tally.restore(increments);
      this.logger.error({ err: error }, 'the daily counts could not be written; tried again');
    }
  }
}
