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
