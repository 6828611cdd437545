import express, { type Express, type RequestHandler } from 'express';
import { DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from '../../libs/config/index.js';
import {
  configureApp,
  errorHandler,
  mountRoutes,
  type Route,
  noStore,
  readBody,
  referenceAssets,
  unknownRoute,
  type ListenOptions,
} from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import { ReadinessProbe } from '../../libs/observability/index.js';
import { messageBusCheck, type Transport } from '../../libs/transport/index.js';
import type { SigningKeysView } from '../../libs/contracts/index.js';
import { AdminDirectory } from './admins/admin-directory.js';
import { AdminAuthenticator } from './admins/admin-tokens.js';
import { AuditTrail } from './audit/audit.js';
import { requireAdminToken, requireRole } from './admins/auth.js';
import type { ManagementDeps } from './management-deps.js';
import { allowedOperations, requiredRole } from './admins/roles.js';
import type { ManagementStores } from './stores.js';
import { managementOpenApi } from './openapi.js';
import { ADMIN_BASE, consolePage, managementRoutes } from './routes.js';
import { signingKeysView } from './operations/signing-keys.js';

/** Admin bodies are small JSON objects; anything bigger is refused with 413. */
const MAX_JSON_BYTES = 64 * 1024;

/**
 * Package uploads take a while: a whole request may take an hour, but its headers must come
 * within the usual time, and a connection on which nothing moves is closed.
 */
export function managementListenOptions(requestTimeoutMs: number): ListenOptions {
  return {
    headersTimeoutMs: requestTimeoutMs,
    requestTimeoutMs: 60 * 60_000,
    idleTimeoutMs: 60_000,
  };
}

/**
 * Express answers OPTIONS by itself with a text/plain list of methods. The admin API serves no
 * browsers (no CORS), so OPTIONS is treated like any other method without a route.
 */
const noAutomaticOptions: RequestHandler = (req, res, next) => {
  if (req.method === 'OPTIONS') return unknownRoute(req, res, next);
  next();
};

/** An admin route with its role checked first, before its input is read. */
function withRoleCheck(route: Route<ManagementDeps>): Route<ManagementDeps> {
  if (route.access !== 'admin') return route;
  const check = requireRole(requiredRole(route), route.operationId);
  return { ...route, handlers: (deps) => [check, ...route.handlers(deps)] };
}

/**
 * The management (admin) API. Every route under /admin/v1 needs an admin token and the role its
 * route needs, validates its JSON input against the contracts and makes its RPC calls; every
 * change is written to the audit log. It keeps named admins and the audit log itself (`stores`);
 * the rest belongs to the services it calls. Its routes are the table in routes.ts.
 */
export function createManagementApp(deps: {
  transport: Transport;
  logger: Logger;
  /** The bootstrap owner's tokens (ADMIN_TOKENS). */
  adminTokens: readonly string[];
  /** Named admins and the audit log. */
  stores: ManagementStores;
  trustProxy: boolean | number | string;
  /** The largest package file accepted (MAX_UPLOAD_BYTES). */
  maxUploadBytes?: number;
  /** Time allowed to receive a JSON body (HTTP_REQUEST_TIMEOUT_MS); uploads stream for longer. */
  requestTimeoutMs?: number;
  /** The readiness of the process (GET /readyz); unset, that of the message bus alone. */
  readiness?: ReadinessProbe;
  /** The public API's signing keys and their address; unset, none is configured. */
  signingKeys?: SigningKeysView;
  /** The public API's address (PUBLIC_URL), which a store's events URL starts with. */
  publicUrl?: string;
}): Express {
  const authenticator = new AdminAuthenticator(deps.adminTokens, deps.stores.admins, deps.logger);
  const app = express();
  configureApp(app, deps.trustProxy, deps.logger);
  app.use(noAutomaticOptions);
  app.use(
    ADMIN_BASE,
    // Admin answers carry license keys: no cache may keep them.
    noStore,
    requireAdminToken(authenticator),
    // Package uploads (multipart) are streamed by their route; every other body is JSON.
    readBody(
      { maxBytes: MAX_JSON_BYTES, timeoutMs: deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS },
      (req) => req.is('multipart/form-data') !== false,
    ),
  );
  const routes = express.Router();
  mountRoutes(
    routes,
    managementRoutes.map(withRoleCheck),
    {
      transport: deps.transport,
      logger: deps.logger,
      maxUploadBytes: deps.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
      document: managementOpenApi,
      readiness: deps.readiness ?? new ReadinessProbe([messageBusCheck(deps.transport, {})]),
      signingKeys: deps.signingKeys ?? signingKeysView(undefined, undefined),
      publicUrl: deps.publicUrl,
      directory: new AdminDirectory(deps.stores.admins, authenticator),
      audit: new AuditTrail(deps.stores.audit, deps.logger),
      auditLog: deps.stores.audit,
      allowedOperations: (role) => allowedOperations(role, managementRoutes),
    },
    ADMIN_BASE,
  );
  app.use(routes);
  app.use('/docs/assets', referenceAssets());
  app.use(consolePage.assetsPath, consolePage.assets);
  app.use(unknownRoute);
  app.use(errorHandler(deps.logger));
  return app;
}
