import { execFile } from 'node:child_process';
import {
  access,
  constants,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { packageBytes, sha256Hex, specServer, type LocalServer } from './servers.js';

/**
 * The package as it is published: built with tsup, then loaded through its `exports` by `import`
 * and by `require` in child processes, its declarations type-checked by browser and CommonJS
 * consumers, and its bin run.
 */
const run = promisify(execFile);
const PACKAGE_DIR = resolve('libs/client');
const NAME = '@licensing-service/client';
const TSC = resolve('node_modules/typescript/bin/tsc');
const file = packageBytes(70_000);

let consumer: string;
let server: LocalServer;
beforeAll(async () => {
  await run('npm', ['run', 'build', '--silent'], { cwd: PACKAGE_DIR });
  consumer = await mkdtemp(join(tmpdir(), 'licensing-consumer-'));
  await mkdir(join(consumer, 'node_modules', '@licensing-service'), { recursive: true });
  await symlink(PACKAGE_DIR, join(consumer, 'node_modules', NAME), 'dir');
  server = await specServer({ productId: 12, file, keys: { GOOD: {} } });
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (consumer) await rm(consumer, { recursive: true, force: true });
});

/** Validates an unknown key, checks for an update and downloads the package, printing JSON. */
const script = (load: string) => `${load}
const main = async () => {
  const client = new sdk.LicensingClient(process.env.STORE, 12, 2000);
  const update = await client.checkUpdate('GOOD');
  const download = await client.download('GOOD', null, process.env.TARGET);
  const refused = await new sdk.LicensingClient('http://127.0.0.1:9', 12, 300).validate('K');
  console.log(JSON.stringify({
    exports: Object.keys(sdk).sort(),
    update: update.data,
    download: download.data,
    refused: { message: refused.message, transient: sdk.isTransientFailure(refused) },
  }));
};
main();
`;

describe('the package: ESM and CommonJS builds through exports', () => {
  test.each([
    ['import', 'esm.mjs', `import * as sdk from '${NAME}';`],
    ['require', 'cjs.cjs', `const sdk = require('${NAME}');`],
  ])('loads with %s in Node and works, file downloads included', async (_how, name, load) => {
    const path = join(consumer, name);
    await writeFile(path, script(load));
    const target = join(consumer, `${name}.zip`);
    const { stdout } = await run(process.execPath, [path], {
      cwd: consumer,
      env: { ...process.env, STORE: server.url, TARGET: target },
    });
    const out = JSON.parse(stdout);
    expect(out.exports).toEqual(
      expect.arrayContaining([
        'LicensingClient',
        'classifyResult',
        'isLicenseProblem',
        'isTransientFailure',
        'retryDelay',
        'API_PATH',
      ]),
    );
    expect(out.update).toMatchObject({ update_available: true, version: '2.1.0' });
    expect(out.download).toMatchObject({
      path: target,
      size: file.length,
      sha256: sha256Hex(file),
    });
    expect(out.refused).toEqual({
      message: expect.stringMatching(/^Connection error:/),
      transient: true,
    });
    expect(Buffer.compare(await readFile(target), file)).toBe(0);
  });

  test('the package.json maps import, require and types, and the bin', async () => {
    const pkg = JSON.parse(await readFile(join(PACKAGE_DIR, 'package.json'), 'utf8'));
    expect(pkg.exports['.']).toEqual({
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    });
    expect(pkg.bin).toEqual({ licensing: './dist/cli.js' });
    expect(pkg.dependencies ?? {}).toEqual({});
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: PACKAGE_DIR,
    });
    const files = (JSON.parse(stdout)[0].files as Array<{ path: string }>).map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.cjs',
        'dist/index.d.ts',
        'dist/index.d.cts',
        'dist/cli.js',
      ]),
    );
    expect(files.some((f) => f.startsWith('src/'))).toBe(false);
  });

  test('the builds import no Node module a bundler would resolve, and use no Node globals', async () => {
    for (const name of ['dist/index.js', 'dist/index.cjs']) {
      const code = await readFile(join(PACKAGE_DIR, name), 'utf8');
      // No static import or re-export at all (the SDK has no dependencies).
      expect([name, code]).not.toEqual([name, expect.stringMatching(/^\s*import\s.*from\s/m)]);
      expect([name, code]).not.toEqual([name, expect.stringMatching(/^\s*import\s*["']/m)]);
      expect([name, code]).not.toEqual([name, expect.stringMatching(/^\s*export\s.*\sfrom\s/m)]);
      // Neither require() nor import() with a literal specifier, which bundlers follow.
      expect([name, code]).not.toEqual([name, expect.stringMatching(/\brequire\s*\(/)]);
      expect([name, code]).not.toEqual([name, expect.stringMatching(/\bimport\s*\(\s*["'`]/)]);
      expect([name, code]).not.toEqual([
        name,
        expect.stringMatching(/\b(Buffer|process|__dirname|__filename)\b/),
      ]);
    }
  });

  test('a browser bundle of either build (esbuild, platform browser, nothing external) builds without errors', async () => {
    // esbuild comes with tsup, the build tool. It refuses `node:` modules for the browser.
    const esbuild = await import('esbuild');
    for (const name of ['dist/index.js', 'dist/index.cjs']) {
      const result = await esbuild.build({
        stdin: {
          contents: `import { LicensingClient, classifyResult } from ${JSON.stringify(join(PACKAGE_DIR, name))};\nglobalThis.x = [LicensingClient, classifyResult];`,
          resolveDir: consumer,
          loader: 'js',
        },
        bundle: true,
        platform: 'browser',
        format: 'esm',
        write: false,
        logLevel: 'silent',
      });
      expect([name, result.errors]).toEqual([name, []]);
      expect(result.outputFiles[0]!.text).toContain('Invalid response from server.');
    }
  });
});

describe('the package: declarations', () => {
  const check = async (dir: string, tsconfig: object, files: Record<string, string>) => {
    await mkdir(join(consumer, dir), { recursive: true });
    await writeFile(join(consumer, dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    for (const [name, text] of Object.entries(files)) {
      await writeFile(join(consumer, dir, name), text);
    }
    return run(process.execPath, [TSC, '-p', join(consumer, dir, 'tsconfig.json')], {
      cwd: consumer,
    });
  };

  test('type-check in a browser project (DOM, no Node types) and in a CommonJS Node project', async () => {
    const usage = `
const client = new LicensingClient('https://shop.example', 12);
async function run(stream: WritableStream<Uint8Array>): Promise<string> {
  const result: LicensingResult<ActivationData> = await client.activate('K', 'example.com');
  if (isTransientFailure(result)) return \`retry in \${retryDelay(result, 0)} ms\`;
  if (!result.success) return result.code;
  const blob: Blob | null = (await client.download('K', null, null)).data?.blob ?? null;
  await client.download('K', 'example.com', stream, { onProgress: (p) => p.received });
  return result.data.identifier + String(blob?.size);
}
export { run };
`;
    const browser = check(
      'browser',
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
        },
        files: ['app.ts'],
      },
      {
        'app.ts': `import { LicensingClient, isTransientFailure, retryDelay, type ActivationData, type LicensingResult } from '${NAME}';\n${usage}`,
      },
    );
    const cjs = check(
      'cjs',
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          typeRoots: [resolve('node_modules/@types')],
          strict: true,
          noEmit: true,
        },
        files: ['app.cts'],
      },
      {
        'app.cts': `import sdk = require('${NAME}');\nconst { LicensingClient, isTransientFailure, retryDelay } = sdk;\ntype ActivationData = sdk.ActivationData;\ntype LicensingResult<T> = sdk.LicensingResult<T>;\n${usage}`,
      },
    );
    await expect(browser).resolves.toMatchObject({ stdout: '' });
    await expect(cjs).resolves.toMatchObject({ stdout: '' });
  }, 120_000);
});

describe('the package: the licensing bin', () => {
  const bin = join(PACKAGE_DIR, 'dist/cli.js');

  test('is an executable with a shebang that prints its version and runs a subcommand', async () => {
    await access(bin, constants.X_OK);
    const pkg = JSON.parse(await readFile(join(PACKAGE_DIR, 'package.json'), 'utf8'));
    expect((await run(bin, ['--version'])).stdout).toBe(`${pkg.version}\n`);
    const { stdout } = await run(bin, ['check-update', '--store', server.url, '--product', '12']);
    expect(stdout).toContain('Test Plugin 2.1.0');
  });

  test('exits 3 for a license problem and 2 for a usage error', async () => {
    const failed = await run(bin, [
      'download',
      '--store',
      server.url,
      '--product',
      '12',
      '--key',
      'WRONG',
      '--output',
      consumer,
      '--json',
    ]).catch((error: { code: number; stdout: string }) => error);
    expect(failed).toMatchObject({ code: 3 });
    expect(JSON.parse((failed as { stdout: string }).stdout)).toMatchObject({
      success: false,
      code: 'LICENSE_INVALID',
    });
    await expect(run(bin, ['activate'])).rejects.toMatchObject({ code: 2 });
  });
});
