import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { junitCases } from './junit.js';
import { AUTH, createVersion, uploadFile } from '../support/packages.js';
import { API_BASE, type TestSystem } from '../support/system.js';

/**
 * The Joomla update stream the service serves, for the PHP library's Joomla tests
 * (libs/client-php/tests/Joomla, JoomlaStreamTest.php reading it as Joomla 5's updater does): a
 * product with a stable and a beta release, its stream fetched as Joomla fetches it (the
 * manifest's update-site URL, no key), and PHPUnit run on it. The copy in tests/Joomla/fixtures/,
 * which PHPUnit reads when run alone, must be this stream with the system's URL and ids put back
 * to the docs' examples; UPDATE_JOOMLA_FIXTURE=1 writes it anew.
 */

const FIXTURES = path.resolve('libs/client-php/tests/Joomla/fixtures');

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

type PhpUnit = (
  args: string[],
  env: Record<string, string>,
) => Promise<{ code: number | null; output: string; killed: boolean }>;

/** The product, its license and releases, the stream, and what PHPUnit checks it against. */
async function servedStream(system: TestSystem) {
  const created = await system
    .admin()
    .post('/admin/v1/products')
    .set(AUTH)
    .send({ title: 'Example', download_access: 'license_key', joomla: EXTENSION });
  expect(created.status).toBe(201);
  const product = created.body.data as { id: number };
  const { key } = await system.license({ product: { id: product.id, title: 'Example' } });
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
  return { xml: res.text, made: { extension: EXTENSION, key, releases }, productId: product.id };
}

/** The stream as the docs' examples would see it: their host, product 42, files 7 and 8. */
function asExample(system: TestSystem, served: Awaited<ReturnType<typeof servedStream>>) {
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

/**
 * Runs the library's Joomla tests on the stream `system` serves (each must pass, none be
 * skipped, the stream's among them), then holds the fixture to that stream.
 */
export async function joomlaTestsPassOnTheServedStream(
  system: TestSystem,
  dir: string,
  phpunit: PhpUnit,
) {
  const served = await servedStream(system);
  const streamDir = path.join(dir, 'joomla-stream');
  mkdirSync(streamDir, { recursive: true });
  writeFileSync(path.join(streamDir, 'joomla-stream.xml'), served.xml);
  writeFileSync(path.join(streamDir, 'joomla-stream.json'), JSON.stringify(served.made));
  const report = path.join(dir, 'joomla-junit.xml');
  const run = await phpunit(['-c', 'phpunit.xml.dist', '--log-junit', report, 'tests/Joomla'], {
    LICENSING_JOOMLA_STREAM_DIR: streamDir,
  });
  expect(run.killed).toBe(false);
  let xml: string;
  try {
    xml = readFileSync(report, 'utf8');
  } catch {
    throw new Error(`phpunit wrote no report (exit ${run.code}):\n${run.output}`);
  }
  const cases = junitCases(xml);
  const unpassed = cases.filter((c) => c.outcome !== 'passed');
  expect(unpassed.map((c) => `${c.outcome}: ${c.name}\n${c.message}`)).toEqual([]);
  expect(cases.some((c) => c.name.startsWith('Licensing\\Tests\\Joomla\\JoomlaStreamTest::'))).toBe(
    true,
  );
  expect(run.code).toBe(0);

  const example = asExample(system, served);
  if (process.env.UPDATE_JOOMLA_FIXTURE === '1') {
    writeFileSync(path.join(FIXTURES, 'joomla-stream.xml'), example.xml);
    writeFileSync(path.join(FIXTURES, 'joomla-stream.json'), example.json);
  }
  expect(readFileSync(path.join(FIXTURES, 'joomla-stream.xml'), 'utf8')).toBe(example.xml);
  expect(readFileSync(path.join(FIXTURES, 'joomla-stream.json'), 'utf8')).toBe(example.json);
}
