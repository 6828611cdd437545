import type { ServedHandlers } from '../../libs/transport/index.js';
import { activationHandlers } from './activation-handlers.js';
import { adminHandlers } from './admin-handlers.js';
import { licenseHandlerKit, type LicenseHandlerDeps } from './handler-kit.js';
import { lifecycleHandlers } from './lifecycle-handlers.js';
import { overviewHandlers } from './overview-handlers.js';

/**
 * RPC handlers of the license service: plans, licenses, activations, rejected attempts. They
 * read through the stores, decide with the pure rules (rules.ts, activation-rules.ts,
 * lifecycle-rules.ts), and call `context.beforeWrite()` immediately before each store method that
 * writes. Each use has its file (activation-handlers.ts, admin-handlers.ts,
 * lifecycle-handlers.ts, overview-handlers.ts); the compiler checks that together they answer every method.
 */
export function createLicenseHandlers(deps: LicenseHandlerDeps): ServedHandlers<'license'> {
  const kit = licenseHandlerKit(deps);
  return {
    ...activationHandlers(kit),
    ...adminHandlers(kit),
    ...lifecycleHandlers(kit),
    ...overviewHandlers(kit),
  };
}
