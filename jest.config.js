import { availableParallelism } from 'node:os';

// Jest runs the TypeScript sources as native ES modules (the project is ESM because Agenda 6 is).
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The fault suite runs on its own: npm run test:faults (test/faults/jest.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/faults/'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  // Jest in ESM mode keeps each test file's modules alive in the process that ran it
  // (jestjs/jest#14605): run in band, the suite's one process grew past 6 GB, and its garbage
  // collections with it. The files run in a worker instead, started anew whenever it holds more
  // than this after a file.
  workerIdleMemoryLimit: '2GB',
  // Most of a test file's time is spent waiting (for processes it starts, for timers, for the
  // broker), so two files overlap well even on two cores, where Jest's own default (one worker
  // fewer than the cores) would run them one at a time. Test files share nothing: each takes
  // databases, queues, Redis keys, ports and data directories of its own.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
};
