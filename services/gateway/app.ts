import express, { type Express } from 'express';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../libs/config/index.js';
import {
  errorHandler,
  configureApp,
  routeBase,
  sendData,
  unknownRoute,
} from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { downloadRoutes } from './downloads.js';
import { publicOpenApi } from './openapi.js';
import type { RateLimits } from './rate-limits.js';
import { publicCors } from './cors.js';
import { API_BASE } from './paths.js';
import { licenseRoutes } from './routes.js';
import { localAddressUrl, updateRoutes } from './updates.js';

export { API_BASE };

/** Spec 1: POST bodies are form fields. Field values are short, so bodies are small. */
const MAX_FORM_BYTES = 16 * 1024;

/**
 * The public gateway: stateless, owns no data. It validates form input and turns each request
 * into one RPC call; the answer (or error) goes back in the spec's envelope.
 */
export function createGatewayApp(deps: {
  transport: Transport;
  logger: Logger;
  trustProxy: boolean | number | string;
  rateLimits: RateLimits;
  /**
   * The absolute address clients reach the gateway at, for download URLs: PUBLIC_URL, or else
   * the gateway's own listening address. Unset (apps built in tests), the local address of the
   * connection. Never anything the client sends, such as its Host header.
   */
  publicUrl?: () => string;
  /** Time allowed to receive a request body (HTTP_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}): Express {
  const app = express();
  configureApp(app, deps.trustProxy, deps.logger);
  app.get('/health', (_req, res) => sendData(res, { status: 'ok' }));
  app.get('/openapi.json', (_req, res) => res.json(publicOpenApi));
  app.use(API_BASE, publicCors);
  app.use(
    `${API_BASE}/licenses`,
    routeBase,
    licenseRoutes(deps.transport, deps.rateLimits, {
      maxBytes: MAX_FORM_BYTES,
      timeoutMs: deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    }),
  );
  app.use(
    `${API_BASE}/updates`,
    routeBase,
    updateRoutes(deps.transport, deps.rateLimits, deps.publicUrl ?? localAddressUrl),
  );
  app.use(
    `${API_BASE}/downloads`,
    routeBase,
    downloadRoutes(deps.transport, deps.rateLimits, deps.logger),
  );
  app.use(unknownRoute);
  app.use(errorHandler(deps.logger));
  return app;
}
