import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminOf, API_BASE, bootSystem, type TestSystem } from '../support/system.js';
import { createVersion, sha256, uploadFile } from '../support/packages.js';
import { joomlaTestsPassOnTheServedStream } from './joomla-stream.js';
import { junitCases } from './junit.js';

/**
 * The PHP client (libs/client-php) against the real system: this boots it, makes a product, a
 * plan, a release and licenses through the admin API, fetches the server's keys, and runs the
 * library's PHPUnit tests (its unit tests, the shared signature vectors, and the system tests,
 * which these LICENSING_TEST_* variables turn on), each of which must pass and none be skipped.
 */
const PHP_DIR = path.resolve('libs/client-php');
const PHPUNIT_TIMEOUT_MS = 240_000;
const INSTALL =
  'install php-cli, php-xml, php-curl and phpunit (Debian: apt-get install php-cli php-xml php-curl phpunit)';

/** What a command prints for `--version`, or why it cannot run. */
function version(command: string): { ok: boolean; text: string } {
  const run = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (run.error) return { ok: false, text: run.error.message };
  return { ok: run.status === 0, text: `${run.stdout}${run.stderr}`.trim() };
}

/** PHPUnit's run, killed when it outlasts its timeout. */
function phpunit(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string; killed: boolean }>((resolve) => {
    execFile(
      'phpunit',
      args,
      {
        cwd: PHP_DIR,
        env: { ...process.env, ...env },
        timeout: PHPUNIT_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error && typeof error.code === 'number' ? error.code : error ? null : 0;
        resolve({ code, output: `${stdout}${stderr}`, killed: Boolean(error?.killed) });
      },
    );
  });
}

function readReport(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

let system: TestSystem;
let dir: string;
const admin = adminOf(() => system);

beforeAll(async () => {
  system = await bootSystem();
  dir = mkdtempSync(path.join(tmpdir(), 'php-client-'));
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await system?.stop();
});

/** The product, its other, a plan, two licenses and a release, made as a seller would. */
async function catalog() {
  const created = async (route: string, body: object) => {
    const res = await admin.post(route, body);
    if (res.status !== 201) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const product = await created('/products', {
    title: 'PHP Client Plugin',
    download_access: 'license_key',
  });
  const other = await created('/products', { title: 'Another Plugin' });
  const plan = await created('/plans', {
    name: 'PHP client single site',
    activation_type: 'domain',
    activation_limit: 3,
  });
  const license = async () =>
    (await created('/licenses', { product_id: product.id, plan_id: plan.id })).license_key;
  const version = await createVersion(system, product.id, '2.4.0');
  const bytes = Buffer.from('PK\u0003\u0004 php client package\n'.repeat(4096));
  await uploadFile(system, version.id, bytes, 'php-client-plugin.zip');
  const keys = await system.api().get(`${API_BASE}/keys`);
  if (keys.status !== 200) throw new Error(`keys: ${keys.status}`);
  return {
    LICENSING_TEST_STORE_URL: system.running.gatewayUrl,
    LICENSING_TEST_PRODUCT_ID: String(product.id),
    LICENSING_TEST_OTHER_PRODUCT_ID: String(other.id),
    LICENSING_TEST_KEYS: JSON.stringify(keys.body),
    LICENSING_TEST_LICENSE_KEY: await license(),
    LICENSING_TEST_TRANSPORT_LICENSE_KEY: await license(),
    LICENSING_TEST_VERSION: version.version,
    LICENSING_TEST_PACKAGE_SHA256: sha256(bytes),
    LICENSING_TEST_PACKAGE_SIZE: String(bytes.length),
  };
}

test(
  'the PHP client passes its PHPUnit tests against the running system, none skipped',
  async () => {
    const php = version('php');
    if (!php.ok) throw new Error(`php cannot run (${php.text}): ${INSTALL}.`);
    const unit = version('phpunit');
    if (!unit.ok) throw new Error(`phpunit cannot run (${unit.text}): ${INSTALL}.`);

    const env = await catalog();
    const report = path.join(dir, 'junit.xml');
    const args = [
      '-c',
      'phpunit.xml.dist',
      '--testsuite',
      'unit,vectors,system',
      '--log-junit',
      report,
    ];
    const run = await phpunit(args, env);
    if (run.killed) {
      throw new Error(
        `phpunit outlasted ${PHPUNIT_TIMEOUT_MS / 1000} s and was killed:\n${run.output}`,
      );
    }
    const xml = readReport(report);
    if (xml === null) throw new Error(`phpunit wrote no report (exit ${run.code}):\n${run.output}`);
    const cases = junitCases(xml);
    if (cases.length === 0) throw new Error(`PHPUnit ran no test:\n${run.output}`);
    const failed = cases.filter((c) => c.outcome === 'failed');
    const skipped = cases.filter((c) => c.outcome === 'skipped');
    const named = (list: typeof cases) => list.map((c) => `- ${c.name}\n  ${c.message}`).join('\n');
    if (failed.length > 0) throw new Error(`PHPUnit tests failed:\n${named(failed)}`);
    if (skipped.length > 0) throw new Error(`PHPUnit tests were skipped:\n${named(skipped)}`);
    // Each suite ran, the system's tests among them.
    for (const suite of ['Unit', 'Vectors', 'System']) {
      expect(cases.some((c) => c.name.startsWith(`Licensing\\Tests\\${suite}\\`))).toBe(true);
    }
    expect(run.code).toBe(0);
  },
  PHPUNIT_TIMEOUT_MS + 60_000,
);

test("the library's Joomla tests pass on the Joomla stream the system serves, which fixtures/ copies", async () => {
  await joomlaTestsPassOnTheServedStream(system, dir, phpunit);
});
