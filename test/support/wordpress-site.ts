import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ChildGroup } from '../../bench/support/child-group.js';
import { freePort } from '../../bench/support/free-ports.js';
import { sleep } from '../../bench/support/process-groups.js';

/**
 * A real WordPress for a test: Debian's /usr/share/wordpress copied into a directory of its own
 * (copied, not linked: WordPress finds ABSPATH from its files' own paths), on a MariaDB of its
 * own (a data directory made for it, a unix socket, no TCP), served by `php -S` on a free port
 * of the loopback. WordPress's calls to its own servers are answered by a must-use plugin
 * (test/wordpress/php/offline.php); the licensing service's port is allowed for downloads.
 */
export const WORDPRESS_SOURCE = process.env.WORDPRESS_SOURCE ?? '/usr/share/wordpress';
const PHP_DIR = path.resolve(import.meta.dirname, '..', 'wordpress', 'php');
/** What any one process call may take. */
const CALL_TIMEOUT_MS = 60_000;
const run = promisify(execFile);

export const ADMIN_USER = 'admin';
export const ADMIN_PASSWORD = 'wordpress-test-password';

/** Whether this machine has what the test needs; the missing commands otherwise. */
export function missingForWordPress(): string[] {
  const commands = ['php', 'mariadbd', 'mariadb-install-db', 'mariadb', 'zip', 'cp'];
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin'];
  const missing = commands.filter((name) => !dirs.some((dir) => existsSync(path.join(dir, name))));
  if (!existsSync(path.join(WORDPRESS_SOURCE, 'wp-settings.php'))) missing.push(WORDPRESS_SOURCE);
  return missing;
}

async function call(command: string, args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      cwd,
      timeout: CALL_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${failed.message}\n${(failed.stdout ?? '').slice(-500)}`, { cause: error });
  }
}

/** As root (a container), the database server is told to run as root. */
const asRoot = () => (process.getuid?.() === 0 ? ['--user=root'] : []);

export class WordPressSite {
  private constructor(
    /** The directory the site and its database live in. */
    readonly root: string,
    /** WordPress's own directory (ABSPATH). */
    readonly dir: string,
    /** The site's address: http://127.0.0.1:<port>. */
    readonly url: string,
    private readonly database: ChildGroup,
    private server: ChildGroup | undefined,
  ) {}

  /** The plugins' directory. */
  get plugins(): string {
    return path.join(this.dir, 'wp-content', 'plugins');
  }

  /**
   * Starts the database, copies and installs WordPress, and serves it. `servicePort`: the
   * licensing service's port on the loopback, which WordPress may download from.
   */
  static async start(servicePort: number): Promise<WordPressSite> {
    const root = await mkdtemp(path.join(tmpdir(), 'wordpress-'));
    const socket = path.join(root, 'mysql.sock');
    await call('mariadb-install-db', [
      '--no-defaults',
      `--datadir=${root}/db`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...asRoot(),
    ]);
    const database = new ChildGroup(
      'mariadbd',
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${root}/db`,
        `--socket=${socket}`,
        '--skip-networking',
        `--pid-file=${root}/mariadbd.pid`,
        `--log-error=${root}/mariadbd.err`,
        '--innodb-buffer-pool-size=16M',
        ...asRoot(),
      ],
      { env: process.env },
    );
    const port = await freePort();
    const site = new WordPressSite(
      root,
      path.join(root, 'wordpress'),
      `http://127.0.0.1:${port}`,
      database,
      undefined,
    );
    try {
      await database.bounded(untilExists(socket), 35_000, () => 'its socket');
      await call('mariadb', [
        '--no-defaults',
        `--socket=${socket}`,
        '-uroot',
        '-e',
        'CREATE DATABASE wordpress',
      ]);
      await call('cp', ['-a', WORDPRESS_SOURCE, site.dir]);
      await writeFile(path.join(site.dir, 'wp-config.php'), wpConfig(site, socket, servicePort));
      const mu = path.join(site.dir, 'wp-content', 'mu-plugins');
      await mkdir(mu, { recursive: true });
      await copyFile(path.join(PHP_DIR, 'offline.php'), path.join(mu, 'offline.php'));
      await site.php('install', ADMIN_USER, ADMIN_PASSWORD);
      await site.serve(port);
      return site;
    } catch (error) {
      await site.stop();
      throw error;
    }
  }

  /** The themes' directory. */
  get themes(): string {
    return path.join(this.dir, 'wp-content', 'themes');
  }

  /** Runs a command of test/wordpress/php/site.php in a PHP process of its own; its JSON. */
  php<T = Record<string, unknown>>(command: string, ...args: string[]): Promise<T> {
    return this.script<T>('site.php', command, ...args);
  }

  /** Runs a command of a script of test/wordpress/php/ in a PHP process of its own; its JSON. */
  async script<T>(script: string, command: string, ...args: string[]): Promise<T> {
    let stdout: string;
    try {
      stdout = await call('php', [path.join(PHP_DIR, script), this.dir, command, ...args]);
    } catch (error) {
      // WordPress answers a fatal error with its "critical error" page: the log says which.
      const logged = (await this.debugLog())
        .split('\n')
        .filter((line) => !/PHP Deprecated/.test(line));
      const exited = (error as Error).message.split('\n', 1)[0];
      throw new Error(`${exited}\nWordPress's log ends with:\n${logged.slice(-15).join('\n')}`, {
        cause: error,
      });
    }
    const last = stdout.trim().split('\n').at(-1) ?? '';
    try {
      return JSON.parse(last) as T;
    } catch {
      throw new Error(`${script} ${command} printed no JSON:\n${stdout}`);
    }
  }

  /** What WordPress's debug log holds (PHP's warnings and notices while it ran). */
  debugLog(): Promise<string> {
    return readIfThere(path.join(this.root, 'debug.log'));
  }

  /** The URLs WordPress asked of servers other than the loopback (the must-use plugin's list). */
  async outsideRequests(): Promise<string[]> {
    const text = await readIfThere(path.join(this.dir, 'wp-content', 'outside-requests.log'));
    return text.split('\n').filter((line) => line !== '');
  }

  private async serve(port: number): Promise<void> {
    // Workers: a page's styles and scripts load side by side.
    this.server = new ChildGroup('php -S', 'php', ['-S', `127.0.0.1:${port}`, '-t', this.dir], {
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' },
    });
    const answers = async () => {
      // Bounded below too, so the loop ends even when the wait has given up on it.
      for (const until = Date.now() + 30_000; Date.now() < until;) {
        try {
          const response = await fetch(`${this.url}/wp-login.php`, {
            signal: AbortSignal.timeout(5_000),
          });
          if (response.ok) return;
        } catch {
          // not listening yet
        }
        await sleep(100);
      }
      throw new Error(`php -S: no answer from ${this.url}/wp-login.php within 30 s`);
    };
    await this.server.bounded(answers(), 35_000, () => 'an answer from wp-login.php');
  }

  /** Stops php -S and the database and removes the directory. */
  async stop(): Promise<void> {
    await this.server?.terminate(10_000);
    await this.database.terminate(30_000);
    await rm(this.root, { recursive: true, force: true });
  }
}

