import { spawn, type ChildProcess } from 'node:child_process';
import { forgetGroup, groupAlive, groupGone, signalGroup, trackGroup } from './process-groups.js';

/**
 * A child process started detached, leading a process group of its own (process-groups.ts): its
 * output kept for failure messages, its JSON log lines waited for, and its whole group stopped.
 */
export type LogLine = Record<string, unknown>;

/** Raw output lines kept per process, for the message of a failure, and their length. */
const KEPT_OUTPUT_LINES = 60;
const KEPT_LINE_LENGTH = 500;

export class ChildGroup {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Its process group, which it leads: the same number as its pid. */
  readonly pgid: number;
  /** The JSON lines it printed on standard output (its log). */
  readonly lines: LogLine[] = [];
  private readonly output: string[] = [];
  private readonly waiters = new Set<() => void>();
  /** Settles once it has exited. */
  private readonly exited: Promise<void>;
  exitCode: number | null | undefined = undefined;
  /** Set once nothing of its group is left. */
  private ended = false;
  exitSignal: NodeJS.Signals | null = null;

  constructor(
    readonly label: string,
    command: string,
    args: string[],
    /** `ipc`: a channel for messages (`child.send`, `child.on('message')`). */
    options: { env: NodeJS.ProcessEnv; cwd?: string; ipc?: boolean },
  ) {
    this.child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? (['ipc'] as const) : [])],
    });
    if (this.child.pid === undefined) throw new Error(`${label}: could not start ${command}`);
    this.pid = this.child.pid;
    this.pgid = this.pid;
    trackGroup(this.pgid);
    this.child.once('error', (error) => this.keep(`spawn error: ${error.message}`));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        resolve();
      }),
    );
    this.read(this.child.stdout, true);
    this.read(this.child.stderr, false);
  }

  private read(stream: NodeJS.ReadableStream | null, parse: boolean): void {
    if (stream === null) return;
    let pending = '';
    stream.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      for (const line of complete) {
        if (line.trim() === '') continue;
        this.keep(line);
        if (!parse || !line.startsWith('{')) continue;
        try {
          this.lines.push(JSON.parse(line) as LogLine);
        } catch {
          continue; // not a log line
        }
        this.wake();
      }
    });
  }

  private keep(line: string): void {
    this.output.push(line.length > KEPT_LINE_LENGTH ? `${line.slice(0, KEPT_LINE_LENGTH)}…` : line);
    if (this.output.length > KEPT_OUTPUT_LINES) this.output.shift();
  }

  private wake(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** The last lines it printed, for failure messages. */
  recentOutput(): string {
    return this.output.join('\n');
  }

  /**
   * `promise`, or a failure naming this process and `what` it waited for when the process exits
   * first or `timeoutMs` passes.
   */
  bounded<T>(promise: Promise<T>, timeoutMs: number, what: () => string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      promise,
      this.exited.then(() => {
        throw new Error(
          `${this.label} exited (${this.exitCode ?? this.exitSignal}) before ${what()}:\n` +
            this.recentOutput(),
        );
      }),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `${this.label}: no ${what()} within ${timeoutMs} ms:\n${this.recentOutput()}`,
              ),
            ),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  }

  /**
   * The first log line that `matches`, printed already or waited for; `what` names it in the
   * failure when the process exits first or `timeoutMs` passes.
   */
  async waitForLine(
    matches: (line: LogLine) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<LogLine> {
    let found!: (line: LogLine) => void;
    const line = new Promise<LogLine>((resolve) => (found = resolve));
    const check = () => {
      const match = this.lines.find(matches);
      if (match !== undefined) found(match);
    };
    this.waiters.add(check);
    check();
    try {
      return await this.bounded(line, timeoutMs, () => what);
    } finally {
      this.waiters.delete(check);
    }
  }

  /** The first log line with this `msg`, waiting for it; fails when the process exits first. */
  waitForLog(msg: string, timeoutMs: number): Promise<LogLine> {
    return this.waitForLine((line) => line.msg === msg, timeoutMs, `"${msg}"`);
  }

  signal(signal: NodeJS.Signals): void {
    // Seen gone, its number may be another process's group by now (pids are reused).
    if (this.ended) return;
    signalGroup(this.pgid, signal);
  }

  alive(): boolean {
    return groupAlive(this.pgid);
  }

  /** Waits until nothing of the group is left; false when something still is after `timeoutMs`. */
  async gone(timeoutMs: number): Promise<boolean> {
    if (this.ended) return true;
    if (!(await groupGone(this.pgid, timeoutMs))) return false;
    this.ended = true;
    forgetGroup(this.pgid);
    return true;
  }

  /** SIGKILL to the whole group, and waits until it is gone. */
  async kill(): Promise<void> {
    this.signal('SIGKILL');
    if (!(await this.gone(10_000))) throw new Error(`${this.label} survived SIGKILL`);
  }

  /** SIGTERM, then SIGKILL when the group is still there after `graceMs`. True if it went alone. */
  async terminate(graceMs: number): Promise<boolean> {
    this.signal('SIGTERM');
    if (await this.gone(graceMs)) return true;
    await this.kill();
    return false;
  }
}
