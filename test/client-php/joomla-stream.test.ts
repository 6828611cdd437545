import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AUTH, createVersion, uploadFile } from '../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * The Joomla update stream the service serves, read by the PHP library's test of Joomla 5's
 * updater (libs/client-php/tests/Joomla/JoomlaStreamTest.php): this test makes a product with a
 * stable and a beta release, fetches the stream as Joomla does (the manifest's update-site URL,
 * no key), and runs the library's Joomla tests (PHPUnit, tests/Joomla) with it. The copy in tests/Joomla/fixtures/, which PHPUnit reads when
 * run alone, must be this stream with the system's URL and ids put back to the docs' examples;
 * UPDATE_JOOMLA_FIXTURE=1 writes it anew.
 */

const PHP_DIR = path.resolve('libs/client-php');
const FIXTURES = path.join(PHP_DIR, 'tests/Joomla/fixtures');

const EXTENSION = {
  element: 'example',
  type: 'plugin',
  client: 'site',
  folder: 'system',
  target_platform: '[45]\\.',
  php_minimum: '8.1',
};

/** Bytes of their own for each release, the same at every run, so the hashes are too. */
const bytesOf = (version: string) => Buffer.from(`plg_example ${version}\n`.repeat(64));

let system: TestSystem;
let workDir: string;
beforeAll(async () => {
  system = await bootSystem();
  workDir = mkdtempSync(path.join(tmpdir(), 'joomla-stream-'));
});
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await system?.stop();
});

/** The product, its license and releases, the stream, and what PHPUnit checks it against. */
async function servedStream() {
  const created = await system
    .admin()
    .post('/admin/v1/products')
    .set(AUTH)
    .send({ title: 'Example', download_access: 'license_key', joomla: EXTENSION });
  expect(created.status).toBe(201);
  const product = created.body.data as { id: number; title: string };
  const { key } = await system.license({ product });
  const releases: Record<string, Record<string, string>> = {};
  for (const [channel, version] of [
    ['stable', '1.0.0'],
    ['beta', '1.1.0'],
  ] as const) {
    const made = await createVersion(system, product.id, version, { channel });
    const name = `plg_example-${version}.zip`;
    const file = await uploadFile(system, made.id, bytesOf(version), name);
    releases[channel] = {
      version,
      file_id: String(file.id),
      downloadurl: `${system.running.gatewayUrl}${API_BASE}/downloads/${product.id}/files/${file.id}/${name}`,
      sha256: file.sha256,
      sha512: file.sha512 ?? '',
    };
  }
  const res = await system.api().get(`${API_BASE}/updates/${product.id}/joomla.xml`).buffer(true);
  expect(res.status).toBe(200);
  const xml = res.text;
  return { xml, made: { extension: EXTENSION, key, releases }, productId: product.id };
}

/** The stream as the docs' examples would see it: their host, product 42, files 7 and 8. */
function asExample(served: Awaited<ReturnType<typeof servedStream>>) {
  const swaps: Array<[string, string]> = [
    [system.running.gatewayUrl, 'https://licensing.example.com'],
    [`/updates/${served.productId}/`, '/updates/42/'],
    [`/downloads/${served.productId}/`, '/downloads/42/'],
    [`/files/${served.made.releases.stable!.file_id}/`, '/files/7/'],
    [`/files/${served.made.releases.beta!.file_id}/`, '/files/8/'],
    [served.made.key, 'KEY-1'],
  ];
  const swap = (text: string) => swaps.reduce((t, [from, to]) => t.split(from).join(to), text);
  const made = JSON.parse(swap(JSON.stringify(served.made))) as typeof served.made;
  made.releases.stable!.file_id = '7';
  made.releases.beta!.file_id = '8';
  return { xml: swap(served.xml), json: `${JSON.stringify(made, null, 2)}\n` };
}

function phpunit(streamDir: string) {
  return spawnSync('phpunit', ['-c', 'phpunit.xml.dist', '--testdox', 'tests/Joomla'], {
    cwd: PHP_DIR,
    env: { ...process.env, LICENSING_JOOMLA_STREAM_DIR: streamDir },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe("Joomla 5's updater, in PHP, reads the stream the service serves", () => {
  test("the release each site takes, its download URL with the Download Key, and the check's tests", async () => {
    const served = await servedStream();
    writeFileSync(path.join(workDir, 'joomla-stream.xml'), served.xml);
    writeFileSync(path.join(workDir, 'joomla-stream.json'), JSON.stringify(served.made));
    const run = phpunit(workDir);
    expect(run.error).toBeUndefined();
    const output = `${run.stdout}${run.stderr}`;
    expect(output).toMatch(/\nOK \(\d+ tests, \d+ assertions\)/);
    // The stream's cases ran, on this stream.
    expect(output).toContain('Joomla Stream (Licensing\\Tests\\Joomla\\JoomlaStream)');
    expect(run.status).toBe(0);

    const example = asExample(served);
    if (process.env.UPDATE_JOOMLA_FIXTURE === '1') {
      writeFileSync(path.join(FIXTURES, 'joomla-stream.xml'), example.xml);
      writeFileSync(path.join(FIXTURES, 'joomla-stream.json'), example.json);
    }
    expect(readFileSync(path.join(FIXTURES, 'joomla-stream.xml'), 'utf8')).toBe(example.xml);
    expect(readFileSync(path.join(FIXTURES, 'joomla-stream.json'), 'utf8')).toBe(example.json);
  });
});
