import { randomBytes } from 'node:crypto';
import { generateSigningKey } from '../../libs/config/index.js';
import { deleteQueuesOf, testAmqpPrefix } from './amqp-queues.js';
import { ChildGroup, type LogLine } from '../../bench/support/child-group.js';

/** How long a service may take to print its ready line (tsx compiles it on start). */
const START_TIMEOUT_MS = 60_000;
/** How long a stopping service gets before SIGKILL. */
const STOP_GRACE_MS = 20_000;

/** A service started as an operator would (`npm run start:<service>`), with its log lines. */
export interface ServiceProcess {
  /** The JSON log lines printed so far. */
  lines: LogLine[];
  /** The `url` of the first line with this message (`gateway listening`, ...). */
  urlOf(message: string): string;
  /** SIGTERM, as an orchestrator stops a replica; whether it ended within the grace time. */
  stop(): Promise<boolean>;
  /** SIGKILL: the replica dies at once, with whatever it had in hand. */
  kill(): Promise<void>;
}

/**
 * Services started as their own processes, in their own process groups, all stopped (SIGTERM,
 * then SIGKILL after 20 s) by `stopAll`.
 */
export class ServiceProcesses {
  private readonly started: ChildGroup[] = [];
  private readonly prefixes = new Set<string | undefined>();

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Starts `npm run <script>` and waits for the log line that says it is ready. */
  async start(script: string, ready: string, env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
    this.prefixes.add(env.AMQP_PREFIX ?? this.env.AMQP_PREFIX);
    const group = new ChildGroup(script, 'npm', ['run', script, '--silent'], {
      env: { ...this.env, ...env },
    });
    this.started.push(group);
    await group.waitForLog(ready, START_TIMEOUT_MS);
    return {
      lines: group.lines,
      urlOf: (message) => String(group.lines.find((line) => line.msg === message)?.url),
      stop: () => group.terminate(STOP_GRACE_MS),
      kill: () => group.kill(),
    };
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.started.map((group) => group.terminate(STOP_GRACE_MS)));
    await deleteQueuesOf([...this.prefixes], this.env.AMQP_URL);
  }
}

/**
 * The environment of a system whose services run as processes of their own: this process's,
 * with names of the system's own (queues, databases, Redis keys), free ports on the loopback,
 * package files under `storageDir`, no scheduled tasks, JSON log lines at `info`, and none of
 * this process's settings that would send a service elsewhere (object store, public addresses,
 * tracing). `overrides` come last.
 */
export function ownSystemEnv({
  label,
  adminToken,
  storageDir,
  overrides = {},
}: {
  /** Letters, digits and dashes: part of every name the system uses. */
  label: string;
  adminToken: string;
  storageDir: string;
  overrides?: NodeJS.ProcessEnv;
}): NodeJS.ProcessEnv {
  const id = randomBytes(4).toString('hex');
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(inherited)) {
    if (/^(S3_|OTEL_)/.test(name)) delete inherited[name];
  }
  for (const name of ['PUBLIC_URL', 'DOWNLOAD_SERVICE_URL', 'DATA_DIR']) delete inherited[name];
  return {
    ...inherited,
    AMQP_PREFIX: testAmqpPrefix(label),
    MONGODB_DB_PREFIX: `${label}-${id}`,
    REDIS_PREFIX: `test:${label}:${id}`,
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_PORT: '0',
    DOWNLOAD_PORT: '0',
    METRICS_PORT: '0',
    ADMIN_TOKENS: adminToken,
    DOWNLOAD_SIGNING_KEY: randomBytes(24).toString('base64url'),
    SIGNING_KEY: generateSigningKey(),
    STORAGE_DIR: storageDir,
    SCHEDULED_TASKS: 'off',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    ...overrides,
  };
}
