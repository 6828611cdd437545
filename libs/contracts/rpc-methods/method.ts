import { z } from 'zod';

/** The services that answer RPC requests; each has one request queue (docs/architecture.md). */
export const serviceNames = [
  'license',
  'update-catalog',
  'download',
  'webhooks',
  'stores',
] as const;
export type ServiceName = (typeof serviceNames)[number];

export const EmptyRequest = z.strictObject({});
export const Health = z.object({
  service: z.string(),
  status: z.literal('ok'),
  uptime_seconds: z.number(),
});

/** One RPC method: the service that answers it, and the schemas of its request and response. */
export function method<S extends ServiceName, Req extends z.ZodType, Res extends z.ZodType>(
  service: S,
  request: Req,
  response: Res,
) {
  return { service, request, response };
}
