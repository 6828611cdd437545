import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request a piece of work is done for, across the processes it crosses: set by the HTTP
 * edge for each request, carried in every RPC message it causes, restored by the service that
 * answers. Every log line written meanwhile names it (libs/logging).
 */
interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `work` (and everything it starts) as part of the request `requestId`. */
export function runWithRequest<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/** The request the current work belongs to, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** A request id as one is accepted from a client or a message: short, and harmless in a log. */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value);
}
