import type { z } from 'zod';
import type { StoreDelivery } from '../receiving/delivery.js';
import type { StoreEvent } from '../store-events.js';

export type StoreEventReading = { ok: true; event: StoreEvent } | { ok: false; reason: string };

/** Thrown by a reader for an event that is not as its store sends it; the message says where. */
export class Unreadable extends Error {}

/** `value` as `schema` reads it, or Unreadable naming the first field not as `store` sends it. */
export function parseAs<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what: string,
  store: string,
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.length ? ` at ${issue.path.join('.')}` : '';
  throw new Unreadable(`${what} is not as ${store} sends it${path}: ${issue.message}`);
}

/**
 * A delivery's JSON body as `read` reads it: a body that is not JSON, or that `read` finds
 * Unreadable, is a reading that failed, its reason prefixed with the store's name.
 */
export function readJsonBody(
  store: string,
  delivery: StoreDelivery,
  read: (json: unknown) => StoreEventReading,
): StoreEventReading {
  let json: unknown;
  try {
    json = JSON.parse(delivery.body.toString('utf8'));
  } catch {
    return { ok: false, reason: `${store}: the body is not JSON` };
  }
  try {
    return read(json);
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, reason: `${store}: ${error.message}` };
    throw error;
  }
}
