import { mkdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { ChildGroup } from '../../../bench/support/child-group.js';
import { freePort } from '../../../bench/support/free-ports.js';
import { sleep } from '../../../bench/support/process-groups.js';

/** Whether a Redis server answers PING on this port. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/** A redis-server of the suite's own on a free port, keeping nothing on disk. */
export class OwnRedis {
  private group: ChildGroup | undefined;

  private constructor(
    private readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async create(dir: string): Promise<OwnRedis> {
    await mkdir(dir, { recursive: true });
    return new OwnRedis(dir, await freePort());
  }

  /** Starts it (again, on the same port) and waits until it answers PING. */
  async start(timeoutMs = 15_000): Promise<void> {
    const group = new ChildGroup(
      'redis-server',
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.dir,
      ],
      { env: { PATH: process.env.PATH }, cwd: this.dir },
    );
    this.group = group;
    const until = Date.now() + timeoutMs;
    while (!(await pong(this.port))) {
      if (group.exitCode !== undefined) {
        throw new Error(`redis-server exited while starting:\n${group.recentOutput()}`);
      }
      if (Date.now() > until)
        throw new Error(`redis-server not answering:\n${group.recentOutput()}`);
      await sleep(100);
    }
  }

  /** SIGKILL: Redis is gone at once, its connections reset. */
  async kill(): Promise<void> {
    await this.group?.kill();
    this.group = undefined;
  }

  running(): boolean {
    return this.group?.alive() ?? false;
  }
}
