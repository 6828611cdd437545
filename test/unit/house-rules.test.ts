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
  // A handler importing a MongoDB adapter; its store port allowed.
  'services/beta/mongo-stores.ts': 'export const mongoStore = 1;',
  'services/beta/handlers.ts':
    "import { mongoStore } from './mongo-stores.js';\nimport type { Store } from './stores.js';\nexport const handlers = (s: Store) => [mongoStore, s];",
  // A service's subfolder importing what composes the service.
  'services/beta/service.ts': 'export const service = 1;',
  'services/beta/part/part.ts':
    "import { service } from '../service.js';\nexport const part = service;",
  // The embedded storage imported by other than the download service's service.ts.
  'services/download/embedded-storage/embedded-storage.ts': 'export const embedded = 1;',
  'services/download/service.ts':
    "import { embedded } from './embedded-storage/embedded-storage.js';\nexport const service = embedded;",
  'services/download/handlers.ts':
    "import { embedded } from './embedded-storage/embedded-storage.js';\nexport const handlers = embedded;",
  // The gateway's request readers importing a route; the deps type allowed.
  'services/gateway/gateway-deps.ts': 'export interface GatewayDeps { n: number }',
  'services/gateway/licenses/license-routes.ts': 'export const licenseRoutes = 1;',
  'services/gateway/requests/form-route.ts':
    "import { licenseRoutes } from '../licenses/license-routes.js';\nimport type { GatewayDeps } from '../gateway-deps.js';\nexport const formRoute = (d: GatewayDeps) => [licenseRoutes, d];",
  // Management's route makers importing an area; the audit rules allowed. A route file
  // importing models.ts, which only service.ts may.
  'services/management/models.ts': 'export const models = 1;',
  'services/management/service.ts':
    "import { models } from './models.js';\nexport const service = models;",
  'services/management/audit/audit-rules.ts': 'export const auditRules = 1;',
  'services/management/catalog/catalog-routes.ts':
    "import { models } from '../models.js';\nexport const catalogRoutes = models;",
  'services/management/route-makers/admin-route.ts':
    "import { catalogRoutes } from '../catalog/catalog-routes.js';\nimport { auditRules } from '../audit/audit-rules.js';\nexport const adminRoute = [catalogRoutes, auditRules];",
  // A plain-values contract importing something; a foundation importing a subject.
  'libs/contracts/licenses/license-key.ts': 'export const KEY = 1;',
  'libs/contracts/api-base.ts':
    "import { KEY } from './licenses/license-key.js';\nexport const API_BASE = KEY;",
  // The client library importing its command line.
  'libs/client/src/cli/cli-main.ts': 'export const main = 1;',
  'libs/client/src/client.ts':
    "import { main } from './cli/cli-main.js';\nexport const client = main;",
  // libs/http: reading input importing a route table, a route table importing the API reference,
  // the CSV exports importing a value from outside their folder (a type allowed).
  'libs/http/routes/route.ts': 'export const route = 1;\nexport type Route = number;',
  'libs/http/input/body.ts':
    "import { route } from '../routes/route.js';\nexport const body = route;",
  'libs/http/api-reference/openapi-document.ts': 'export const openapi = 1;',
  'libs/http/routes/mount-routes.ts':
    "import { openapi } from '../api-reference/openapi-document.js';\nexport const mount = openapi;",
  'libs/http/csv/csv.ts':
    "import { route } from '../routes/route.js';\nimport type { Route } from '../routes/route.js';\nexport const csv: Route = route;",
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
          {
            rule: 'handlers-not-to-mongodb',
            from: 'services/beta/handlers.ts',
            to: 'services/beta/mongo-stores.ts',
          },
          {
            rule: 'service-parts-not-to-composition',
            from: 'services/beta/part/part.ts',
            to: 'services/beta/service.ts',
          },
          {
            rule: 'embedded-storage-started-by-service',
            from: 'services/download/handlers.ts',
            to: 'services/download/embedded-storage/embedded-storage.ts',
          },
          {
            rule: 'gateway-requests-not-to-routes',
            from: 'services/gateway/requests/form-route.ts',
            to: 'services/gateway/licenses/license-routes.ts',
          },
          {
            rule: 'route-makers-not-to-areas',
            from: 'services/management/route-makers/admin-route.ts',
            to: 'services/management/catalog/catalog-routes.ts',
          },
          {
            rule: 'management-mongodb-opened-by-service',
            from: 'services/management/catalog/catalog-routes.ts',
            to: 'services/management/models.ts',
          },
          {
            rule: 'contracts-plain-values-import-nothing',
            from: 'libs/contracts/api-base.ts',
            to: 'libs/contracts/licenses/license-key.ts',
          },
          {
            rule: 'contracts-foundations-not-to-subjects',
            from: 'libs/contracts/api-base.ts',
            to: 'libs/contracts/licenses/license-key.ts',
          },
          {
            rule: 'client-sdk-not-to-cli',
            from: 'libs/client/src/client.ts',
            to: 'libs/client/src/cli/cli-main.ts',
          },
          {
            rule: 'http-input-not-to-routes',
            from: 'libs/http/input/body.ts',
            to: 'libs/http/routes/route.ts',
          },
          {
            rule: 'http-routes-not-to-api-reference',
            from: 'libs/http/routes/mount-routes.ts',
            to: 'libs/http/api-reference/openapi-document.ts',
          },
          {
            rule: 'http-csv-types-only',
            from: 'libs/http/csv/csv.ts',
            to: 'libs/http/routes/route.ts',
          },
        ]),
      );
      // The cycle once; the composition root's import, the console's type-only one and its
      // import of bounds.ts, a handler's store port, service.ts's embedded storage and models,
      // the gateway's deps type, the audit rules and the CSV's type-only import allowed.
      expect(found).toHaveLength(20);
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
