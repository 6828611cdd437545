import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

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

/** Counts a group as started by this process, killed on exit unless seen gone before. */
export function trackGroup(pgid: number): void {
  groups.add(pgid);
}

/** A group seen gone: never signalled again on exit. */
export function forgetGroup(pgid: number): void {
  groups.delete(pgid);
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

/** Kills every process group this process started and has not seen go. */
export async function killEveryGroup(): Promise<void> {
  for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
  const until = Date.now() + 10_000;
  for (const pgid of [...groups]) {
    while (groupAlive(pgid) && Date.now() < until) await sleep(50);
    groups.delete(pgid);
  }
}
