/**
 * Work found by looking in the database (due webhook deliveries, pending store events): `turn`
 * runs at once when started, then again `intervalMs` after each turn, or at once when nudged
 * (this replica was just given work), never two turns at a time. A turn that throws is reported
 * and the loop goes on. `stop` starts no new turn and waits for the one under way.
 */
export class PollLoop {
  private wake: (() => void) | null = null;
  private nudged = false;
  private stopping = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly options: {
      intervalMs: number;
      turn: () => Promise<void>;
      onError: (error: unknown) => void;
    },
  ) {}

  /** Whether `stop` was called: a long turn checks it to end early. */
  get stopped(): boolean {
    return this.stopping;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Work is due now: look at once instead of at the next interval. */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.nudged = false;
      try {
        await this.options.turn();
      } catch (error) {
        this.options.onError(error);
      }
      if (!this.nudged) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, this.options.intervalMs);
      this.wake = done;
      if (this.stopping || this.nudged) done();
    });
  }
}
