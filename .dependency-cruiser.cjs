/**
 * The house rules of docs/architecture.md ("Folders"), checked by `npm run lint` with
 * dependency-cruiser. Type-only imports count like the others (`tsPreCompilationDeps`), except
 * where a rule says the console may import the server's types. `test/unit/house-rules.test.ts`
 * sees each rule fail on a deliberate breach.
 */

/** The pure rule modules: the spec's rules as plain functions, knowing nothing of the world. */
const RULES_MODULES = [
  '^services/.+rules\\.ts$',
  '^services/update-catalog/releases\\.ts$',
  '^services/download/access\\.ts$',
];

/** A package, as resolved from node_modules (its code or its `@types`). */
const packages = (...names) => `(?:^|/)node_modules/(?:@types/)?(?:${names.join('|')})/`;

/** What speaks to MongoDB: a service's adapters (`mongo-*.ts`), its models, the drivers. */
const MONGODB = [
  '(?:^|/)mongo-[^/]+\\.ts$',
  '(?:^|/)models\\.ts$',
  packages('mongoose', 'mongodb'),
];

/** The client library's command line: its folder, its entry and its help. */
const CLIENT_CLI = '^libs/client/src/(?:cli/|cli\\.ts$|cli-help\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import cycle, type-only imports counted: move what both need where both can import it.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-cross-service',
      comment:
        'A service never imports another service; what two share lives in libs/. The exception is ' +
        'services/all-in-one, the composition root that runs every service in one process.',
      severity: 'error',
      from: { path: '^services/([^/]+)/', pathNot: '^services/all-in-one/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'libs-not-to-services',
      comment: 'libs/ never imports services/.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^services/' },
    },
    {
      name: 'contracts-no-http-or-transport',
      comment:
        'The contracts import neither HTTP (express, libs/http) nor transport (amqplib, libs/transport).',
      severity: 'error',
      from: { path: '^libs/contracts/' },
      to: { path: ['^libs/(?:http|transport)/', packages('express', 'amqplib')] },
    },
    {
      name: 'contracts-plain-values-import-nothing',
      comment:
        'bounds.ts and api-base.ts are plain values that the web pages and the reference client ' +
        'import: they import nothing, so what needs a number or the API base takes no zod with it.',
      severity: 'error',
      from: { path: '^libs/contracts/(?:bounds|api-base)\\.ts$' },
      to: {},
    },
    {
      name: 'contracts-foundations-not-to-subjects',
      comment:
        "The contracts' shared parts at the folder's root (values, bounds, errors, HTTP, issue " +
        'messages, the API base, signing) import no subject folder: the subjects build on them.',
      severity: 'error',
      from: {
        path: '^libs/contracts/(?:shared|bounds|errors|http|issue-message|api-base|signing)\\.ts$',
      },
      to: { path: '^libs/contracts/[^/]+/' },
    },
    {
      name: 'client-sdk-not-to-cli',
      comment:
        "The client library does not import its command line: the CLI is built on the library's " +
        'calls, and an app that imports the library gets none of the CLI.',
      severity: 'error',
      from: { path: '^libs/client/src/', pathNot: CLIENT_CLI },
      to: { path: CLIENT_CLI },
    },
    {
      name: 'http-input-not-to-routes',
      comment:
        'Reading a request (libs/http/input/) knows nothing above it: not the route tables, the ' +
        'API reference, the CSV exports, nor the index that gathers them.',
      severity: 'error',
      from: { path: '^libs/http/input/' },
      to: { path: ['^libs/http/(?:routes|api-reference|csv)/', '^libs/http/index\\.ts$'] },
    },
    {
      name: 'http-routes-not-to-api-reference',
      comment:
        'The API reference is built from a route table, so the route tables (libs/http/routes/) ' +
        'never import it.',
      severity: 'error',
      from: { path: '^libs/http/routes/' },
      to: { path: '^libs/http/api-reference/' },
    },
    {
      name: 'http-csv-types-only',
      comment:
        'The console bundles the CSV exports (libs/http/csv/), so they import only types from ' +
        'outside their folder: no server code is bundled with them.',
      severity: 'error',
      from: { path: '^libs/http/csv/' },
      to: { pathNot: '^libs/http/csv/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'rules-are-pure',
      comment:
        'A rules module imports no store, transport, HTTP or database: it decides on the values ' +
        'it is given.',
      severity: 'error',
      from: { path: RULES_MODULES },
      to: {
        path: [
          '^libs/(?:transport|http|database)/',
          '(?:^|/)[^/]*stores[^/]*$',
          '(?:^|/)models(?:\\.|/)',
          packages('mongoose', 'mongodb', 'express', 'amqplib', 'ioredis', 'minio'),
        ],
      },
    },
    {
      name: 'handlers-not-to-mongodb',
      comment:
        'Handlers, and the use cases the license handlers share, read and write through the store ' +
        'ports: they import no MongoDB adapter (mongo-*.ts), no models.ts and no MongoDB driver.',
      severity: 'error',
      from: { path: ['^services/.+handlers\\.ts$', '^services/license/use-cases/'] },
      to: { path: MONGODB },
    },
    {
      name: 'service-parts-not-to-composition',
      comment:
        "A service's subfolders never import the files at its root that compose it (main.ts, " +
        'service.ts, handlers.ts, mongo-stores.ts): those import the parts, not the other way.',
      severity: 'error',
      from: { path: '^services/([^/]+)/[^/]+/' },
      to: { path: '^services/$1/(?:main|service|handlers|mongo-stores)\\.ts$' },
    },
    {
      name: 'embedded-storage-started-by-service',
      comment:
        "The download service's embedded S3 store is started by its service.ts alone, when no " +
        'S3 endpoint is set: nothing else of the service imports it.',
      severity: 'error',
      from: {
        path: '^services/download/',
        pathNot: '^services/download/(?:service\\.ts$|embedded-storage/)',
      },
      to: { path: '^services/download/embedded-storage/' },
    },
    {
      name: 'gateway-requests-not-to-routes',
      comment:
        "What every public route reads the same way (the gateway's requests/) imports no route: " +
        'only its own folder and the deps type, gateway-deps.ts.',
      severity: 'error',
      from: { path: '^services/gateway/requests/' },
      to: {
        path: '^services/gateway/',
        pathNot: '^services/gateway/(?:requests/|gateway-deps\\.ts$)',
      },
    },
    {
      name: 'route-makers-not-to-areas',
      comment:
        "How an admin route is made (management's route-makers/) knows no area of the console and " +
        'no route file: the areas import it.',
      severity: 'error',
      from: { path: '^services/management/route-makers/' },
      to: {
        path: [
          '^services/management/(?:licenses|catalog|packages|store-connections|webhooks|overview|operations)/',
          '(?:^|[/-])routes\\.ts$',
        ],
      },
    },
    {
      name: 'management-mongodb-opened-by-service',
      comment:
        "Only the management service's service.ts opens MongoDB: nothing else of it imports " +
        'models.ts or mongo-stores.ts, and its routes work on the store ports of stores.ts.',
      severity: 'error',
      from: {
        path: '^services/management/',
        pathNot: '^services/management/(?:service|mongo-stores)\\.ts$',
      },
      to: { path: '^services/management/(?:models|mongo-stores)\\.ts$' },
    },
    {
      name: 'console-imports-server-types-only',
      comment:
        "The console (a browser app) imports the server's code only type-only, so none of it is bundled.",
      severity: 'error',
      from: { path: '^services/management/console/' },
      to: {
        path: '^services/',
        pathNot: '^services/management/console/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'console-imports-contract-types-only',
      comment:
        "The console takes the contracts' types, not their values: a value import would bundle zod, " +
        'whose eval probe breaks the strict CSP. Plain values it needs live in libs/contracts/bounds.ts.',
      severity: 'error',
      from: { path: '^services/management/console/' },
      to: {
        path: '^libs/contracts/',
        pathNot: '^libs/contracts/bounds\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'bench-not-to-test',
      comment: 'bench/ does not import test/: what both need lives in libs/ or bench/.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/' },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'Every import resolves (so no rule above is passed by an import it could not follow).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(?:^|/)dist/' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
