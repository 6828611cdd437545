import { execFile, spawn } from 'node:child_process';
import { access, constants, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { EXIT, main } from '../../libs/client/src/cli/cli-main.js';
import { UNKNOWN_KEY, sendJson, serve, type LocalServer } from './servers.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * `npx licensing ...` from the repository root after `npm install`: npm runs the root
 * package.json's own `licensing` bin, a launcher that runs the command line from its TypeScript
 * source, so no build is needed and none can be out of date.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT = join(ROOT, 'libs/client');

/** `npx --no-install licensing ...` in the repository root: it can never download a package. */
function npx(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['--no-install', 'licensing', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What the command line prints in this process, from the current source. */
async function inProcess(argv: string[]) {
  let stdout = '';
  const code = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: () => true },
    env: {},
  });
  return { code, stdout };
}

const servers: LocalServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

describe('npx licensing from the repository root', () => {
  test('npx --no-install licensing --help prints the usage of the current source and exits 0', async () => {
    const help = await npx(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: licensing <command> [options]');
    for (const command of [
      'checkout',
      'verify FILE',
      'keys',
      'heartbeat',
      '--keys FILE',
      '--offline-grace',
      '--keep-alive',
    ]) {
      expect(help.stdout).toContain(command);
    }
    // Exactly what the source prints, so a stale build cannot be what ran.
    expect(help.stdout).toBe((await inProcess(['--help'])).stdout);

    const pkg = JSON.parse(await readFile(join(CLIENT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(await npx(['--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    const wrong = await npx(['activate']);
    expect(wrong.code).toBe(EXIT.USAGE);
    expect(wrong.stderr).toContain('licensing: --store is required');
  }, 60_000);

  test('npx --no-install licensing validate says an unknown key is unknown, and exits 3', async () => {
    // Spec 4.2 rule 1: the answer for a key the store does not know.
    const server = await serve((_req, res) => sendJson(res, 200, { data: UNKNOWN_KEY }));
    servers.push(server);
    const result = await npx([
      'validate',
      '--store',
      server.url,
      '--product',
      '1',
      '--key',
      'unknown',
    ]);
    expect(result.code).toBe(EXIT.LICENSE);
    expect(result.stdout).toContain('The license key is unknown');
    expect(result.stdout).not.toMatch(/unlimited/i);
    expect(result.stdout).toBe(
      (await inProcess(['validate', '--store', server.url, '--product', '1', '--key', 'unknown']))
        .stdout,
    );
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      path: `${API_BASE}/licenses/validate`,
    });
    expect(new URLSearchParams(server.requests[0]!.body).get('license_key')).toBe('unknown');
  }, 60_000);

  test('the launcher is the root bin, executable, and not part of the published client package', async () => {
    const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      bin?: Record<string, string>;
    };
    const launcher = root.bin?.licensing;
    expect(launcher).toMatch(/^\.\/libs\/client\//);
    await access(join(ROOT, launcher!), constants.X_OK);

    const { stdout } = await promisify(execFile)(
      'npm',
      ['pack', '--dry-run', '--json', '--ignore-scripts'],
      { cwd: CLIENT },
    );
    const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map(
      (f) => f.path,
    );
    expect(files).toContain('package.json');
    expect(files).not.toContain(launcher!.replace('./libs/client/', ''));
  }, 60_000);
});
