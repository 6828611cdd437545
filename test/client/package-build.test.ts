import { execFile } from 'node:child_process';
import {
  access,
  constants,
  cp,
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
import {
  keySetOf,
  packageBytes,
  sha256Hex,
  signedStore,
  signingKey,
  specServer,
  type LocalServer,
  type SignedStore,
} from './servers.js';

/**
 * The package as it is published: built with tsup, then loaded through its `exports` by `import`
 * and by `require` in child processes, its declarations type-checked by browser and CommonJS
 * consumers (also in a project that has nothing but the package installed), and its bin run.
 */
const run = promisify(execFile);
const PACKAGE_DIR = resolve('libs/client');
const NAME = '@licensing-service/client';
const TSC = resolve('node_modules/typescript/bin/tsc');
const file = packageBytes(70_000);

let consumer: string;
/** A project with a copy of the built package and nothing else: no zod, no way into the repository. */
let isolated: string;
let server: LocalServer;
/** A store that signs its answers, and the key set to pin for it. */
let signed: SignedStore;
let keys: string;
beforeAll(async () => {
  await run('npm', ['run', 'build', '--silent'], { cwd: PACKAGE_DIR });
  consumer = await mkdtemp(join(tmpdir(), 'licensing-consumer-'));
  await mkdir(join(consumer, 'node_modules', '@licensing-service'), { recursive: true });
  await symlink(PACKAGE_DIR, join(consumer, 'node_modules', NAME), 'dir');
  // A symlink would let the compiler resolve the package's imports from the repository's
  // node_modules (it follows the link), so this project gets a copy of what is published.
  isolated = await mkdtemp(join(tmpdir(), 'licensing-isolated-'));
  const installed = join(isolated, 'node_modules', NAME);
  await cp(join(PACKAGE_DIR, 'dist'), join(installed, 'dist'), { recursive: true });
  await cp(join(PACKAGE_DIR, 'package.json'), join(installed, 'package.json'));
  server = await specServer({ productId: 12, file, keys: { GOOD: {} } });
  const key = await signingKey();
  signed = await signedStore({ productId: 12, key, licenses: { K: { activated: ['a.com'] } } });
  keys = JSON.stringify(keySetOf(key));
}, 120_000);
afterAll(async () => {
  await server?.close();
  await signed?.close();
  if (consumer) await rm(consumer, { recursive: true, force: true });
  if (isolated) await rm(isolated, { recursive: true, force: true });
});

/** Validates an unknown key, checks for an update and downloads the package, printing JSON. */
const script = (load: string) => `${load}
const main = async () => {
  const client = new sdk.LicensingClient(process.env.STORE, 12, 2000);
  const update = await client.checkUpdate('GOOD');
  const download = await client.download('GOOD', null, process.env.TARGET);
  const refused = await new sdk.LicensingClient('http://127.0.0.1:9', 12, 300).validate('K');
  // Verified with the bundled libs/signatures over WebCrypto: an answer, then a license file.
  const verifying = new sdk.LicensingClient(process.env.SIGNED, 12, {
    timeout: 2000,
    keys: JSON.parse(process.env.KEYS),
  });
  const validated = await verifying.validate('K', 'a.com');
  const checkout = await verifying.checkout('K', 'a.com');
  const file = await sdk.verifyLicenseFile(checkout.data.license_file, {
    keys: JSON.parse(process.env.KEYS),
    productId: 12,
    identifier: 'a.com',
  });
  const unpinned = new sdk.LicensingClient(process.env.SIGNED, 12, { timeout: 2000, keys: [] });
  console.log(JSON.stringify({
    exports: Object.keys(sdk).sort(),
    update: update.data,
    download: download.data,
    refused: { message: refused.message, transient: sdk.isTransientFailure(refused) },
    verified: [validated.success, checkout.success, file.success],
    forged: (await unpinned.validate('K')).code,
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
      env: { ...process.env, STORE: server.url, TARGET: target, SIGNED: signed.url, KEYS: keys },
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
        'verifyLicenseFile',
        'jsonFileStore',
        'CLIENT_ERROR_CODES',
      ]),
    );
    expect(out.verified).toEqual([true, true, true]);
    expect(out.forged).toBe('SIGNATURE_INVALID');
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
    expect(pkg.peerDependencies ?? {}).toEqual({});
    expect(pkg.optionalDependencies ?? {}).toEqual({});
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
      // The payload types come from libs/contracts by type-only imports: no code of it, nor zod.
      expect([name, code]).not.toEqual([name, expect.stringMatching(/zod|contracts/i)]);
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
      // The verification of libs/signatures, bundled in.
      expect(result.outputFiles[0]!.text).toContain('licensing-nonce');
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
const store: KeyValueStore = { get: async (name) => name, set: () => undefined };
const verifying = new LicensingClient('https://shop.example', 12, {
  keys: { keys: [] },
  cache: store,
  offlineGrace: 3_600_000,
});
async function offline(file: string): Promise<string> {
  const checked = await verifying.checkout('K', 'example.com', 3600);
  const verified: LicensingResult<LicenseFileData> = await verifying.verifyLicenseFile(file, {
    identifier: 'example.com',
  });
  const validated = await verifying.validate('K');
  const stale: boolean = validated.success && validated.stale === true;
  return String(checked.success && checked.data.expires_at) + String(verified.success && verified.data.lease_expires_at) + String(stale);
}
async function run(stream: WritableStream<Uint8Array>): Promise<string> {
  const result: LicensingResult<ActivationData> = await client.activate('K', 'example.com');
  if (isTransientFailure(result)) return \`retry in \${retryDelay(result, 0)} ms\`;
  if (!result.success) return result.code;
  const blob: Blob | null = (await client.download('K', null, null)).data?.blob ?? null;
  await client.download('K', 'example.com', stream, { onProgress: (p) => p.received });
  return result.data.identifier + String(blob?.size);
}
export { offline, run };
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
        'app.ts': `import { LicensingClient, isTransientFailure, retryDelay, type ActivationData, type KeyValueStore, type LicenseFileData, type LicensingResult } from '${NAME}';\n${usage}`,
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
        'app.cts': `import sdk = require('${NAME}');\nconst { LicensingClient, isTransientFailure, retryDelay } = sdk;\ntype ActivationData = sdk.ActivationData;\ntype KeyValueStore = sdk.KeyValueStore;\ntype LicenseFileData = sdk.LicenseFileData;\ntype LicensingResult<T> = sdk.LicensingResult<T>;\n${usage}`,
      },
    );
    await expect(browser).resolves.toMatchObject({ stdout: '' });
    await expect(cjs).resolves.toMatchObject({ stdout: '' });
  }, 120_000);

  test('are self-contained: they import nothing, neither zod nor a path to libs/contracts', async () => {
    const ts = (await import('typescript')).default;
    for (const name of ['dist/index.d.ts', 'dist/index.d.cts']) {
      const text = await readFile(join(PACKAGE_DIR, name), 'utf8');
      // The compiler's own scan: imports, re-exports, import() types and reference directives.
      const found = ts.preProcessFile(text, true, true);
      const specifiers = [
        ...found.importedFiles,
        ...found.referencedFiles,
        ...found.typeReferenceDirectives,
      ].map((reference) => reference.fileName);
      expect([name, specifiers]).toEqual([name, []]);
    }
  });

  /** Exact equality of two types (optional and readonly modifiers included), for the checks below. */
  const typeChecks = `
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
`;

  test('a project with only the package installed (no zod), skipLibCheck off, sees the exact payload types', async () => {
    const usage = `${typeChecks}
type Status = 'active' | 'expired' | 'suspended' | 'revoked' | 'cancelled';
type Requires = 'license_key' | 'activated_identifier' | 'account' | null;
export type Checks = [
  Expect<Same<LicenseStatus, Status>>,
  Expect<Same<ActivationType, 'domain' | 'device' | 'seat' | 'instance'>>,
  Expect<Same<ActivationData, {
    status: Status; license_key: string; product: string; plan: string;
    activation_type: ActivationType; activation_limit: number; activations_used: number;
    expires_at: string | null; identifier: string; lease_expires_at: string | null;
    entitlements: string[]; in_grace: boolean; grace_ends_at: string | null;
    updates_until: string | null;
  }>>,
  Expect<Same<ValidationData, {
    valid: boolean; status: Status | 'invalid'; license_key: string; product: string | null;
    plan: string | null; activation_type: ActivationType | null; activation_limit: number;
    activations_used: number; expires_at: string | null; identifier_activated: boolean;
    lease_expires_at: string | null; entitlements: string[]; entitlements_missing: string[];
    code: 'ENTITLEMENTS_MISSING' | null; in_grace: boolean; grace_ends_at: string | null;
    updates_until: string | null;
  }>>,
  Expect<Same<UpdateInfo, {
    update_available: true; name: string; version: string; download_url: string | null;
    download_requires: Requires; release_notes: string | null; date: string; file_size: number;
    sha256: string; requires_license: boolean; license_status?: Status;
    license_expires_at?: string | null; auto_renew?: boolean; next_payment_at?: string | null;
    in_grace?: boolean; grace_ends_at?: string | null; updates_until?: string;
    newer_version?: string; newer_requires?: 'renewal';
  } | {
    update_available: false; requires_license: boolean; download_requires: Requires; sha256: null;
  }>>,
];

const unknownKey: ValidationData['status'] = 'invalid';
// @ts-expect-error not a status of spec 4.2
const bogus: ValidationData['status'] = 'bogus';
// @ts-expect-error \`invalid\` is only a validation answer, never a license's status
const stored: LicenseStatus = 'invalid';
const types: Array<ActivationData['activation_type']> = ['domain', 'device', 'seat', 'instance'];
// @ts-expect-error not an activation type of spec 2.1
const user: ActivationData['activation_type'] = 'user';

async function update(client: LicensingClient): Promise<string> {
  const result = await client.checkUpdate('K');
  if (!result.success) return result.code;
  // @ts-expect-error the answer without a version has no \`version\`
  const unchecked: string = result.data.version;
  if (!result.data.update_available) return 'none';
  // @ts-expect-error spec 2.6 lists five statuses for \`license_status\`
  const reported: NonNullable<typeof result.data.license_status> = 'invalid';
  const status: LicenseStatus | undefined = result.data.license_status;
  return \`\${result.data.version} \${result.data.file_size} \${status}\`;
}
export { bogus, stored, types, unknownKey, update, user };
`;
    const names = 'ActivationData, ActivationType, LicenseStatus, UpdateInfo, ValidationData';
    const projects = {
      esm: {
        compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler' },
        files: ['app.ts'],
        text: `import { LicensingClient, type ${names.replaceAll(', ', ', type ')} } from '${NAME}';\n`,
      },
      cjs: {
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' },
        files: ['app.cts'],
        text: `import sdk = require('${NAME}');\ntype LicensingClient = sdk.LicensingClient;\n${names
          .split(', ')
          .map((n) => `type ${n} = sdk.${n};`)
          .join('\n')}\n`,
      },
    };
    for (const [dir, project] of Object.entries(projects)) {
      await mkdir(join(isolated, dir), { recursive: true });
      const tsconfig = {
        compilerOptions: {
          ...project.compilerOptions,
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: project.files,
      };
      await writeFile(join(isolated, dir, 'tsconfig.json'), JSON.stringify(tsconfig));
      await writeFile(join(isolated, dir, project.files[0]!), project.text + usage);
      const checked = await run(process.execPath, [TSC, '-p', join(isolated, dir)], {
        cwd: isolated,
      }).catch((error: { stdout: string }) => error);
      expect([dir, checked.stdout]).toEqual([dir, '']);
    }
  }, 120_000);

  test('the published payload types are exactly the outputs of the service schemas', async () => {
    const contracts = resolve('libs/contracts');
    const checked = check(
      'contracts',
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          // The contracts refuse text that is not well-formed Unicode (String.prototype.isWellFormed).
          lib: ['ES2022', 'ES2024.String', 'DOM'],
          types: [],
          strict: true,
          // zod's own declarations are not what is under test here.
          skipLibCheck: true,
          noEmit: true,
        },
        files: ['app.ts'],
      },
      {
        'app.ts': `import type { ActivationData, ActivationType, LicenseStatus, UpdateInfo, ValidationData } from '${NAME}';
import type { UpdateInfo as UpdateInfoSchema } from '${contracts}/catalog/catalog.js';
import type { ActivationResult, ValidationResult } from '${contracts}/licenses/license-operations.js';
import type { ActivationType as ActivationTypeSchema, LicenseStatus as LicenseStatusSchema } from '${contracts}/shared.js';
${typeChecks}
export type Checks = [
  Expect<Same<ActivationType, ActivationTypeSchema>>,
  Expect<Same<LicenseStatus, LicenseStatusSchema>>,
  Expect<Same<ActivationData, ActivationResult>>,
  Expect<Same<ValidationData, ValidationResult>>,
  Expect<Same<UpdateInfo, UpdateInfoSchema>>,
];
`,
      },
    ).catch((error: { stdout: string }) => error);
    expect((await checked).stdout).toBe('');
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
