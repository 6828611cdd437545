/**
 * CPU time and memory of processes, read from /proc (Linux). The parsers are pure, so they are
 * unit-tested on sample lines (test/unit/bench-figures.test.ts); the readers return null for a
 * process that is gone or unreadable, never throw.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat the benchmark uses. */
export interface ProcStat {
  pid: number;
  /** The executable's name (`comm`), at most 15 characters, may hold spaces and parentheses. */
  comm: string;
  ppid: number;
  /** User and system CPU time of every thread of the process, in clock ticks. */
  utime: number;
  stime: number;
}

/**
 * Parses one /proc/<pid>/stat line (proc(5)): `pid (comm) state ppid pgrp ... utime stime ...`.
 * `comm` is cut at the last `)`, since it may itself contain `)` and spaces.
 */
export function parseProcStat(line: string): ProcStat {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${line.slice(0, 80)}`);
  const pid = Number(line.slice(0, open).trim());
  // After ")": field 3 (state) is index 0, so field n is index n - 3.
  const rest = line
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const field = (n: number) => Number(rest[n - 3]);
  const stat = {
    pid,
    comm: line.slice(open + 1, close),
    ppid: field(4),
    utime: field(14),
    stime: field(15),
  };
  if (![stat.pid, stat.ppid, stat.utime, stat.stime].every(Number.isInteger)) {
    throw new Error(`not a /proc stat line: ${line.slice(0, 80)}`);
  }
  return stat;
}

/** A `Vm...:   1234 kB` field of /proc/<pid>/status, in bytes; null when absent. */
export function parseStatusBytes(status: string, field: 'VmHWM' | 'VmRSS'): number | null {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : null;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** /proc/<pid>/stat of one process, or null when it is gone. */
function readProcStat(pid: number): ProcStat | null {
  const text = readText(`/proc/${pid}/stat`);
  return text === null ? null : parseProcStat(text);
}

/** Every process visible in /proc, read once. */
function readAllProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** `root` and every process below it, from one reading of /proc. */
export function processTree(root: number, all: readonly ProcStat[]): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  for (const stat of all) {
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(stat);
    children.set(stat.ppid, siblings);
  }
  const tree = all.filter((stat) => stat.pid === root);
  for (let i = 0; i < tree.length; i++) {
    tree.push(...(children.get((tree[i] as ProcStat).pid) ?? []));
  }
  return tree;
}

/** Clock ticks per second of the utime and stime fields (USER_HZ, 100 on Linux in practice). */
export function clockTicksPerSecond(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    if (Number.isInteger(value) && value > 0) return value;
  } catch {
    // getconf missing: the kernel's USER_HZ is 100 on every mainstream architecture.
  }
  return 100;
}

/** A process to measure, by name; its descendants count with it. */
export interface Measured {
  name: string;
  pid: number;
}

/** CPU ticks used so far by each measured process and its descendants; null when it is gone. */
export type CpuSnapshot = Map<string, number | null>;

export function cpuSnapshot(measured: readonly Measured[]): CpuSnapshot {
  const all = readAllProcStats();
  const snapshot: CpuSnapshot = new Map();
  for (const { name, pid } of measured) {
    const tree = processTree(pid, all);
    snapshot.set(
      name,
      tree.length === 0 ? null : tree.reduce((sum, stat) => sum + stat.utime + stat.stime, 0),
    );
  }
  return snapshot;
}

/** CPU seconds each process used between two snapshots; null when it was not there for both. */
export function cpuSecondsBetween(
  before: CpuSnapshot,
  after: CpuSnapshot,
  ticksPerSecond: number,
): Map<string, number | null> {
  const seconds = new Map<string, number | null>();
  for (const [name, end] of after) {
    const start = before.get(name);
    seconds.set(
      name,
      end === null || start === null || start === undefined ? null : (end - start) / ticksPerSecond,
    );
  }
  return seconds;
}

/** The processes whose parent is `pid`. */
export function childProcesses(pid: number): ProcStat[] {
  return readAllProcStats().filter((stat) => stat.ppid === pid);
}

function cmdline(pid: number): string {
  return (readText(`/proc/${pid}/cmdline`) ?? '').replace(/\0/g, ' ').trim();
}

/**
 * The pid of a running program by its `comm` name (`beam.smp`, `redis-server`): of several,
 * the first whose command line contains `prefer`; null when there is none.
 */
export function findProcess(comm: string, prefer?: string): number | null {
  const matches = readAllProcStats().filter((stat) => stat.comm === comm);
  const preferred =
    prefer === undefined ? undefined : matches.find((stat) => cmdline(stat.pid).includes(prefer));
  return (preferred ?? matches[0])?.pid ?? null;
}

/** Peak resident memory (VmHWM) of a process in bytes, or null. */
export function peakRss(pid: number): number | null {
  const status = readText(`/proc/${pid}/status`);
  return status === null ? null : parseStatusBytes(status, 'VmHWM');
}

/** Current resident memory (VmRSS) of a process in bytes, or null. */
export function currentRss(pid: number): number | null {
  const status = readText(`/proc/${pid}/status`);
  return status === null ? null : parseStatusBytes(status, 'VmRSS');
}

/**
 * Resets the peak (VmHWM) of a process of ours to its current RSS (`echo 5 > clear_refs`,
 * proc(5)), so a peak reads for one measured window; false when the kernel refuses.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
