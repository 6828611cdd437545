/**
 * The system under test once started (system.ts), every part a process of its own: where each
 * is reached, and what is said of its processes with the results (their pids, the CPU time
 * measured, the warnings the services logged).
 */
import type { ChildGroup } from './support/child-group.js';
import { childProcesses, type Measured } from './cpu.js';
import { BASELINE, FLOOR, SERVICES, type ServiceName } from './settings.js';

/** pino's numeric levels: 40 is warn. */
const WARN_LEVEL = 40;

export interface ObjectStore {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
}

export interface RunningSystem {
  id: string;
  gatewayUrl: string;
  /** A gateway with DOWNLOAD_DELIVERY=redirect (not among the measured processes). */
  redirectGatewayUrl: string;
  redirectGateway: ChildGroup;
  managementUrl: string;
  adminToken: string;
  bareUrl: string;
  /** The RPC floor app (bench/children/rpc-floor.ts). */
  floorUrl: string;
  objectStore: ObjectStore;
  /** The database server and the prefix of the services' databases on it. */
  mongodbUrl: string;
  databasePrefix: string;
  services: Record<ServiceName, ChildGroup>;
  bare: ChildGroup;
  floor: ChildGroup;
  loadWorker: ChildGroup;
  /** The database server's pid, when the benchmark started it. */
  databasePid: number | null;
  rabbitmqPid: number | null;
  redisPid: number | null;
  objectStorePid: number;
}

/** Every process whose CPU time is reported, under the names the report uses. */
export function measuredProcesses(system: RunningSystem): Measured[] {
  const measured: Measured[] = SERVICES.map((name) => ({
    name,
    pid: system.services[name].pid,
  }));
  measured.push({ name: BASELINE, pid: system.bare.pid });
  measured.push({ name: FLOOR, pid: system.floor.pid });
  if (system.rabbitmqPid !== null) measured.push({ name: 'RabbitMQ', pid: system.rabbitmqPid });
  if (system.databasePid !== null) measured.push({ name: 'database', pid: system.databasePid });
  if (system.redisPid !== null) measured.push({ name: 'Redis', pid: system.redisPid });
  measured.push({ name: 'object store', pid: system.objectStorePid });
  return measured;
}

/** Names what each measured pid is, and checks each service is one process doing the work. */
export function describeProcesses(system: RunningSystem): { text: string; notes: string[] } {
  const notes: string[] = [];
  const parts = SERVICES.map((name) => {
    const pid = system.services[name].pid;
    const children = childProcesses(pid).map((child) => `${child.comm} ${child.pid}`);
    if (children.length > 0) {
      notes.push(`${name} (pid ${pid}) had child processes (${children.join(', ')}), counted in.`);
    }
    return `${name} ${pid}`;
  });
  parts.push(`bare Express ${system.bare.pid}`);
  parts.push(`RPC floor ${system.floor.pid}`);
  parts.push(
    system.rabbitmqPid === null
      ? 'RabbitMQ not found (no beam.smp process)'
      : `RabbitMQ ${system.rabbitmqPid} (beam.smp, shared)`,
  );
  parts.push(
    system.databasePid === null
      ? 'database external (MONGODB_URL), not measured'
      : `database ${system.databasePid}`,
  );
  parts.push(
    system.redisPid === null
      ? 'Redis not found (no redis-server process)'
      : `Redis ${system.redisPid} (shared)`,
  );
  parts.push(`object store ${system.objectStorePid}`);
  const text =
    `${parts.join(', ')}; each service pid is the node process running ` +
    '`services/<name>/main.ts`' +
    (notes.length === 0 ? ', with no child process' : '');
  return { text, notes };
}

/** The services' log lines at warn level or above, summed up. */
export function serviceWarnings(system: RunningSystem): string[] {
  const notes: string[] = [];
  for (const name of SERVICES) {
    const warnings = system.services[name].lines.filter(
      (line) => typeof line.level === 'number' && line.level >= WARN_LEVEL,
    );
    if (warnings.length === 0) continue;
    const messages = [...new Set(warnings.map((line) => String(line.msg)))].slice(0, 3);
    notes.push(
      `${name} logged ${warnings.length} warning or error lines, e.g. ${messages
        .map((m) => `"${m}"`)
        .join(', ')}.`,
    );
  }
  return notes;
}
