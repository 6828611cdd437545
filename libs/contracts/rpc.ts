import { z } from 'zod';
import * as catalog from './catalog/catalog.js';
import { downloadMethods } from './rpc-methods/download-methods.js';
import { licenseMethods } from './rpc-methods/license-methods.js';
import { Health, serviceNames, type ServiceName } from './rpc-methods/method.js';
import { updateCatalogMethods } from './rpc-methods/update-catalog-methods.js';
import { storesMethods } from './rpc-methods/stores-methods.js';
import { webhooksMethods } from './rpc-methods/webhooks-methods.js';

export { serviceNames, type ServiceName };

/**
 * Every RPC method: which service answers it, and the schemas of its request and response, a
 * table per service in `rpc-methods/`. The gateway, the management API and the services all
 * import this table, so they cannot drift.
 */
export const rpcMethods = {
  ...licenseMethods,
  ...updateCatalogMethods,
  ...downloadMethods,
  ...webhooksMethods,
  ...storesMethods,
} as const;

export type RpcMethods = typeof rpcMethods;
export type MethodName = keyof RpcMethods;
/** What a caller passes (defaults may be omitted). */
export type RequestOf<M extends MethodName> = z.input<RpcMethods[M]['request']>;
/** What a handler receives, after validation and defaults. */
export type ParsedRequestOf<M extends MethodName> = z.output<RpcMethods[M]['request']>;
export type ResponseOf<M extends MethodName> = z.output<RpcMethods[M]['response']>;
export type MethodsOf<S extends ServiceName> = {
  [M in MethodName]: RpcMethods[M]['service'] extends S ? M : never;
}[MethodName];

/**
 * What a handler knows of the call it answers. The caller stops waiting at `deadline` and then
 * reports INTERNAL_ERROR to its client, so work done after it must not take effect: a handler
 * calls `beforeWrite()` immediately before each database or storage write it makes, and that
 * throws INTERNAL_ERROR once the deadline has passed (docs/architecture.md).
 */
export interface CallContext {
  /** When the caller's timeout fires: absolute epoch milliseconds, on the caller's clock. */
  readonly deadline: number;
  /**
   * The call's id, the same in every delivery of its request (RabbitMQ delivers a request again
   * to another replica when the one handling it died): what a handler writes once per call is
   * keyed by it.
   */
  readonly callId: string;
  /** Whether the deadline has passed: the caller stopped waiting, so no write may be made. */
  readonly passed: boolean;
  /** Throws when the deadline has passed; called immediately before each write. */
  beforeWrite(): void;
}

/** Handlers a service registers: one per method it answers. */
export type HandlersOf<S extends ServiceName> = {
  [M in MethodsOf<S>]: (
    request: ParsedRequestOf<M>,
    context: CallContext,
  ) => Promise<ResponseOf<M>>;
};

/** Broadcast events: fire-and-forget notifications to every interested replica. */
export const rpcEvents = {
  'update-catalog.product-changed': catalog.ProductChangedEvent,
} as const;
export type EventName = keyof typeof rpcEvents;
export type EventOf<E extends EventName> = z.output<(typeof rpcEvents)[E]>;

export { Health };

/** What the management API's health check answers: every service answered, with its uptime. */
export const HealthReport = z.object({
  status: z.literal('ok'),
  services: z.partialRecord(
    z.enum(serviceNames),
    Health.pick({ status: true, uptime_seconds: true }),
  ),
});
export type HealthReport = z.infer<typeof HealthReport>;
