import express, { type Express, type RequestHandler } from 'express';
import { DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from '../../libs/config/index.js';
import {
  configureApp,
  errorHandler,
  mountRoutes,
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
import { requireAdminToken } from './auth.js';
import { managementOpenApi } from './openapi.js';
import { ADMIN_BASE, consolePage, managementRoutes } from './routes.js';
import { signingKeysView } from './signing-keys.js';

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

/**
 * The management (admin) API: stateless, owns no data. Every route under /admin/v1 needs an
 * admin token, validates its JSON input against the contracts and makes one RPC call. Its
 * routes are the table in routes.ts.
 */
export function createManagementApp(deps: {
  transport: Transport;
  logger: Logger;
  adminTokens: readonly string[];
  trustProxy: boolean | number | string;
  /** The largest package file accepted (MAX_UPLOAD_BYTES). */
  maxUploadBytes?: number;
  /** Time allowed to receive a JSON body (HTTP_REQUEST_TIMEOUT_MS); uploads stream for longer. */
  requestTimeoutMs?: number;
  /** The readiness of the process (GET /readyz); unset, that of the message bus alone. */
  readiness?: ReadinessProbe;
  /** The public API's signing keys and their address; unset, none is configured. */
  signingKeys?: SigningKeysView;
}): Express {
  const app = express();
  configureApp(app, deps.trustProxy, deps.logger);
  app.use(noAutomaticOptions);
  app.use(
    ADMIN_BASE,
    // Admin answers carry license keys: no cache may keep them.
    noStore,
    requireAdminToken(deps.adminTokens),
    // Package uploads (multipart) are streamed by their route; every other body is JSON.
    readBody(
      { maxBytes: MAX_JSON_BYTES, timeoutMs: deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS },
      (req) => req.is('multipart/form-data') !== false,
    ),
  );
  const routes = express.Router();
  mountRoutes(
    routes,
    managementRoutes,
    {
      transport: deps.transport,
      logger: deps.logger,
      maxUploadBytes: deps.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
      document: managementOpenApi,
      readiness: deps.readiness ?? new ReadinessProbe([messageBusCheck(deps.transport, {})]),
      signingKeys: deps.signingKeys ?? signingKeysView(undefined, undefined),
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
