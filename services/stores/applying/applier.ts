import { randomUUID } from 'node:crypto';
import { PollLoop } from '../../../libs/process/poll-loop.js';
import type { StoreEventResult } from '../stores.js';
import { applyStoreEvent, type ApplyDeps } from './apply-event.js';
import { afterFailedAttempt } from './attempt-rules.js';
import { suspendPastGrace } from './grace-sweep.js';
import { LastingFailure } from './store-api.js';

/** Pending events are looked for this often, and at once when one is received. */
const POLL_MS = 1000;
/** Past-due licenses are looked for this often, unless the applier is given another interval. */
const GRACE_SWEEP_MS = 60_000;

/**
 * Applies the received events, one at a time: each is claimed in the database with a lease
 * first, so of several replicas one applies it, and one that stops leaves it to another once
 * the lease lapses. Started, it looks for pending events at once, so none answered before a stop
 * is lost; it sweeps for past-due grace on an interval.
 */
export class StoreEventApplier {
  private readonly polling = new PollLoop({
    intervalMs: POLL_MS,
    turn: () => this.turn(),
    onError: (error) =>
      this.deps.logger.warn({ err: error }, 'looking for pending store events failed'),
  });
  private lastSweep = 0;

  /**
   * `leaseMs`: how long a claim holds (STORES_APPLY_LEASE_SECONDS), renewed while the event is
   * applied; an applier stopped mid-event leaves the event to be claimed after it.
   */
  constructor(
    private readonly deps: ApplyDeps & {
      leaseMs: number;
      /** How often past-due licenses are looked for (a test system's is short). */
      graceSweepMs?: number;
    },
  ) {}

  start(): void {
    this.polling.start();
  }

  /** An event is pending now: look at once instead of at the next poll. */
  nudge(): void {
    this.polling.nudge();
  }

  /** Claims nothing more; the event under way is finished first. */
  stop(): Promise<void> {
    return this.polling.stop();
  }

  /**
   * Claims and applies one due event: false when none is due. What it did is written on the
   * event under its claim, so an applier whose lease lapsed meanwhile writes nothing.
   */
  async applyNext(): Promise<boolean> {
    const { stores, clock, logger } = this.deps;
    const now = clock();
    const claim = randomUUID();
    const until = new Date(now.getTime() + this.deps.leaseMs);
    const event = await stores.events.claimDue(now, claim, until);
    if (!event) return false;
    const attempts = event.attempts + 1;
    const renewal = this.holdClaim(event.id, claim);
    let result: StoreEventResult;
    try {
      const applied = await applyStoreEvent(this.deps, event);
      result = { ...applied, attempts, applied_at: clock(), due_at: null };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const next =
        error instanceof LastingFailure
          ? { outcome: 'failed' as const }
          : afterFailedAttempt(attempts, clock());
      result = {
        outcome: next.outcome,
        detail,
        attempts,
        license_key: event.license_key,
        applied_at: null,
        due_at: next.outcome === 'pending' ? next.due_at : null,
        mail: event.mail,
      };
      logger.warn({ err: error, event: event.id, attempts }, 'applying a store event failed');
    } finally {
      clearInterval(renewal);
    }
    if (!(await stores.events.finish(event.id, claim, result))) {
      logger.warn({ event: event.id }, 'store event not written: its claim had lapsed');
    } else {
      logger.info({ event: event.id, outcome: result.outcome }, 'store event applied');
    }
    return true;
  }

  /**
   * Renews the claim every third of the lease while the event is applied: an application that
   * outlasts the lease (e-mail retries against a slow server) is not taken by another replica,
   * and a short lease still frees a stopped replica's event soon.
   */
  private holdClaim(id: number, claim: string): NodeJS.Timeout {
    const { stores, clock, logger, leaseMs } = this.deps;
    const timer = setInterval(() => {
      stores.events
        .extendClaim(id, claim, new Date(clock().getTime() + leaseMs))
        .catch((error: unknown) => logger.warn({ err: error, event: id }, 'claim not renewed'));
    }, leaseMs / 3);
    timer.unref();
    return timer;
  }

  /** Applies what is pending, then sweeps for past-due grace when its interval has passed. */
  private async turn(): Promise<void> {
    while (!this.polling.stopped && (await this.applyNext()));
    if (Date.now() - this.lastSweep >= (this.deps.graceSweepMs ?? GRACE_SWEEP_MS)) {
      this.lastSweep = Date.now();
      await suspendPastGrace(this.deps);
    }
  }
}
