/**
 * The benchmark's child processes: every one runs `node --import tsx <script>` directly (no npm,
 * no tsx CLI in between), so its pid is the node process that does the work. Each is a ChildGroup
^ * (bench/support/child-group.ts, shared with the tests that run services as processes of their
 * own), the leader of its own process group; `stopAll` ends every group (SIGTERM, then SIGKILL),
 * the exit of this process kills what is left, and a reaper process (children/reaper.ts) ends
 * them if this process dies without either.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildGroup } from './support/child-group.js';
import { sleep } from './support/process-groups.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSX = import.meta.resolve('tsx');

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

function startNode(options: StartOptions): ChildGroup {
  return new ChildGroup(
    options.name,
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', TSX, options.script],
    { env: options.env, cwd: ROOT, ipc: options.ipc },
  );
}

/** Every child of the benchmark, each in its own process group. */
export class Children {
  readonly started: ChildGroup[] = [];
  private reaper: ChildGroup | undefined;

  /** Starts the reaper: it ends every group it was told of when this process goes away. */
  async startReaper(): Promise<void> {
    const reaper = startNode({
      name: 'reaper',
      script: 'bench/children/reaper.ts',
      env: process.env,
      ipc: true,
    });
    this.reaper = reaper;
    await reaper.waitForLine((line) => line.reaper === 'ready', 30_000, 'its start-up line');
  }

  start(options: StartOptions): ChildGroup {
    const started = startNode(options);
    this.started.push(started);
    this.reaper?.child.send?.({ pgid: started.pgid });
    return started;
  }

  /** SIGTERM to every group, SIGKILL to those still there after `graceMs`; then the reaper. */
  async stopAll(graceMs: number): Promise<void> {
    await Promise.all(this.started.map((child) => child.terminate(graceMs)));
    if (this.reaper?.child.connected) this.reaper.child.disconnect();
  }
}

/**
 * Waits until `GET <opsUrl>/readyz` answers 200: the process is started and its dependencies
 * (message bus, database, Redis, storage) answer. Fails when it exits or after `timeoutMs`.
 */
export async function waitUntilReady(
  child: ChildGroup,
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
      await sleep(200);
    }
  };
  try {
    await child.bounded(poll(), timeoutMs, () => `readiness (${opsUrl}/readyz: ${last})`);
  } finally {
    stopped = true;
  }
}
