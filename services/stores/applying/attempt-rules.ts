/**
 * How a failed application is tried again: after these waits, one per failed attempt; the
 * attempt after the last wait that fails too leaves the event `failed`, for an admin to apply again.
 */
export const RETRY_WAITS_MS = [10_000, 60_000, 300_000, 1_800_000, 7_200_000] as const;

/** Attempts an event gets in all before it is `failed`. */
export const MAX_ATTEMPTS = RETRY_WAITS_MS.length + 1;

/** After `attempts` failed attempts: due again at a later time, or failed for good. */
export function afterFailedAttempt(
  attempts: number,
  now: Date,
): { outcome: 'pending'; due_at: Date } | { outcome: 'failed' } {
  const wait = RETRY_WAITS_MS[attempts - 1];
  if (wait === undefined) return { outcome: 'failed' };
  return { outcome: 'pending', due_at: new Date(now.getTime() + wait) };
}
