import { createHash } from 'node:crypto';
import type { StoredUsage } from './usage-rules.js';

/**
 * A license's usage counter (docs/api-decisions.md, "Usage counters"), kept on the license's own
 * record, so that the cap holds by one conditional update of one record under any number of
 * concurrent calls and replicas, without transactions.
 */

/**
 * A license remembers the idempotency keys of its last this many counted increments: a key sent
 * again within them counts nothing.
 */
export const RECENT_USAGE_KEYS = 1000;

/**
 * An idempotency key as the counter remembers it: 128 bits of its SHA-256, so that a thousand of
 * them take some 30 kB of the record whatever the keys' length.
 */
export function usageKeyDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 22);
}

export interface UsageStore {
  /**
   * The counter as stored, and whether `idempotencyKey` is among its recent keys; null for an
   * unknown license. A license that never recorded a use has 0 uses and no period.
   */
  findUsage(lookup: {
    licenseKey: string;
    /** Null: `seen` is false. */
    idempotencyKey: string | null;
  }): Promise<(StoredUsage & { seen: boolean }) | null>;

  /**
   * Adds `increment` to the uses of the period that started at `periodStart`, in one conditional
   * write, only while the key is not among the recent ones and the total stays within `maxUses`;
   * a counter of an earlier period (or none) starts again at `increment`, conditional on that
   * period still being stored. The uses after, or null when nothing was written.
   */
  addUses(addition: {
    licenseKey: string;
    idempotencyKey: string;
    increment: number;
    maxUses: number;
    periodStart: Date;
    now: Date;
  }): Promise<number | null>;

  /**
   * The `usage.limit_reached` notice of the period that started at `periodStart`: true for the
   * first call of each license and period, false for every other.
   */
  claimLimitNotice(claim: { licenseKey: string; periodStart: Date }): Promise<boolean>;

  /**
   * An admin's reset: the counter starts again from 0 in the period that started at
   * `periodStart`, and its limit notice may be sent again. False for an unknown license.
   */
  resetUses(reset: { licenseKey: string; periodStart: Date; now: Date }): Promise<boolean>;
}
