import express, { type Express } from 'express';
import {
  DEFAULT_LICENSE_FILE_MAX_TTL_SECONDS,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from '../../libs/config/index.js';
import {
  configureApp,
  errorHandler,
  mountRoutes,
  referenceAssets,
  unknownRoute,
  type AnswerSigning,
} from '../../libs/http/index.js';
import type { DownloadDelivery } from '../../libs/contracts/index.js';
import type { Logger } from '../../libs/logging/index.js';
import { ReadinessProbe } from '../../libs/observability/index.js';
import { messageBusCheck, type Transport } from '../../libs/transport/index.js';
import { publicCors } from './cors.js';
import { reportDownloadRefusals } from './downloads/download-refusals.js';
import { publicOpenApi } from './openapi.js';
import { NO_STORE, type PortalSettings } from './portal-settings.js';
import { API_BASE } from '../../libs/contracts/api-base.js';
import type { RateLimits } from './rate-limits/rate-limits.js';
import { portalPage, publicRoutes } from './routes.js';
import { localAddressUrl, unknownProductOnUndecodablePath } from './feeds/update-routes.js';

export { API_BASE };

/** Spec 1: POST bodies are form fields. Field values are short, so bodies are small. */
const MAX_FORM_BYTES = 16 * 1024;

/**
 * The public gateway: stateless, owns no data. It validates form input and turns each request
 * into one RPC call; the answer (or error) goes back in the spec's envelope. Its routes are the
 * table in routes.ts.
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
  /** The readiness of the process (GET /readyz); unset, that of the message bus alone. */
  readiness?: ReadinessProbe;
  /** Signs answers and license files (SIGNING_KEY, SIGNATURE_TTL_SECONDS). */
  signing: AnswerSigning;
  /** The longest lease of a license file, and the lease when none is asked (default 30 days). */
  licenseFileMaxTtlSeconds?: number;
  /** DOWNLOAD_DELIVERY: relay the bytes (default), or redirect to the object store. */
  downloadDelivery?: DownloadDelivery;
  /** The customer portal's store; unset, the portal names none and links nowhere. */
  portal?: PortalSettings;
}): Express {
  const app = express();
  configureApp(app, deps.trustProxy, deps.logger);
  app.use(API_BASE, publicCors);
  const routes = express.Router();
  mountRoutes(routes, publicRoutes, {
    transport: deps.transport,
    rateLimits: deps.rateLimits,
    logger: deps.logger,
    publicUrl: deps.publicUrl ?? localAddressUrl,
    bodyLimits: {
      maxBytes: MAX_FORM_BYTES,
      timeoutMs: deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    },
    document: publicOpenApi,
    readiness: deps.readiness ?? new ReadinessProbe([messageBusCheck(deps.transport, {})]),
    signing: deps.signing,
    licenseFileMaxTtlSeconds: deps.licenseFileMaxTtlSeconds ?? DEFAULT_LICENSE_FILE_MAX_TTL_SECONDS,
    downloadDelivery: deps.downloadDelivery ?? 'relay',
    portal: deps.portal ?? NO_STORE,
  });
  app.use(routes);
  app.use('/docs/assets', referenceAssets());
  app.use(portalPage.assetsPath, portalPage.assets);
  app.use(`${API_BASE}/updates`, unknownProductOnUndecodablePath(deps.signing));
  app.use(`${API_BASE}/downloads`, reportDownloadRefusals(deps.transport, deps.logger));
  app.use(unknownRoute);
  app.use(errorHandler(deps.logger));
  return app;
}
