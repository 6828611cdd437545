import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, main } from '../../libs/client/src/cli/cli-main.js';
import {
  keySetOf,
  refusedUrl,
  signedStore,
  signingKey,
  type LocalServer,
  type SignedStore,
  type SigningKey,
} from './servers.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * `licensing heartbeat`: one heartbeat, printed with when the lease now ends, exit codes as the
 * other commands; `--keep-alive` renews at a third of the lease until interrupted.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAUNCHER = join(ROOT, 'libs/client/bin/licensing-from-source.js');
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/;

let key: SigningKey;
const servers: LocalServer[] = [];
beforeAll(async () => {
  key = await signingKey();
});
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function store(leaseMs?: number): Promise<SignedStore & { activated: string[] }> {
  const activated = ['example.com'];
  const server = await signedStore({ productId: 12, key, leaseMs, licenses: { K: { activated } } });
  servers.push(server);
  return Object.assign(server, { activated });
}

/** Runs the command line in this process and captures what it prints. */
async function run(argv: string[], signal?: AbortSignal, watch?: (stdout: string) => void) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: {
      write: (text: string) => {
        stdout += text;
        watch?.(stdout);
      },
    },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    signal,
  });
  return { code, stdout, stderr };
}

const args = (server: LocalServer, identifier = 'example.com') => [
  'heartbeat',
  '--store',
  server.url,
  '--product',
  '12',
  '--key',
  'K',
  '--identifier',
  identifier,
];

const validations = (server: LocalServer) =>
  server.requests.filter((r) => r.path === `${API_BASE}/licenses/validate`);

const leaseEnd = (stdout: string) => Date.parse(/Lease: renewed; ends (\S+)/.exec(stdout)![1]!);

