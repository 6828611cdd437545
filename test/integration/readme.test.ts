import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../libs/config/index.js';
import { freePort, groupGone } from '../support/child-group.js';

/**
 * The README runs as written: the shell blocks of its walk-through, in order, against a system
 * started as `npm start` starts it. A command that gets a non-2xx answer fails the run, unless the
 * README says on that command which status to expect (`# → 403`).
 */

const root = path.resolve(import.meta.dirname, '..', '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

/** The text of a `## ` section of the README, up to the next one. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`README has no section "${title}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

function shellBlocks(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/**
 * Marks each command whose last line says `# → NNN` with the status it expects. A command may
 * span lines ending in `\`; its comment can only be on its last line.
 */
function withExpectations(block: string): string {
  const out: string[] = [];
  let command: string[] = [];
  for (const line of block.split('\n')) {
    command.push(line);
    if (line.endsWith('\\')) continue;
    const expected = /#\s*→\s*(\d{3})\b/.exec(line)?.[1];
    if (expected !== undefined) command[0] = `EXPECT_STATUS=${expected} ${command[0]}`;
    out.push(...command);
    command = [];
  }
  return [...out, ...command].join('\n');
}

/**
 * Every curl of the README goes through this function: it records the status of the answer
 * (from the headers curl dumps) and fails the run on a status the README does not expect.
 */
const PRELUDE = String.raw`
set -euo pipefail
curl() {
  local headers status expected="${'${EXPECT_STATUS:-2xx}'}"
  headers=$(mktemp)
  command curl -D "$headers" "$@" || { echo "README: curl failed: curl $*" >&2; rm -f "$headers"; return 1; }
  status=$(awk '/^HTTP\//{s=$2} END{print s}' "$headers")
  rm -f "$headers"
  if [[ $expected == 2xx && $status == 2* ]] || [[ $status == "$expected" ]]; then return 0; fi
  echo "README: HTTP $status (expected $expected) from: curl $*" >&2
  return 1
}
`;

let child: ChildProcess | undefined;
const workDir = path.join(root, 'data', `readme-${randomBytes(4).toString('hex')}`);

afterAll(async () => {
  if (child?.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // nothing left of it
    }
    // Until the system has stopped and its database has written its last data: files written
    // into the directory while it is removed make the removal fail.
    await groupGone(child.pid, 60_000);
  }
  rmSync(workDir, { recursive: true, force: true });
}, 70_000);

describe('README: the walk-through runs as written', () => {
  test('every command of the walk-through succeeds against npm start, in order', async () => {
    const [port, adminPort] = [await freePort(), await freePort()];
    mkdirSync(workDir, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      // As the README says: data/ of the directory the commands run in.
      DATA_DIR: path.join(workDir, 'data'),
      LOG_LEVEL: 'warn',
      AMQP_PREFIX: `test.readme.${randomBytes(4).toString('hex')}`,
    };
    for (const name of ['ADMIN_TOKENS', 'MONGODB_URL', 'AMQP_URL', 'HOST', 'S3_ENDPOINT']) {
      delete env[name];
    }
    child = spawn('npm', ['start', '--silent'], { cwd: root, env, detached: true, stdio: 'pipe' });
    let started = '';
    await new Promise<void>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        started += chunk.toString();
        if (started.includes('Stop with Ctrl+C')) resolve();
      };
      child!.stdout!.on('data', read);
      child!.stderr!.on('data', read);
      child!.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${started}`)));
    });

    const blocks = shellBlocks(section('Walk-through'));
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    // The README names the default ports; this system listens on free ones.
    const script = [PRELUDE, ...blocks.map(withExpectations)]
      .join('\n')
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)
      .replaceAll('127.0.0.1:8081', `127.0.0.1:${adminPort}`);
    const run = spawnSync('bash', ['-c', script], {
      cwd: workDir,
      env: { ...process.env, DATA_DIR: env.DATA_DIR },
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect({ status: run.status, output }).toEqual({ status: 0, output: expect.any(String) });
    expect(run.stdout).toContain('the download is the uploaded package');
    // The license file checked out through the command line verifies offline.
    expect(run.stdout).toContain('License file: for example.com');
    expect(run.stdout).toMatch(/"identifier":"example\.com"/);
    expect(run.stdout).toMatch(/"code":"ACTIVATION_LIMIT_REACHED"/);
    expect(run.stdout).toMatch(/"activations_used":0/);
    expect(run.stdout).toMatch(
      /"rejected_attempts":\[\{"identifier":"shop\.example\.org","tries":1/,
    );
    // Step 6: a lease renewed by the command line, and a staging site that takes no slot.
    expect(run.stdout).toMatch(/Lease: renewed; ends \S+ unless renewed again/);
    expect(run.stdout).toMatch(/"exempt_used":1/);
    expect(run.stdout).toMatch(/"identifier":"staging\.shop\.example"/);
    // Step 7: a loopback endpoint refused, and a test event's first attempt in the delivery log.
    expect(run.stdout).toMatch(
      /"code":"INVALID_REQUEST","message":"url: 127\.0\.0\.1 is or resolves/,
    );
    expect(run.stdout).toMatch(/"event_type":"webhook\.test"/);
    expect(run.stdout).toMatch(
      /"status":"pending","attempts":\[\{"at":"[^"]+","status":null,"error":"/,
    );
  }, 240_000);
});

describe('README: the walk-through checker catches what it should', () => {
  test('a command marked with the status it expects gets that status, others must be 2xx', () => {
    expect(withExpectations('curl -s $API/x -d a=1  # → 403\ncurl -s $API/y')).toBe(
      'EXPECT_STATUS=403 curl -s $API/x -d a=1  # → 403\ncurl -s $API/y',
    );
    expect(withExpectations('curl -s $API/x \\\n  -d a=1  # → 404')).toBe(
      'EXPECT_STATUS=404 curl -s $API/x \\\n  -d a=1  # → 404',
    );
  });

  test('an unexpected status fails the run', () => {
    const fakeCurl = (status: number) =>
      `command() { shift; local h=""; while [[ $# -gt 0 ]]; do [[ $1 == -D ]] && h=$2; shift; done; ` +
      `printf 'HTTP/1.1 ${status} X\\r\\n' > "$h"; }\n`;
    const run = (status: number, line: string) =>
      spawnSync('bash', ['-c', `${PRELUDE}\n${fakeCurl(status)}${withExpectations(line)}`]).status;
    expect(run(200, 'curl -s http://x')).toBe(0);
    expect(run(403, 'curl -s http://x')).not.toBe(0);
    expect(run(403, 'curl -s http://x  # → 403')).toBe(0);
    expect(run(200, 'curl -s http://x  # → 403')).not.toBe(0);
    expect(run(500, 'OUT=$(curl -s http://x)')).not.toBe(0);
  });
});

describe('README: Configuration lists every variable', () => {
  test('each setting the configuration loader reads has a row in the table', () => {
    const table = section('Configuration');
    const keys = [
      ...Object.keys(loadConfig({})),
      'AMQP_URL',
      'MONGODB_URL',
      'REDIS_URL',
      'PUBLIC_URL',
      'S3_ENDPOINT',
      'DOWNLOAD_SERVICE_URL',
    ];
    const missing = keys.filter((key) => !table.includes(`\`${key}\``));
    expect(missing).toEqual([]);
  });
});
