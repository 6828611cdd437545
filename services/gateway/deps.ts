import type { Request } from 'express';
import { z } from 'zod';
import type { BodyLimits, ErrorAnswer, HealthDeps } from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import type { RateLimits } from './rate-limits.js';

/** What the public API's handlers run on. */
export interface GatewayDeps extends HealthDeps {
  transport: Transport;
  rateLimits: RateLimits;
  logger: Logger;
  /** The absolute address clients reach the gateway at (download URLs), never the Host header. */
  publicUrl: (req: Request) => string;
  bodyLimits: BodyLimits;
  /** The OpenAPI document of this surface, served at /openapi.json. */
  document: object;
}

/** Headers of a 429 (spec 8): when to try again, and the draft-8 RateLimit fields. */
const RateLimitHeaders = z.object({
  'Retry-After': z.string().meta({ description: 'Seconds until a new call may succeed.' }),
  RateLimit: z.string().meta({ description: 'The limit, what is left of it, and its reset.' }),
  'RateLimit-Policy': z.string().meta({ description: 'The limit and its window.' }),
});

/** Error answers the routes of the public API share. */
export const publicErrors = {
  rateLimited: (description: string): ErrorAnswer => ({
    codes: ['RATE_LIMITED'],
    description,
    headers: RateLimitHeaders,
  }),
  internal: { codes: ['INTERNAL_ERROR'], description: 'An unexpected server failure.' },
  /** A form body: too slow, too large, in an encoding the gateway cannot read. */
  408: { codes: ['REQUEST_TIMEOUT'], description: 'The body did not arrive in time.' },
  413: { codes: ['PAYLOAD_TOO_LARGE'], description: 'The body is over 16 KiB.' },
  415: {
    codes: ['UNSUPPORTED_MEDIA_TYPE'],
    description: 'The body has a Content-Encoding the gateway cannot read.',
  },
} satisfies Record<string, ErrorAnswer | ((description: string) => ErrorAnswer)>;