describe('licensing heartbeat: one heartbeat', () => {
  test('it sends a validate with the identifier, prints when the lease now ends, and exits 0', async () => {
    const server = await store(15 * 60_000);
    const before = Date.now();
    const result = await run(args(server));
    expect(result).toMatchObject({ code: EXIT.OK, stderr: '' });
    expect(result.stdout).toContain('Valid: yes (status active)');
    expect(result.stdout).toMatch(
      new RegExp(`^Lease: renewed; ends ${ISO.source} unless renewed again$`, 'm'),
    );
    const ends = leaseEnd(result.stdout);
    expect(ends).toBeGreaterThanOrEqual(before + 15 * 60_000);
    expect(ends).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
    expect(validations(server)).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(validations(server)[0]!.body))).toEqual({
      license_key: 'K',
      identifier: 'example.com',
      product_id: '12',
    });
  });

  test('without a lease it says so, and exits 0', async () => {
    const server = await store();
    const result = await run(args(server));
    expect(result.code).toBe(EXIT.OK);
    expect(result.stdout).toContain('Lease: none (the activation does not lapse)');
  });

  test('a lapsed or removed activation is a license problem: exit 3, activate again', async () => {
    const server = await store(60_000);
    const result = await run(args(server, 'other.com'));
    expect(result.code).toBe(EXIT.LICENSE);
    expect(result.stdout).toContain('Identifier: not activated on this license');
    expect(result.stdout).toContain('The activation has lapsed or was removed: activate it again.');
    expect(result.stdout).not.toContain('Lease:');
  });

  test('a server that cannot answer: exit 4; an answer from the offline grace also exits 4, since no lease was renewed', async () => {
    const refused = await run([...args({ url: await refusedUrl() } as LocalServer)]);
    expect(refused.code).toBe(EXIT.TRANSIENT);
    expect(refused.stderr).toMatch(/Connection error/);

    const server = await store(60_000);
    const dir = await mkdtemp(join(tmpdir(), 'licensing-heartbeat-'));
    try {
      const keys = join(dir, 'keys.json');
      await writeFile(keys, JSON.stringify(keySetOf(key)));
      const verified = [...args(server), '--keys', keys, '--state', join(dir, 'state.json')];
      expect((await run(verified)).code).toBe(EXIT.OK);
      server.mode = 'internal-error';
      const offline = await run([...verified, '--timeout', '2']);
      expect(offline.code).toBe(EXIT.TRANSIENT);
      expect(offline.stdout).toContain('Offline: the server could not answer');
      expect(offline.stdout).toMatch(
        /^Lease: not renewed \(the server could not answer\); it ends/m,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('--json prints the result, lease_expires_at included', async () => {
    const server = await store(60_000);
    const result = await run([...args(server), '--json']);
    expect(result.code).toBe(EXIT.OK);
    expect(JSON.parse(result.stdout)).toMatchObject({
      success: true,
      data: { identifier_activated: true, lease_expires_at: expect.stringMatching(ISO) },
    });
  });

  test('--identifier is required, and --keep-alive belongs to heartbeat: usage errors, exit 2', async () => {
    const server = await store(60_000);
    const missing = await run(args(server).slice(0, -2));
    expect(missing.code).toBe(EXIT.USAGE);
    expect(missing.stderr).toContain('--identifier is required');
    const elsewhere = await run(['validate', ...args(server).slice(1), '--keep-alive']);
    expect(elsewhere.code).toBe(EXIT.USAGE);
    expect(elsewhere.stderr).toContain('--keep-alive');
    expect(server.requests).toHaveLength(0);
  });
});

describe('licensing heartbeat --keep-alive', () => {
  test('it renews at a third of the lease until interrupted, then exits 0 and sends no more', async () => {
    // 6 s: a heartbeat every 2 s, so one late by up to 4 s on a busy machine still finds the
    // activation (the test server lapses it as the service does).
    const server = await store(6000);
    const controller = new AbortController();
    const result = await run([...args(server), '--keep-alive'], controller.signal, (stdout) => {
      if ((stdout.match(/Lease renewed; ends/g) ?? []).length >= 2) controller.abort();
    });
    expect(result.code).toBe(EXIT.OK);
    expect(result.stdout).toMatch(/^Lease: renewed; ends /m);
    expect(result.stdout).toMatch(
      /^Next heartbeat in 2s \(a third of the lease\); stop with Ctrl-C\.$/m,
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `^${ISO.source} Lease renewed; ends ${ISO.source} unless renewed again; next heartbeat in 2s$`,
        'm',
      ),
    );
    expect(result.stdout).toMatch(
      new RegExp(`Stopped\\. The lease ends ${ISO.source} unless renewed\\.\\n$`),
    );
    const sent = validations(server).length;
    expect(sent).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(validations(server)).toHaveLength(sent);
  });

  test('it ends with the exit code of a verdict: the activation was removed', async () => {
    const server = await store(6000);
    const result = await run([...args(server), '--keep-alive'], undefined, (stdout) => {
      if (stdout.includes('Next heartbeat in')) server.activated.splice(0);
    });
    expect(result.code).toBe(EXIT.LICENSE);
    expect(result.stdout).toContain('The activation has lapsed or was removed: activate it again.');
    expect(validations(server)).toHaveLength(2);
  });

  test('a failure is retried, not the end: it says when, and keeps going', async () => {
    const server = await store(6000);
    const controller = new AbortController();
    let failed = false;
    const result = await run(
      [...args(server), '--keep-alive', '--json', '--timeout', '2'],
      controller.signal,
      (stdout) => {
        const lines = stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        if (lines.length === 1)
          server.script = ['internal-error', 'internal-error', 'internal-error'];
        if (lines.at(-1).status === 'retrying') failed = true;
        if (failed) controller.abort();
      },
    );
    expect(result.code).toBe(EXIT.OK);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ status: 'renewed', result: { success: true } });
    expect(lines[1]).toMatchObject({
      status: 'retrying',
      failures: 1,
      result: { success: false, code: 'INTERNAL_ERROR' },
    });
    // The client's negative cache remembers the failure for a minute: no retry before that.
    expect(lines[1].next).toBeGreaterThanOrEqual(60_000);
    expect(lines.at(-1)).toMatchObject({ status: 'stopped' });
  });

  test.each(['SIGTERM', 'SIGINT'] as const)(
    'the command keeps running until %s, then exits 0',
    async (signal) => {
      const server = await store(6000);
      const child = spawn(process.execPath, [LAUNCHER, ...args(server), '--keep-alive'], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      await new Promise<void>((resolve) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          // Still running after its first timer: the unref'd heartbeat did not let it end.
          if (/Lease renewed; ends/.test(stdout)) resolve();
        });
        void closed.then(() => resolve());
      });
      child.kill(signal);
      const code = await closed;
      clearTimeout(killer);
      expect(stderr).toBe('');
      expect(stdout).toMatch(/Stopped\. The lease ends \S+ unless renewed\.\n$/);
      expect(code).toBe(0);
      expect(validations(server).length).toBeGreaterThanOrEqual(2);
    },
    60_000,
  );
});
