import { ChildGroup } from '../../../bench/support/child-group.js';
import { sleep } from '../../../bench/support/process-groups.js';
import { http } from './http.js';

/** The entry points, as `npm run <script>` starts them, and the log line each prints when ready. */
export const SERVICES = {
  gateway: { script: 'start:gateway', ready: 'gateway listening' },
  management: { script: 'start:management', ready: 'management API listening' },
  license: { script: 'start:license', ready: 'license service ready' },
  'update-catalog': { script: 'start:update-catalog', ready: 'update-catalog service ready' },
  download: { script: 'start:download', ready: 'download service ready' },
} as const;

export type ServiceName = keyof typeof SERVICES;

/** The log line with the address of the operations port (/healthz, /readyz, /metrics). */
const OPERATIONS_PORT = 'operations port listening';

export interface Readiness {
  status: number;
  /** Dependency name → `ok`, `degraded: ...` or the problem. */
  checks: Record<string, string>;
  /** The 503's message (`Not ready: mongodb (why); ...`). */
  message?: string;
}

/**
 * The checks of a /readyz answer: `data.checks` of a 200, `error.checks` of a 503 when it has
 * them, else the failing ones its message names (`Not ready: name (problem); name (problem)`).
 */
function readinessOf(status: number, body: unknown): Readiness {
  const { data, error } = (typeof body === 'object' && body !== null ? body : {}) as {
    data?: { checks?: Record<string, string> };
    error?: { checks?: Record<string, string>; message?: string };
  };
  if (data?.checks !== undefined) return { status, checks: data.checks };
  const message = error?.message;
  const checks: Record<string, string> = { ...error?.checks };
  if (error?.checks === undefined && message !== undefined) {
    // A problem may itself hold "; " or parentheses: each ends where the next name begins.
    const named = /(\w+) \((.*?)\)(?=; \w+ \(|$)/gs;
    for (const [, name, problem] of message.replace(/^Not ready:\s*/, '').matchAll(named)) {
      checks[name!] = problem!;
    }
  }
  return { status, checks, message };
}

let started = 0;

/** One service process (`npm run start:<service>`), in a process group of its own. */
export class ServiceProcess {
  readonly label: string;

  private constructor(
    readonly name: ServiceName,
    readonly group: ChildGroup,
  ) {
    this.label = group.label;
  }

  static spawn(name: ServiceName, env: NodeJS.ProcessEnv, cwd: string): ServiceProcess {
    started += 1;
    const group = new ChildGroup(
      `${name}#${started}`,
      'npm',
      ['run', SERVICES[name].script, '--silent'],
      { env, cwd },
    );
    return new ServiceProcess(name, group);
  }

  /** The address its ready line names (the gateway's and management's HTTP ports). */
  get url(): string {
    const line = this.group.lines.find((candidate) => candidate.msg === SERVICES[this.name].ready);
    if (typeof line?.url !== 'string') throw new Error(`${this.label} has not said its address`);
    return line.url;
  }

  /** The operations port's address, once the process has said it. */
  get opsUrl(): string | undefined {
    const line = this.group.lines.find((candidate) => candidate.msg === OPERATIONS_PORT);
    return typeof line?.url === 'string' ? line.url : undefined;
  }

  get pid(): number {
    return this.group.pgid;
  }

  alive(): boolean {
    return this.group.exitCode === undefined && this.group.alive();
  }

  /** GET /readyz on the operations port; undefined when the process serves no such port. */
  async readiness(timeoutMs = 5000): Promise<Readiness | undefined> {
    const ops = this.opsUrl;
    if (ops === undefined) return undefined;
    const answer = await http(`${ops}/readyz`, { timeoutMs });
    return readinessOf(answer.status, answer.body);
  }

  /**
   * Ready: it printed its ready line and, when it serves an operations port, /readyz says 200.
   */
  async waitReady(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    await this.group.waitForLog(SERVICES[this.name].ready, timeoutMs);
    let last: Readiness | undefined;
    for (;;) {
      last = await this.readiness().catch(() => undefined);
      if (last === undefined && this.opsUrl === undefined) return;
      if (last?.status === 200) return;
      if (Date.now() > until) {
        throw new Error(`${this.label} not ready within ${timeoutMs} ms: ${JSON.stringify(last)}`);
      }
      await sleep(100);
    }
  }

  /** The suite stopped it (an exit it did not cause is reported at the end). */
  stoppedBySuite = false;

  /** SIGTERM and wait for the whole process to end (SIGKILL past `graceMs`); true if it ended alone. */
  terminate(graceMs = 30_000): Promise<boolean> {
    this.stoppedBySuite = true;
    return this.group.terminate(graceMs);
  }

  /** SIGTERM, without waiting. */
  term(): void {
    this.stoppedBySuite = true;
    this.group.signal('SIGTERM');
  }

  kill(): Promise<void> {
    this.stoppedBySuite = true;
    return this.group.kill();
  }
}
