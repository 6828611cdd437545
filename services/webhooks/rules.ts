import { ALL_EVENTS, type WebhookAttempt } from '../../libs/contracts/index.js';

/** A delivery's attempt: a 2xx answer within this time is delivered (Standard Webhooks). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** At most this much of an answer is read... */
export const MAX_RESPONSE_READ_BYTES = 4096;
/** ...and this much of it kept with the attempt, for the delivery log. */
export const MAX_RESPONSE_KEPT_CHARS = 1024;
/** An endpoint none of whose attempts succeeded for this long is disabled. */
export const FAILING_DISABLE_AFTER_MS = 5 * 86_400_000;
/** After a rotation, the secret before keeps signing beside the new one for this long. */
export const PREVIOUS_SECRET_KEPT_MS = 86_400_000;

/** Whether an endpoint subscribed to `*` or to this event type receives it. */
export function endpointWants(events: readonly string[], type: string): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}

/** Whether an attempt's answer delivers the event: any 2xx status. */
export function isDelivered(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/** What becomes of a delivery after an attempt. */
export interface DeliveryState {
  status: 'pending' | 'delivered' | 'failed';
  next_attempt_at: Date | null;
}

/**
 * A delivery after its `attemptsMade`-th attempt: delivered; or tried again after the wait the
 * schedule gives that attempt (the first wait after the first attempt); or `failed` once the
 * schedule is spent. A retry an admin asks for is one attempt more, counted the same way, so a
 * delivery that had failed fails again at once when that attempt does.
 */
export function afterAttempt(
  attemptsMade: number,
  delivered: boolean,
  schedule: readonly number[],
  now: Date,
): DeliveryState {
  if (delivered) return { status: 'delivered', next_attempt_at: null };
  const wait = schedule[attemptsMade - 1];
  if (wait === undefined) return { status: 'failed', next_attempt_at: null };
  return { status: 'pending', next_attempt_at: new Date(now.getTime() + wait) };
}

/**
 * An endpoint after an attempt: failing since the first attempt that failed after the last one
 * that succeeded, and disabled once that has lasted `FAILING_DISABLE_AFTER_MS`.
 */
export function endpointHealth(
  failingSince: Date | null,
  delivered: boolean,
  now: Date,
): { failing_since: Date | null; disable: boolean } {
  if (delivered) return { failing_since: null, disable: false };
  const since = failingSince ?? now;
  return {
    failing_since: since,
    disable: now.getTime() - since.getTime() >= FAILING_DISABLE_AFTER_MS,
  };
}

/** The secrets that sign now: the current one, and the one before while it is still kept. */
export function signingSecrets(
  secrets: ReadonlyArray<{ secret: string; expires_at: Date | null }>,
  now: Date,
): string[] {
  return secrets
    .filter(({ expires_at }) => expires_at === null || expires_at.getTime() > now.getTime())
    .map(({ secret }) => secret);
}

/** An attempt's answer as the delivery log keeps it: its start only. */
export function keptResponse(text: string | null): string | null {
  if (text === null || text === '') return null;
  return text.length > MAX_RESPONSE_KEPT_CHARS ? text.slice(0, MAX_RESPONSE_KEPT_CHARS) : text;
}

/** An attempt as recorded, dated. */
export type AttemptRecord = Omit<WebhookAttempt, 'at'> & { at: Date };
