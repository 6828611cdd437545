import type { Express } from 'express';
import { createLogger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { createManagementApp } from '../../services/management/app.js';
import { memoryManagementStores } from './management-memory-stores.js';

/** The bootstrap owner's token of `managementApp`, unless a test gives others. */
export const TEST_ADMIN_TOKEN = 't';

/**
 * The management API on `transport`, for tests that call it in-process (supertest): its named
 * admins and audit log in memory, the bootstrap owner's token `TEST_ADMIN_TOKEN`, no proxy
 * trusted, logs silent; `options` changes any of that or adds what the test is about.
 */
export function managementApp(
  transport: Transport,
  options: Partial<Omit<Parameters<typeof createManagementApp>[0], 'transport'>> = {},
): Express {
  return createManagementApp({
    transport,
    logger: createLogger('management', 'silent'),
    adminTokens: [TEST_ADMIN_TOKEN],
    stores: memoryManagementStores(),
    trustProxy: false,
    ...options,
  });
}
