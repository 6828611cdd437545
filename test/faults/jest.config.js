// The fault suite (`npm run test:faults`): the system as separate processes under faults. Kept
// out of `npm test` (the root config ignores test/faults): it starts a RabbitMQ node and a Redis
// server of its own, kills processes, and takes minutes.
import root from '../../jest.config.js';

/** @type {import('jest').Config} */
export default {
  rootDir: '../..',
  // TypeScript compiled as the root config compiles it.
  testEnvironment: root.testEnvironment,
  extensionsToTreatAsEsm: root.extensionsToTreatAsEsm,
  transform: root.transform,
  moduleNameMapper: root.moduleNameMapper,
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/*.fault.ts'],
  // The scenarios share one running system and run one after another.
  maxWorkers: 1,
  testTimeout: 180000,
};
