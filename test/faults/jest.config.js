// The fault suite (`npm run test:faults`): the system as separate processes under faults. Kept
// out of `npm test` (the root config ignores test/faults): it starts a RabbitMQ node and a Redis
// server of its own, kills processes, and takes minutes. The transform is the root config's.
/** @type {import('jest').Config} */
export default {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/*.fault.ts'],
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
  // The scenarios share one running system and run one after another.
  maxWorkers: 1,
  testTimeout: 180000,
};
