import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import * as amqp from 'amqplib';
import { ChildGroup } from '../../../bench/support/child-group.js';
import { freePorts } from '../../../bench/support/free-ports.js';
import { sleep } from '../../../bench/support/process-groups.js';

const run = promisify(execFile);

/**
 * Where the broker's own scripts are. Debian's `/usr/sbin/rabbitmq-server` is a wrapper that,
 * run as root, switches to the `rabbitmq` user (and drops the environment that names this
 * node's files); the scripts it calls live in `/usr/lib/rabbitmq/bin`. Elsewhere (a generic
 * Unix install) the scripts on the PATH are those.
 */
function scriptsDir(): string {
  const debian = '/usr/lib/rabbitmq/bin';
  if (existsSync(path.join(debian, 'rabbitmq-server'))) return debian;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(path.join(dir, 'rabbitmq-server'))) return dir;
  }
  throw new Error('rabbitmq-server was not found: the fault suite runs a RabbitMQ node of its own');
}

/**
 * A RabbitMQ node of the suite's own, so it can be stopped and started again without touching
 * the shared broker: its own node name, AMQP and distribution ports, Erlang cookie (in its own
 * HOME, which rabbitmqctl reads too), data, logs and configuration under `dir`, and no plugins
 * (the management plugin would need a port of its own). RABBITMQ_CONF_ENV_FILE points at a file
 * of its own too, so the system's `rabbitmq-env.conf` (which names the shared node) is not read.
 */
export class OwnBroker {
  private group: ChildGroup | undefined;
  private starts = 0;

  private constructor(
    private readonly dir: string,
    readonly nodeName: string,
    readonly port: number,
    private readonly distPort: number,
  ) {}

  get url(): string {
    return `amqp://guest:guest@127.0.0.1:${this.port}`;
  }

  static async create(dir: string): Promise<OwnBroker> {
    await mkdir(path.join(dir, 'home'), { recursive: true });
    const [port, distPort] = (await freePorts(2)) as [number, number];
    const broker = new OwnBroker(
      dir,
      `faults-${randomBytes(4).toString('hex')}@localhost`,
      port,
      distPort,
    );
    const cookie = path.join(dir, 'home', '.erlang.cookie');
    await writeFile(cookie, randomBytes(16).toString('hex'));
    await chmod(cookie, 0o400);
    await writeFile(path.join(dir, 'enabled_plugins'), '[].\n');
    await writeFile(
      path.join(dir, 'rabbitmq-env.conf'),
      'ERL_EPMD_ADDRESS=127.0.0.1\nexport ERL_FLAGS="-kernel inet_dist_use_interface {127,0,0,1}"\n',
    );
    await writeFile(
      path.join(dir, 'rabbitmq.conf'),
      [
        `listeners.tcp.local = 127.0.0.1:${port}`,
        // Little free disk must not block publishers in the middle of a scenario.
        'disk_free_limit.absolute = 1MB',
        'log.console = false',
        'log.file.level = warning',
        '',
      ].join('\n'),
    );
    return broker;
  }

  private env(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      HOME: path.join(this.dir, 'home'),
      RABBITMQ_NODENAME: this.nodeName,
      RABBITMQ_NODE_PORT: String(this.port),
      RABBITMQ_DIST_PORT: String(this.distPort),
      RABBITMQ_MNESIA_BASE: path.join(this.dir, 'mnesia'),
      RABBITMQ_LOG_BASE: path.join(this.dir, 'log'),
      RABBITMQ_CONFIG_FILE: path.join(this.dir, 'rabbitmq.conf'),
      RABBITMQ_ADVANCED_CONFIG_FILE: path.join(this.dir, 'advanced.config'),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(this.dir, 'enabled_plugins'),
      RABBITMQ_PLUGINS_EXPAND_DIR: path.join(this.dir, 'plugins-expand'),
      RABBITMQ_CONF_ENV_FILE: path.join(this.dir, 'rabbitmq-env.conf'),
      RABBITMQ_PID_FILE: path.join(this.dir, 'rabbitmq.pid'),
      ERL_EPMD_ADDRESS: '127.0.0.1',
    };
  }

  /** Starts the node (again, on the same port and data) and waits until it takes connections. */
  async start(timeoutMs = 60_000): Promise<void> {
    this.starts += 1;
    const group = new ChildGroup(
      `rabbitmq ${this.nodeName} (start ${this.starts})`,
      path.join(scriptsDir(), 'rabbitmq-server'),
      [],
      { env: this.env(), cwd: this.dir },
    );
    this.group = group;
    const until = Date.now() + timeoutMs;
    for (;;) {
      try {
        const connection = await amqp.connect(this.url);
        await connection.close();
        return;
      } catch (error) {
        if (group.exitCode !== undefined) {
          throw new Error(`RabbitMQ node exited while starting:\n${group.recentOutput()}`, {
            cause: error,
          });
        }
        if (Date.now() > until) {
          throw new Error(
            `RabbitMQ node not accepting connections within ${timeoutMs} ms ` +
              `(${(error as Error).message}):\n${group.recentOutput()}`,
            { cause: error },
          );
        }
        await sleep(250);
      }
    }
  }

  /** `rabbitmqctl -n <node> stop`, as an operator would; the process group is killed if that fails. */
  async stop(): Promise<void> {
    const group = this.group;
    if (group === undefined) return;
    try {
      await run(path.join(scriptsDir(), 'rabbitmqctl'), ['-n', this.nodeName, 'stop'], {
        env: this.env(),
        timeout: 30_000,
      });
    } catch {
      group.signal('SIGTERM');
    }
    if (!(await group.gone(20_000))) await group.kill();
    this.group = undefined;
  }

  running(): boolean {
    return this.group?.alive() ?? false;
  }

  /** Ends the node however it is (afterAll). */
  async destroy(): Promise<void> {
    await this.group?.kill().catch(() => {});
    this.group = undefined;
  }
}
