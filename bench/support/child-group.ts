import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * Child processes of the tests that run services as operators do, of the fault suite and of the
 * benchmark (bench/processes.ts). Each is started detached, so it leads a process group of its
 * own: a signal to the group reaches the whole tree (`npm` → `sh` → `tsx` → `node`, or the
 * broker's `erl` and its helpers), and a process is known to be gone only when nothing of its
 * group is left.
 */

/** Every process group started by this process, killed on exit whatever happens. */
const groups = new Set<number>();
process.once('exit', () => {
  for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
});

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // nothing left of the group
  }
}

/**
 * The live (not zombie) members of a process group. On Linux read from /proc, so that a member
 * already dead but not yet reaped does not count; elsewhere, whether the group can be signalled.
 */
export function groupAlive(pgid: number): boolean {
  if (process.platform === 'linux') {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits until nothing of a process group is left; false when something still is after
 * `timeoutMs`. Its leader's exit is not enough: `npm` may end before the process it ran has
 * finished stopping.
 */
export async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() > until) return false;
    await sleep(50);
  }
  return true;
}

/** The children whose whole group this process has seen gone: never signalled again. */
const endedChildren = new WeakSet<ChildProcess>();

/**
 * Stops a detached child's whole group with `signal` and waits until nothing of it is left (up to
 * `timeoutMs`): `npm` exits before the system it ran has finished stopping, and the database
 * writes its files as it stops, so its data directory can only be removed after that.
 */
export async function stopChildGroup(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  timeoutMs = 60_000,
): Promise<void> {
  if (child.pid === undefined || endedChildren.has(child)) return;
  // Once its leader has exited, a group's number may be another process's (a browser's) as
  // soon as its last member is gone: only a running leader's group is signalled.
  if (child.exitCode === null && child.signalCode === null) signalGroup(child.pid, signal);
  if (await groupGone(child.pid, timeoutMs)) endedChildren.add(child);
}

/**
 * `count` distinct TCP ports nobody listens on right now on the loopback interface (the kernel
 * picks them; each is held until all are picked, so none is picked twice).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** A TCP port nobody listens on right now (the kernel picks it). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}

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
    groups.add(this.pgid);
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
    groups.delete(this.pgid);
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

/** Kills every process group this process started and has not seen go. */
export async function killEveryGroup(): Promise<void> {
  for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
  const until = Date.now() + 10_000;
  for (const pgid of [...groups]) {
    while (groupAlive(pgid) && Date.now() < until) await sleep(50);
    groups.delete(pgid);
  }
}
