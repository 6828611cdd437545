import type { AdminRole, SigningKeysView } from '../../libs/contracts/index.js';
import type { HealthDeps, RouteDeps } from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import type { AdminDirectory } from './admins/admin-directory.js';
import type { AuditTrail } from './audit/audit.js';
import type { AuditLogStore } from './stores.js';

/** Every management route lives under this prefix and needs an admin token. */
export const ADMIN_BASE = '/admin/v1';

/**
 * What the management API's handlers run on. Its bodies are read before the routes, for every
 * path under /admin/v1 (app.ts), so it gives the routes no body limits.
 */
export interface ManagementDeps extends HealthDeps, RouteDeps {
  transport: Transport;
  logger: Logger;
  /** The largest package file accepted (MAX_UPLOAD_BYTES). */
  maxUploadBytes: number;
  /** The OpenAPI document of this surface, served at /openapi.json. */
  document: object;
  /** The public API's signing keys, by id, and where it publishes them (read-only). */
  signingKeys: SigningKeysView;
  /** The public API's address (PUBLIC_URL), for the URLs a store is given; unset, paths alone. */
  publicUrl: string | undefined;
  /** Named admins and their tokens. */
  directory: AdminDirectory;
  /** Where every change is recorded (adminRoute does it), and the log as it is read. */
  audit: AuditTrail;
  auditLog: AuditLogStore;
  /** The operation ids a role may call (admins/roles.ts), for the console. */
  allowedOperations: (role: AdminRole) => string[];
}
