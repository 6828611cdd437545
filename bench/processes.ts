/**
 * The benchmark's child processes: every one runs `node --import tsx <script>` directly (no npm,
 * no tsx CLI in between), so its pid is the node process that does the work. Each is the leader
 * of its own process group; `stopAll` ends every group (SIGTERM, then SIGKILL), and a reaper
 * process (children/reaper.ts) does the same if this process dies without stopping them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSX = import.meta.resolve('tsx');

/** Lines of output kept per process, for the message of a failure. */
const TAIL_LINES = 40;
/** pino's numeric levels: 40 is warn. */
const WARN_LEVEL = 40;

export type LogLine = Record<string, unknown>;

export interface StartOptions {
  /** Short name, used in messages and in the report. */
  name: string;
  /** Path of the TypeScript entry point, relative to the repository root. */
  script: string;
  env: NodeJS.ProcessEnv;
  /** Node options before `--import tsx` (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** An IPC channel (children of the benchmark that talk back). */
  ipc?: boolean;
}

/** A started child: its output, its JSON log lines, its end. */
export class ManagedChild {
  readonly pid: number;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  readonly exited: Promise<string>;
  /** Log lines at warn level or above, as the process printed them. */
  readonly warnings: LogLine[] = [];
  private readonly tail: string[] = [];
  private readonly lineListeners = new Set<(line: LogLine) => void>();

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    if (child.pid === undefined) throw new Error(`${name}: the process did not start`);
    this.pid = child.pid;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve(signal ?? String(code)));
      child.once('error', (error) => {
        this.remember(`spawn failed: ${error.message}`);
        resolve('spawn error');
      });
    });
    this.readLines(child.stdout, true);
    this.readLines(child.stderr, false);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines the process printed. */
  output(): string {
    return this.tail.join('\n');
  }

  /** The first JSON line printed from now on that `matches`; fails on exit or after `timeoutMs`. */
  async waitForLine(matches: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine> {
    let listener: ((line: LogLine) => void) | undefined;
    try {
      return await this.bounded(
        new Promise<LogLine>((resolve) => {
          listener = (line: LogLine) => {
            if (matches(line)) resolve(line);
          };
          this.lineListeners.add(listener);
        }),
        timeoutMs,
        () => 'its start-up line',
      );
    } finally {
      if (listener) this.lineListeners.delete(listener);
    }
  }

  /** `promise`, or a failure naming this process when it exits first or `timeoutMs` passes. */
  async bounded<T>(promise: Promise<T>, timeoutMs: number, what: () => string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        promise,
        this.exited.then((how) => {
          throw new Error(
            `${this.name} exited (${how}) while waiting for ${what()}:\n${this.output()}`,
          );
        }),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new Error(
                  `${this.name}: no ${what()} within ${Math.round(timeoutMs / 1000)} s:\n` +
                    this.output(),
                ),
              ),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private remember(line: string): void {
    this.tail.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
  }

  private readLines(stream: NodeJS.ReadableStream | null, json: boolean): void {
    if (!stream) return;
    let pending = '';
    stream.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        this.remember(line);
        if (json) this.parse(line);
      }
    });
  }

  private parse(text: string): void {
    let line: LogLine;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return;
      line = parsed as LogLine;
    } catch {
      return; // not a JSON line
    }
    if (typeof line.level === 'number' && line.level >= WARN_LEVEL) this.warnings.push(line);
    for (const listener of [...this.lineListeners]) listener(line);
  }
}

/** Every child of the benchmark, each in its own process group. */
export class Children {
  readonly started: ManagedChild[] = [];
  private reaper: ChildProcess | undefined;

  /** Starts the reaper: it ends every group it was told of when this process goes away. */
  async startReaper(): Promise<void> {
    const reaper = this.spawnNode({
      name: 'reaper',
      script: 'bench/children/reaper.ts',
      env: process.env,
      ipc: true,
    });
    this.reaper = reaper.child;
    await reaper.waitForLine((line) => line.reaper === 'ready', 30_000);
  }

  start(options: StartOptions): ManagedChild {
    const started = this.spawnNode(options);
    this.started.push(started);
    this.reaper?.send?.({ pgid: started.pid });
    return started;
  }

  private spawnNode(options: StartOptions): ManagedChild {
    const child = spawn(
      process.execPath,
      [...(options.nodeArgs ?? []), '--import', TSX, options.script],
      {
        cwd: ROOT,
        env: options.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? (['ipc'] as const) : [])],
      },
    );
    return new ManagedChild(options.name, child);
  }

  /** SIGTERM to every group, SIGKILL to those still there after `graceMs`; then the reaper. */
  async stopAll(graceMs: number): Promise<void> {
    const running = this.started.filter((child) => child.running);
    for (const child of running) signalGroup(child.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(running.map((child) => child.exited)),
      new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    this.killAllNow();
  }

  /** SIGKILL to every group at once (a second Ctrl+C, or the process exiting). */
  killAllNow(): void {
    for (const child of this.started) {
      // The group may hold processes the leader started, even after the leader has exited.
      signalGroup(child.pid, 'SIGKILL');
    }
    if (this.reaper?.connected) this.reaper.disconnect();
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is gone already.
  }
}

/** `count` distinct free TCP ports on the loopback interface. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
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

/**
 * Waits until `GET <opsUrl>/readyz` answers 200: the process is started and its dependencies
 * (message bus, database, Redis, storage) answer. Fails when it exits or after `timeoutMs`.
 */
export async function waitUntilReady(
  child: ManagedChild,
  opsUrl: string,
  timeoutMs: number,
): Promise<void> {
  let last = 'no answer yet';
  let stopped = false;
  const poll = async () => {
    while (!stopped) {
      try {
        const res = await fetch(`${opsUrl}/readyz`, { signal: AbortSignal.timeout(2000) });
        last = `HTTP ${res.status} ${(await res.text()).slice(0, 200)}`;
        if (res.status === 200) return;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  try {
    await child.bounded(poll(), timeoutMs, () => `readiness (${opsUrl}/readyz: ${last})`);
  } finally {
    stopped = true;
  }
}
