import { withTimeout } from '../process/timeout.js';

/**
 * Readiness: whether this process can do its work now, dependency by dependency. A process that
 * is starting or stopping is not ready (a load balancer sends it no requests until it has
 * started, and none while it finishes the ones it has).
 */

/** One dependency: it throws (or does not settle in time) when it cannot be used. */
export interface DependencyCheck {
  name: string;
  check(): Promise<void>;
  /**
   * Reported but not failing readiness: the process still serves without it (the rate limits'
   * Redis: requests pass unlimited while it is gone, docs/operations.md).
   */
  optional?: true;
}

export interface Readiness {
  ready: boolean;
  /** `ok`, or why the dependency cannot be used. */
  checks: Record<string, string>;
}

const CHECK_TIMEOUT_MS = 2000;

/** The readiness of a process: its dependencies, checked together, each within 2 s. */
export class ReadinessProbe {
  private readonly dependencies: DependencyCheck[] = [];
  private state: 'starting' | 'started' | 'stopping';

  /** A probe of a process that has started (`starting`: one that is still starting). */
  constructor(checks: readonly DependencyCheck[] = [], state: 'starting' | 'started' = 'started') {
    this.dependencies.push(...checks);
    this.state = state;
  }

  add(...checks: DependencyCheck[]): void {
    this.dependencies.push(...checks);
  }

  markStarted(): void {
    if (this.state === 'starting') this.state = 'started';
  }

  /** From now on the process is not ready: it is stopping. */
  markStopping(): void {
    this.state = 'stopping';
  }

  async probe(): Promise<Readiness> {
    const results = await Promise.all(
      this.dependencies.map(async (dependency) => {
        try {
          await withTimeout(
            dependency.check(),
            CHECK_TIMEOUT_MS,
            `no answer within ${CHECK_TIMEOUT_MS} ms`,
          );
          return { dependency, problem: null };
        } catch (error) {
          return { dependency, problem: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
    const checks: Record<string, string> = {};
    let ready = this.state === 'started';
    if (!ready) checks.process = this.state;
    for (const { dependency, problem } of results) {
      checks[dependency.name] =
        problem === null ? 'ok' : dependency.optional ? `degraded: ${problem}` : problem;
      if (problem !== null && !dependency.optional) ready = false;
    }
    return { ready, checks };
  }
}
