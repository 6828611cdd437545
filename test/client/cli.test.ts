import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { EXIT, main } from '../../libs/client/src/cli/cli-main.js';
import { bootSystem, type TestSystem } from '../support/system.js';
import {
  keySetOf,
  licenseFileOf,
  packageBytes,
  refusedUrl,
  sendJson,
  serve,
  signedStore,
  signingKey,
  specServer,
  type LocalServer,
  type SignedStore,
  type SigningKey,
  UNKNOWN_KEY,
} from './servers.js';

/** Runs the command line in this process and captures what it prints. */
async function run(argv: string[], env: Record<string, string> = {}, tty = false) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: tty },
    env,
  });
  return { code, stdout, stderr };
}

let system: TestSystem;
const servers: LocalServer[] = [];
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await system?.stop();
});

describe('command line: one subcommand per operation, readable output by default', () => {
  test('activate, validate and deactivate against the real system, exit code 0', async () => {
    const { key, product } = await system.license({ activation_limit: 3 });
    const common = ['--store', system.running.gatewayUrl, '--product', String(product.id)];
    const activated = await run([
      'activate',
      ...common,
      '--key',
      key,
      '--identifier',
      'https://www.example.com',
      '--name',
      'Main',
    ]);
    expect(activated).toMatchObject({ code: EXIT.OK, stderr: '' });
    expect(activated.stdout).toContain('Activated: example.com');
    expect(activated.stdout).toContain('Activations: 1 of 3 used');
    expect(activated.stdout).toContain('Expires: never');

    const validated = await run([
      'validate',
      ...common,
      '--key',
      key,
      '--identifier',
      'example.com',
    ]);
    expect(validated).toMatchObject({ code: EXIT.OK });
    expect(validated.stdout).toContain('Valid: yes (status active)');

    const deactivated = await run([
      'deactivate',
      ...common,
      '--key',
      key,
      '--identifier',
      'example.com',
    ]);
    expect(deactivated).toMatchObject({ code: EXIT.OK });
    expect(deactivated.stdout).toContain('Deactivated: example.com');
    expect(deactivated.stdout).toContain('Activations: 0 of 3 used');
  });

  test('the store, product and key can come from LICENSING_STORE, LICENSING_PRODUCT and LICENSING_KEY', async () => {
    const { key, product } = await system.license();
    const result = await run(['validate'], {
      LICENSING_STORE: system.running.gatewayUrl,
      LICENSING_PRODUCT: String(product.id),
      LICENSING_KEY: key,
    });
    expect(result).toMatchObject({ code: EXIT.OK });
  });

  test('--json prints the whole result for scripts', async () => {
    const { key, product } = await system.license();
    const result = await run([
      'activate',
      '--json',
      '--store',
      system.running.gatewayUrl,
      '--product',
      String(product.id),
      '--key',
      key,
      '--identifier',
      'a.com',
    ]);
    expect(result.code).toBe(EXIT.OK);
    expect(JSON.parse(result.stdout)).toMatchObject({
      success: true,
      data: { identifier: 'a.com', license_key: key },
      message: '',
      code: '',
    });
  });

  test('check-update shows the version and the download URL', async () => {
    const server = await specServer({ productId: 12, file: packageBytes(2048) });
    servers.push(server);
    const result = await run(['check-update', '--store', server.url, '--product', '12']);
    expect(result.code).toBe(EXIT.OK);
    expect(result.stdout).toContain('Test Plugin 2.1.0 (2026-01-15)');
    expect(result.stdout).toContain('Size: 2.0 KB');
    expect(result.stdout).toContain(
      `Download: ${server.url}/api/index.php/v1/licensing/downloads/12`,
    );
  });

  test('download saves the package and draws a progress bar', async () => {
    const file = packageBytes(300_000);
    const server = await specServer({ productId: 12, file, keys: { GOOD: {} } });
    servers.push(server);
    const dir = await mkdtemp(join(tmpdir(), 'licensing-cli-'));
    try {
      const args = ['download', '--store', server.url, '--product', '12', '--key', 'GOOD'];
      const result = await run([...args, '--output', dir], {}, true);
      expect(result.code).toBe(EXIT.OK);
      expect(result.stdout).toContain(`Saved: ${join(dir, 'test-plugin-2.1.0.zip')}`);
      expect(result.stdout).toMatch(/SHA-256: [0-9a-f]{64} \(verified\)/);
      expect(result.stderr).toContain('[##############################] 100%');
      expect(Buffer.compare(await readFile(join(dir, 'test-plugin-2.1.0.zip')), file)).toBe(0);

      const quiet = await run([...args, '--output', join(dir, 'again.zip')], {}, false);
      expect(quiet).toMatchObject({ code: EXIT.OK, stderr: '' });
      const json = await run([...args, '--output', join(dir, 'json.zip'), '--json'], {}, true);
      expect(json.stderr).toBe('');
      expect(JSON.parse(json.stdout)).toMatchObject({ success: true, data: { size: file.length } });
      expect((await readdir(dir)).sort()).toEqual([
        'again.zip',
        'json.zip',
        'test-plugin-2.1.0.zip',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A store whose license has `status`: validate, deactivate and the update check answer with it. */
function storeWithLicense(status: string) {
  const license = {
    status,
    license_key: 'K',
    product: 'Test Plugin',
    plan: 'Single site',
    activation_type: 'domain',
    activation_limit: 3,
    activations_used: 1,
    expires_at: status === 'expired' ? '2020-01-01T00:00:00Z' : null,
  };
  return serve((_req, res, { path }) => {
    if (path.endsWith('/licenses/validate')) {
      sendJson(res, 200, {
        data: { ...license, valid: false, identifier_activated: true, lease_expires_at: null },
      });
    } else if (path.endsWith('/licenses/deactivate')) {
      sendJson(res, 200, {
        data: {
          ...license,
          activations_used: 0,
          identifier: 'example.com',
          lease_expires_at: null,
        },
      });
    } else {
      sendJson(res, 200, {
        data: {
          update_available: true,
          name: 'Test Plugin',
          version: '2.1.0',
          download_url: null,
          download_requires: 'account',
          release_notes: null,
          date: '2026-01-15',
          file_size: 10,
          requires_license: true,
          license_status: status,
          license_expires_at: license.expires_at,
          auto_renew: true,
          next_payment_at: null,
        },
      });
    }
  });
}

describe('command line: what it says about the license', () => {
  test('validate says plainly that an unknown key is unknown, and never "unlimited"', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { data: UNKNOWN_KEY }));
    servers.push(server);
    const common = ['validate', '--store', server.url, '--product', '1', '--key', 'unknown'];
    for (const argv of [common, [...common, '--identifier', 'example.com']]) {
      const result = await run(argv);
      expect(result).toMatchObject({ code: EXIT.LICENSE, stderr: '' });
      expect(result.stdout).toContain('The license key is unknown');
      // Its limit of 0 and null expiry describe no license: not "0 of unlimited", not "never".
      expect(result.stdout).not.toMatch(/unlimited|no limit|activations|expires|identifier/i);

      // --json is the result as received, for scripts.
      const json = await run([...argv, '--json']);
      expect(json.code).toBe(EXIT.LICENSE);
      expect(JSON.parse(json.stdout)).toEqual({
        success: true,
        data: UNKNOWN_KEY,
        message: '',
        code: '',
        httpStatus: 200,
      });
    }
  });

  test.each([
    ['expired', 'The license has expired.', 'License: expired on 2020-01-01T00:00:00Z'],
    ['suspended', 'The license is suspended.', 'License: suspended'],
    ['revoked', 'The license has been revoked.', 'License: revoked'],
    ['cancelled', 'The license has been cancelled.', 'License: cancelled'],
  ])(
    'status %s: validate, deactivate and check-update say so',
    async (status, sentence, update) => {
      const server = await storeWithLicense(status);
      servers.push(server);
      const common = ['--store', server.url, '--product', '1', '--key', 'K'];

      const validated = await run(['validate', ...common]);
      expect(validated.code).toBe(EXIT.LICENSE);
      expect(validated.stdout).toContain(`Valid: no (status ${status})\n${sentence}\n`);
      expect(validated.stdout).toContain('Activations: 1 of 3 used');
      if (status === 'expired') {
        expect(validated.stdout).toContain('Expired: 2020-01-01T00:00:00Z');
        expect(validated.stdout).not.toContain('Expires:');
      }

      const deactivated = await run(['deactivate', ...common, '--identifier', 'example.com']);
      expect(deactivated.code).toBe(EXIT.OK);
      expect(deactivated.stdout).toContain(`Deactivated: example.com\n${sentence}\n`);

      const checked = await run(['check-update', ...common]);
      expect(checked.code).toBe(EXIT.OK);
      expect(checked.stdout).toContain(`${update}\n`);
      expect(checked.stdout).not.toContain('renews automatically');
      expect(checked.stdout).not.toContain('expires never');
    },
  );

  test('a license with no activation limit says so, and an active one shows its expiry', async () => {
    const { key, product } = await system.license({ activation_limit: 0 });
    const common = ['--store', system.running.gatewayUrl, '--product', String(product.id)];
    const activated = await run(['activate', ...common, '--key', key, '--identifier', 'a.com']);
    expect(activated.code).toBe(EXIT.OK);
    expect(activated.stdout).toContain('Activations: 1 used, no limit');
    expect(activated.stdout).toContain('Expires: never');
    expect(activated.stdout).not.toContain('The license');
  });
});

describe('command line: exit codes tell success, license problems and transient failures apart', () => {
  test('3 for a license problem: an error code about the license, or a validation that is not valid', async () => {
    const { key, product } = await system.license({ activation_limit: 1 });
    const common = ['--store', system.running.gatewayUrl, '--product', String(product.id)];
    await run(['activate', ...common, '--key', key, '--identifier', 'a.com']);
    const full = await run(['activate', ...common, '--key', key, '--identifier', 'b.com']);
    expect(full.code).toBe(EXIT.LICENSE);
    expect(full.stderr).toContain('[ACTIVATION_LIMIT_REACHED]');
    expect(full.stderr).toContain('Activations: 1 of 1 used.');

    const unknown = await run(['validate', ...common, '--key', 'nope']);
    expect(unknown.code).toBe(EXIT.LICENSE);
    expect(unknown.stdout).toContain('Valid: no (status invalid)');
    expect(unknown.stdout).toContain('The license key is unknown');
  });

  test('4 for a transient failure: connection refused, or RATE_LIMITED with its Retry-After', async () => {
    const refused = await run([
      'validate',
      '--store',
      await refusedUrl(),
      '--product',
      '1',
      '--key',
      'K',
      '--timeout',
      '0.3',
    ]);
    expect(refused.code).toBe(EXIT.TRANSIENT);
    expect(refused.stderr).toMatch(/^licensing: Connection error: /);
    expect(refused.stderr).toContain('try again later');

    const limited = await serve((_req, res) =>
      sendJson(
        res,
        429,
        { error: { code: 'RATE_LIMITED', message: 'Too many requests.' } },
        { 'Retry-After': '17' },
      ),
    );
    servers.push(limited);
    const result = await run(['validate', '--store', limited.url, '--product', '1', '--key', 'K']);
    expect(result.code).toBe(EXIT.TRANSIENT);
    expect(result.stderr).toContain('Too many requests. [RATE_LIMITED]');
    expect(result.stderr).toContain('(retry after 17 s)');
  });

  test.each<[string, number, (res: ServerResponse) => void]>([
    ['a server that hangs past --timeout', EXIT.TRANSIENT, () => undefined],
    [
      'an HTML error page',
      EXIT.TRANSIENT,
      (res) => {
        res.writeHead(502, { 'Content-Type': 'text/html' });
        res.end('<html><h1>502 Bad Gateway</h1></html>');
      },
    ],
    [
      'INTERNAL_ERROR',
      EXIT.TRANSIENT,
      (res) => sendJson(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'Oops.' } }),
    ],
    [
      'an unknown code with HTTP 503',
      EXIT.TRANSIENT,
      (res) => sendJson(res, 503, { error: { code: 'MAINTENANCE', message: 'Back soon.' } }),
    ],
    [
      'an unknown code with HTTP 403',
      EXIT.FAILURE,
      (res) => sendJson(res, 403, { error: { code: 'SOMETHING_NEW', message: 'New rule.' } }),
    ],
    [
      'INVALID_REQUEST',
      EXIT.FAILURE,
      (res) => sendJson(res, 400, { error: { code: 'INVALID_REQUEST', message: 'Missing.' } }),
    ],
    [
      'LICENSE_EXPIRED',
      EXIT.LICENSE,
      (res) => sendJson(res, 403, { error: { code: 'LICENSE_EXPIRED', message: 'Expired.' } }),
    ],
  ])('every subcommand exits as classified for %s', async (_name, expected, respond) => {
    const server = await serve((_req, res) => respond(res));
    servers.push(server);
    const dir = await mkdtemp(join(tmpdir(), 'licensing-cli-'));
    try {
      const common = ['--store', server.url, '--product', '1', '--key', 'K', '--timeout', '0.3'];
      for (const argv of [
        ['activate', ...common, '--identifier', 'a.com'],
        ['validate', ...common],
        ['deactivate', ...common, '--identifier', 'a.com'],
        ['check-update', ...common],
        ['download', ...common, '--output', dir],
      ]) {
        const result = await run(argv);
        expect([argv[0], result.code]).toEqual([argv[0], expected]);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(/^licensing: /);
        if (expected === EXIT.TRANSIENT) expect(result.stderr).toContain('try again later');
        else expect(result.stderr).not.toContain('try again later');
      }
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('4 for a download cut off midway: nothing is saved, the message says how far it got', async () => {
    const file = packageBytes(100_000);
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Length': file.length });
      res.write(file.subarray(0, 20_000), () => setTimeout(() => res.destroy(), 20));
    });
    servers.push(server);
    const dir = await mkdtemp(join(tmpdir(), 'licensing-cli-'));
    try {
      const argv = ['download', '--store', server.url, '--product', '1', '--key', 'K'];
      const result = await run([...argv, '--output', dir], {}, true);
      expect(result.code).toBe(EXIT.TRANSIENT);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /\nlicensing: Connection error: the download stopped after \d+ of 100000 bytes/,
      );
      const json = await run([...argv, '--output', dir, '--json']);
      expect(json.code).toBe(EXIT.TRANSIENT);
      expect(JSON.parse(json.stdout)).toMatchObject({ success: false, code: '', data: null });
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('1 for any other failure, such as an unknown error code', async () => {
    const server = await serve((_req, res) =>
      sendJson(res, 400, { error: { code: 'SOMETHING_NEW', message: 'New rule.' } }),
    );
    servers.push(server);
    const result = await run(['validate', '--store', server.url, '--product', '1', '--key', 'K']);
    expect(result).toMatchObject({
      code: EXIT.FAILURE,
      stderr: 'licensing: New rule. [SOMETHING_NEW]\n',
    });
  });

  test('2 for wrong usage: no command, an unknown one, a missing option, a bad value', async () => {
    const store = ['--store', 'http://127.0.0.1:9', '--product', '1'];
    for (const argv of [
      [],
      ['frobnicate'],
      ['activate', ...store, '--key', 'K'],
      ['validate', '--product', '1', '--key', 'K'],
      ['validate', '--store', 'not a url', '--product', '1', '--key', 'K'],
      ['validate', ...store, '--key', 'K', '--timeout', 'soon'],
      ['validate', ...store, '--key', 'K', '--bogus'],
    ]) {
      const result = await run(argv);
      expect(result.code).toBe(EXIT.USAGE);
      expect(result.stderr).toMatch(/^licensing: .*\nRun "licensing --help" for usage.\n$/);
    }
  });

  test('--help and --version print to stdout and exit 0', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(EXIT.OK);
    expect(help.stdout).toContain('Usage: licensing <command> [options]');
    const pkg = JSON.parse(await readFile('libs/client/package.json', 'utf8')) as {
      version: string;
    };
    expect(await run(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});

describe('command line: signed answers and offline license files (--keys, --state)', () => {
  let key: SigningKey;
  let store: SignedStore;
  let dir: string;
  let keysFile: string;
  beforeAll(async () => {
    key = await signingKey();
    store = await signedStore({
      productId: 12,
      key,
      licenses: { K: { activated: ['example.com'] } },
      file: packageBytes(4096),
    });
    servers.push(store);
  });
  beforeEach(async () => {
    store.mode = 'ok';
    store.servedFile = undefined;
    dir = await mkdtemp(join(tmpdir(), 'licensing-cli-'));
    keysFile = join(dir, 'keys.json');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const common = () => ['--store', store.url, '--product', '12', '--key', 'K'];

  test('keys prints the JWK Set to save; --keys with it verifies every answer', async () => {
    const keys = await run(['keys', '--store', store.url]);
    expect(keys).toMatchObject({ code: EXIT.OK, stderr: '' });
    expect(JSON.parse(keys.stdout)).toEqual({ keys: [key.jwk] });
    await writeFile(keysFile, keys.stdout);

    const validated = await run(['validate', ...common(), '--keys', keysFile]);
    expect(validated).toMatchObject({ code: EXIT.OK, stderr: '' });
    expect(validated.stdout).toContain('Valid: yes (status active)');
    expect(store.requests.at(-1)!.headers['licensing-nonce']).toMatch(/^[\w-]{32}$/);

    // A store signing with another key is refused: exit 3, a license problem.
    await writeFile(keysFile, JSON.stringify(keySetOf(await signingKey())));
    const refused = await run(['validate', ...common(), '--keys', keysFile]);
    expect(refused.code).toBe(EXIT.LICENSE);
    expect(refused.stderr).toMatch(
      /^licensing: The server's answer failed verification: it is signed by a key that is not pinned .*\[SIGNATURE_INVALID\]\n$/,
    );
  });

  test('checkout writes a license file; verify checks it offline', async () => {
    await writeFile(keysFile, JSON.stringify(keySetOf(key)));
    const checkedOut = await run([
      'checkout',
      ...common(),
      '--identifier',
      'example.com',
      '--ttl',
      '7d',
      '--keys',
      keysFile,
      '--output',
      dir,
    ]);
    expect(checkedOut).toMatchObject({ code: EXIT.OK, stderr: '' });
    const file = join(dir, 'license-12.jwt');
    expect(checkedOut.stdout).toContain(`Saved: ${file}\nLease: until `);
    expect(new URLSearchParams(store.requests.at(-1)!.body).get('ttl')).toBe('604800');

    const requests = store.requests.length;
    const verified = await run(['verify', file, '--product', '12', '--keys', keysFile]);
    expect(verified).toMatchObject({ code: EXIT.OK, stderr: '' });
    expect(verified.stdout).toContain('License file: for example.com, product 12\nLease: until ');
    expect(verified.stdout).toContain('Valid: yes (status active)');
    expect(store.requests.length).toBe(requests);

    const json = await run(['verify', file, '--product', '12', '--keys', keysFile, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      success: true,
      data: { identifier: 'example.com', product_id: 12, valid: true },
    });

    const elsewhere = await run([
      'verify',
      file,
      '--product',
      '12',
      '--keys',
      keysFile,
      '--identifier',
      'other.com',
    ]);
    expect(elsewhere.code).toBe(EXIT.LICENSE);
    expect(elsewhere.stderr).toContain('[IDENTIFIER_MISMATCH]');
    const product = await run(['verify', file, '--product', '13', '--keys', keysFile]);
    expect(product.stderr).toContain('[PRODUCT_MISMATCH]');

    const text = await readFile(file, 'utf8');
    const flipped = join(dir, 'flipped.jwt');
    const at = text.lastIndexOf('.') + 10;
    await writeFile(
      flipped,
      text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1),
    );
    const tampered = await run(['verify', flipped, '--product', '12', '--keys', keysFile]);
    expect(tampered.code).toBe(EXIT.LICENSE);
    expect(tampered.stderr).toContain('[SIGNATURE_INVALID]');
  });

  test('verify refuses a lease that has ended, and a clock behind the file (CLOCK_TAMPERED)', async () => {
    await writeFile(keysFile, JSON.stringify(keySetOf(key)));
    const day = 86_400_000;
    const ended = join(dir, 'ended.jwt');
    await writeFile(
      ended,
      licenseFileOf(key, {
        product_id: 12,
        identifier: 'example.com',
        issued_at: new Date(Date.now() - 3 * day).toISOString(),
        expires_at: new Date(Date.now() - day).toISOString(),
      }),
    );
    const expired = await run(['verify', ended, '--product', '12', '--keys', keysFile]);
    expect(expired.code).toBe(EXIT.LICENSE);
    expect(expired.stderr).toContain('[LICENSE_FILE_EXPIRED]');

    // A file issued tomorrow, as this computer's clock sees it: the clock was set back.
    const future = join(dir, 'future.jwt');
    await writeFile(
      future,
      licenseFileOf(key, {
        product_id: 12,
        identifier: 'example.com',
        issued_at: new Date(Date.now() + day).toISOString(),
      }),
    );
    const state = join(dir, 'state.json');
    const setBack = await run([
      'verify',
      future,
      '--product',
      '12',
      '--keys',
      keysFile,
      '--state',
      state,
    ]);
    expect(setBack.code).toBe(EXIT.LICENSE);
    expect(setBack.stderr).toContain('[CLOCK_TAMPERED]');
    // Remembered in the state file: the next check of an older, unexpired file is refused too.
    const current = join(dir, 'current.jwt');
    await writeFile(current, licenseFileOf(key, { product_id: 12, identifier: 'example.com' }));
    const args = ['verify', current, '--product', '12', '--keys', keysFile];
    expect((await run(args)).code).toBe(EXIT.OK);
    expect((await run([...args, '--state', state])).stderr).toContain('[CLOCK_TAMPERED]');
  });

  test('validate --offline-grace --state answers from the last verified validation while the server cannot', async () => {
    await writeFile(keysFile, JSON.stringify(keySetOf(key)));
    const state = join(dir, 'state.json');
    const args = [
      'validate',
      ...common(),
      '--identifier',
      'example.com',
      '--keys',
      keysFile,
      '--state',
      state,
      '--timeout',
      '0.5',
    ];
    expect((await run([...args, '--offline-grace', '72h'])).code).toBe(EXIT.OK);
    store.mode = 'internal-error';
    const offline = await run([...args, '--offline-grace', '72h']);
    expect(offline).toMatchObject({ code: EXIT.OK, stderr: '' });
    expect(offline.stdout).toContain('Valid: yes (status active)');
    expect(offline.stdout).toMatch(
      /Offline: the server could not answer \(Refused: INTERNAL_ERROR.\); this is its last verified answer, of \d{4}-/,
    );
    const json = await run([...args, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: true, stale: true });

    const none = await run([...args, '--offline-grace', '0']);
    expect(none.code).toBe(EXIT.TRANSIENT);
    expect(none.stderr).toContain('[INTERNAL_ERROR]');
  });

  test('download with --keys checks the package against the signed update check', async () => {
    await writeFile(keysFile, JSON.stringify(keySetOf(key)));
    const args = ['download', ...common(), '--keys', keysFile, '--output', dir];
    const saved = await run(args);
    expect(saved).toMatchObject({ code: EXIT.OK, stderr: '' });
    expect(saved.stdout).toContain('(verified)');

    store.servedFile = packageBytes(4096, 9);
    await rm(join(dir, 'test-plugin-2.1.0.zip'));
    const swapped = await run(args);
    expect(swapped.code).toBe(EXIT.TRANSIENT);
    expect(swapped.stderr).toContain('Download verification failed');
    expect((await readdir(dir)).sort()).toEqual(['keys.json']);
  });

  test('2 for wrong usage of the new options', async () => {
    await writeFile(keysFile, JSON.stringify(keySetOf(key)));
    const store12 = ['--store', store.url, '--product', '12', '--key', 'K'];
    for (const argv of [
      ['validate', ...store12, '--offline-grace', '72h'],
      ['validate', ...store12, '--keys', keysFile, '--offline-grace', '72h'],
      ['validate', ...store12, '--keys', keysFile, '--state', 's.json', '--offline-grace', 'soon'],
      ['validate', ...store12, '--keys', join(dir, 'missing.json')],
      ['validate', ...store12, '--keys', join(dir)],
      ['verify', '--product', '12', '--keys', keysFile],
      ['verify', join(dir, 'missing.jwt'), '--product', '12', '--keys', keysFile],
      ['verify', keysFile, '--product', '12'],
      ['verify', keysFile, 'extra', '--product', '12', '--keys', keysFile],
      ['checkout', ...store12, '--identifier', 'a.com', '--ttl', 'soon'],
      ['keys'],
    ]) {
      const result = await run(argv);
      expect([argv, result.code]).toEqual([argv, EXIT.USAGE]);
      expect(result.stderr).toMatch(/^licensing: .*\nRun "licensing --help" for usage.\n$/);
    }
    await writeFile(keysFile, JSON.stringify({ keys: [{ kty: 'RSA', kid: 'x' }] }));
    const unusable = await run(['validate', ...store12, '--keys', keysFile]);
    expect(unusable.code).toBe(EXIT.USAGE);
    expect(unusable.stderr).toContain('holds no usable Ed25519 key');
  });
});
