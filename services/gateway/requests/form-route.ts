import type { Request } from 'express';
import { z } from 'zod';
import {
  defineRoute,
  sendData,
  type ErrorAnswer,
  type NoFields,
  type Route,
} from '../../../libs/http/index.js';
import type { GatewayDeps } from '../gateway-deps.js';

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
  /** A form body: too slow, too large, in an encoding or charset the gateway cannot read. */
  408: { codes: ['REQUEST_TIMEOUT'], description: 'The body did not arrive in time.' },
  413: { codes: ['PAYLOAD_TOO_LARGE'], description: 'The body is over 16 KiB.' },
  415: {
    codes: ['UNSUPPORTED_MEDIA_TYPE'],
    description:
      'The body is declared in a charset other than UTF-8, or has a Content-Encoding the ' +
      'gateway cannot read.',
  },
} satisfies Record<string, ErrorAnswer | ((description: string) => ErrorAnswer)>;

/** The POST operations of the public API share their form handling, limits and errors. */
export interface FormOperation<Input extends { license_key: string }, Result extends z.ZodType> {
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  form: z.ZodType<Input>;
  /** The answer's `data`: what `call` answers is of the type it reads (`z.input`). */
  result: Result;
  errors: Route['errors'];
  /** Spec 8: the 20 activate calls per license key per hour, beside the per-IP limit. */
  limitedPerKey?: true;
  call(deps: GatewayDeps, input: Input, req: Request): Promise<z.input<Result>>;
}

/**
 * A POST operation of the public API: signed, the per-IP limit, then the form read and parsed
 * with `form` (`defineRoute`), then one RPC call whose result is sent as `{"data": ...}`.
 */
export function formRoute<Input extends { license_key: string }, Result extends z.ZodType>(
  operation: FormOperation<Input, Result>,
): Route<GatewayDeps> {
  return defineRoute<GatewayDeps, NoFields, NoFields, NoFields, z.ZodType<Input>>({
    method: 'post',
    path: operation.path,
    operationId: operation.operationId,
    summary: operation.summary,
    tag: operation.tag,
    access: 'public',
    signed: true,
    body: { format: 'form', schema: operation.form },
    success: { 200: { description: 'Success.', data: operation.result } },
    errors: {
      ...operation.errors,
      408: publicErrors[408],
      413: publicErrors[413],
      415: publicErrors[415],
      429: publicErrors.rateLimited(
        operation.limitedPerKey
          ? 'The per-IP limit of the license operations, or the 20 activate calls per license ' +
              'key per hour (spec 8).'
          : 'The per-IP limit of the license operations (spec 8).',
      ),
      500: publicErrors.internal,
    },
    before: ({ rateLimits }) => [rateLimits.perIp],
    // Spec 8: activate calls per license key, counted once the request is well formed.
    ...(operation.limitedPerKey
      ? {
          after: ({ rateLimits }, input) => [
            rateLimits.activationsPerKey((res) => input(res).body.license_key),
          ],
        }
      : {}),
    handle: async ({ body }, deps, req, res) => {
      sendData(res, await operation.call(deps, body, req));
    },
  });
}