async function untilExists(file: string): Promise<void> {
  for (const until = Date.now() + 30_000; !existsSync(file);) {
    if (Date.now() > until) throw new Error(`no ${file} within 30 s`);
    await sleep(50);
  }
}

function readIfThere(file: string): Promise<string> {
  return existsSync(file) ? readFile(file, 'utf8') : Promise.resolve('');
}

function wpConfig(site: WordPressSite, socket: string, servicePort: number): string {
  const define = (name: string, value: string | number | boolean) =>
    `define(${JSON.stringify(name)}, ${JSON.stringify(value)});`;
  const salts = ['AUTH', 'SECURE_AUTH', 'LOGGED_IN', 'NONCE'].flatMap((name) => [
    define(`${name}_KEY`, `test ${name} key`),
    define(`${name}_SALT`, `test ${name} salt`),
  ]);
  return [
    '<?php',
    define('DB_NAME', 'wordpress'),
    define('DB_USER', 'root'),
    define('DB_PASSWORD', ''),
    define('DB_HOST', `localhost:${socket}`),
    define('DB_CHARSET', 'utf8mb4'),
    define('DB_COLLATE', ''),
    define('WP_HOME', site.url),
    define('WP_SITEURL', site.url),
    // Files are written by this user, so no FTP credentials are asked for.
    define('FS_METHOD', 'direct'),
    // The test runs the events it means to, in processes of its own.
    define('DISABLE_WP_CRON', true),
    define('WP_DEBUG', true),
    define('WP_DEBUG_LOG', path.join(site.root, 'debug.log')),
    define('WP_DEBUG_DISPLAY', false),
    define('LICENSING_TEST_SERVICE_PORT', servicePort),
    ...salts,
    "$table_prefix = 'wp_';",
    "if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');",
    "require_once ABSPATH . 'wp-settings.php';",
    '',
  ].join('\n');
}
