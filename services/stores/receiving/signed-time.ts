import { SIGNATURE_TOLERANCE_SECONDS } from '../../../libs/contracts/stores/store-connections.js';

/**
 * Why a signature's timestamp (Unix seconds, as Stripe's `t=` and Paddle's `ts=` carry it) is
 * refused at `now`, or null when it is within SIGNATURE_TOLERANCE_SECONDS of it, either way: a
 * delivery may take that long and the store's clock may run that far ahead, no more. A timestamp
 * further in the future would let a captured delivery be replayed for as long.
 */
export function signedTimeRefusal(signedAt: number, now: Date): string | null {
  const age = Math.floor(now.getTime() / 1000) - signedAt;
  if (Math.abs(age) <= SIGNATURE_TOLERANCE_SECONDS) return null;
  return age > 0
    ? `signed ${age} s ago, over ${SIGNATURE_TOLERANCE_SECONDS} s`
    : `signed ${-age} s ahead of this clock, over ${SIGNATURE_TOLERANCE_SECONDS} s`;
}

/** A signature header's timestamp field: its one value of digits, or null. */
export function oneTimestamp(values: readonly string[]): number | null {
  return values.length === 1 && /^\d{1,12}$/.test(values[0]!) ? Number(values[0]) : null;
}
