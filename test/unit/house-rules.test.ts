import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { ESLint } from 'eslint';

/**
 * The house rules of docs/architecture.md ("Folders") as `npm run lint` checks them: the import
 * rules of `.dependency-cruiser.cjs` hold on the tree, and each one fails on a deliberate breach;
 * ESLint's `max-lines` warns past 300 counted lines and refuses past 400.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const FOLDERS = ['services', 'libs', 'bench', 'test'];

let options: ICruiseOptions;
beforeAll(async () => {
  options = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.cjs'));
});

async function violationsIn(baseDir: string): Promise<IViolation[]> {
  const { output } = await cruise(baseDir === ROOT ? FOLDERS : ['.'], {
    ...options,
    baseDir,
    validate: true,
  });
  if (typeof output === 'string') throw new Error('expected the cruise result');
  return output.summary.violations;
}

/** A breach of each rule, and what each rule allows, as files of a small tree. */
const breaches: Record<string, string> = {
  // A cycle, one side of it type-only.
  'services/alpha/first.ts':
    "import type { Second } from './second.js';\nexport type First = Second;",
  'services/alpha/second.ts':
    "import { first } from './third.js';\nexport type Second = typeof first;",
  'services/alpha/third.ts':
    "import type { First } from './first.js';\nexport const first: First | null = null;",
  // A service importing another; the composition root may.
  'services/alpha/cross.ts': "import { beta } from '../beta/index.js';\nexport const cross = beta;",
  'services/beta/index.ts': 'export const beta = 1;',
  'services/all-in-one/system.ts':
    "import { beta } from '../beta/index.js';\nexport const all = beta;",
  // A library importing a service.
  'libs/shared/index.ts':
    "import { beta } from '../../services/beta/index.js';\nexport const shared = beta;",
  // The contracts importing HTTP.
  'libs/http/index.ts': 'export const http = 1;',
  'libs/contracts/index.ts':
    "import { http } from '../http/index.js';\nexport const contract = http;",
  // A rules module importing a store.
  'services/beta/stores.ts': 'export interface Store { n: number }',
  'services/beta/plan-rules.ts':
    "import type { Store } from './stores.js';\nexport const rule = (s: Store) => s.n > 0;",
  // The console importing the server: a value import is refused, a type-only one allowed.
  'services/management/server.ts': 'export const server = 1;\nexport type Server = number;',
  'services/management/console/page.tsx':
    "import { server } from '../server.js';\nimport type { Server } from '../server.js';\nexport const page: Server = server;",
  // The console importing a contract's value: refused; its types, and bounds.ts, allowed.
  'libs/contracts/bounds.ts': 'export const MAX = 1;',
  'services/management/console/form.tsx':
    "import { contract } from '../../../libs/contracts/index.js';\nimport { MAX } from '../../../libs/contracts/bounds.js';\nexport const form = [contract, MAX];",
  // The benchmark importing a test's helper.
  'test/support/helper.ts': 'export const helper = 1;',
  'bench/run.ts': "import { helper } from '../test/support/helper.js';\nexport const run = helper;",
};

describe('import rules (.dependency-cruiser.cjs)', () => {
  test('the tree breaks none of them', async () => {
    expect(await violationsIn(ROOT)).toEqual([]);
  });

  test('each rule reports its deliberate breach, and nothing the rules allow', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'house-rules-'));
    try {
      for (const [path, text] of Object.entries(breaches)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), `${text}\n`);
      }
      const found = (await violationsIn(dir)).map(({ rule, from, to, cycle }) => ({
        rule: rule.name,
        from,
        to: cycle === undefined ? to : 'cycle',
      }));
      expect(found).toEqual(
        expect.arrayContaining([
          { rule: 'no-circular', from: 'services/alpha/first.ts', to: 'cycle' },
          {
            rule: 'no-cross-service',
            from: 'services/alpha/cross.ts',
            to: 'services/beta/index.ts',
          },
          {
            rule: 'libs-not-to-services',
            from: 'libs/shared/index.ts',
            to: 'services/beta/index.ts',
          },
          {
            rule: 'contracts-no-http-or-transport',
            from: 'libs/contracts/index.ts',
            to: 'libs/http/index.ts',
          },
          {
            rule: 'rules-are-pure',
            from: 'services/beta/plan-rules.ts',
            to: 'services/beta/stores.ts',
          },
          {
            rule: 'console-imports-server-types-only',
            from: 'services/management/console/page.tsx',
            to: 'services/management/server.ts',
          },
          {
            rule: 'console-imports-contract-types-only',
            from: 'services/management/console/form.tsx',
            to: 'libs/contracts/index.ts',
          },
          { rule: 'bench-not-to-test', from: 'bench/run.ts', to: 'test/support/helper.ts' },
        ]),
      );
      // The cycle once; the composition root's import, the console's type-only one and its
      // import of bounds.ts allowed.
      expect(found).toHaveLength(8);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('max-lines (eslint.config.js): blank lines and comments not counted', () => {
  const eslint = new ESLint({ cwd: ROOT });
  /** `count` lines of code, each with a blank line and a comment that do not count. */
  const lines = (count: number) =>
    Array.from({ length: count }, (_, i) => `// line ${i}\n\nexport const v${i} = ${i};`).join(
      '\n',
    );
  const maxLines = async (count: number, filePath: string) => {
    const [result] = await eslint.lintText(`${lines(count)}\n`, { filePath: join(ROOT, filePath) });
    return (result?.messages ?? [])
      .filter(({ ruleId }) => ruleId?.includes('max-lines'))
      .map(({ ruleId, severity }) => ({ ruleId, severity }));
  };

  test('a source file of 300 lines passes, of 301 is warned, of 401 is refused', async () => {
    expect(await maxLines(300, 'services/example/module.ts')).toEqual([]);
    expect(await maxLines(301, 'libs/example/module.ts')).toEqual([
      { ruleId: 'max-lines', severity: 1 },
    ]);
    expect(await maxLines(401, 'bench/example.ts')).toEqual(
      expect.arrayContaining([{ ruleId: 'house/max-lines-refused', severity: 2 }]),
    );
  });

  test('a test file of 800 lines passes, of 801 is refused', async () => {
    expect(await maxLines(800, 'test/unit/example.test.ts')).toEqual([]);
    expect(await maxLines(801, 'test/unit/example.test.ts')).toEqual([
      { ruleId: 'max-lines', severity: 2 },
    ]);
  });
});
