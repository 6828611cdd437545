import type { Request } from 'express';
import type { DownloadDelivery } from '../../libs/contracts/index.js';
import type { AnswerSigning, BodyLimits, HealthDeps, RouteDeps } from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import type { PortalSettings } from './portal-settings.js';
import type { RateLimits } from './rate-limits/rate-limits.js';

/** What the public API's handlers run on. */
export interface GatewayDeps extends HealthDeps, RouteDeps {
  transport: Transport;
  rateLimits: RateLimits;
  logger: Logger;
  /** The absolute address clients reach the gateway at (download URLs), never the Host header. */
  publicUrl: (req: Request) => string;
  /** Spec 1: POST bodies are form fields; read after the per-IP limit, within these. */
  bodyLimits: BodyLimits;
  /** The OpenAPI document of this surface, served at /openapi.json. */
  document: object;
  /** Signs the answers of the signed routes and license files; publishes the key set. */
  signing: AnswerSigning;
  /** LICENSE_FILE_MAX_TTL_SECONDS: the longest lease of a license file, and the default one. */
  licenseFileMaxTtlSeconds: number;
  /** DOWNLOAD_DELIVERY: an allowed download relayed, or redirected to the object store. */
  downloadDelivery: DownloadDelivery;
  /** The customer portal's store (STORE_NAME, STORE_URL, RENEW_URL, STORE_LOGO_FILE). */
  portal: PortalSettings;
}
