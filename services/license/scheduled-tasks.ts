import type { LicenseStores } from './stores.js';

/** Spec 2.5 and 8: rejected-attempt rows untouched for 90 days are removed. */
export const REJECTED_ATTEMPT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/** The stores the tasks work on. */
export type TaskStores = Pick<LicenseStores, 'licenses' | 'rejectedAttempts'>;

/**
 * Spec 3.1: an active license whose expiry date has passed becomes `expired`. Until this runs,
 * validate and the update check already report `expired` (rules.ts `effectiveStatus`). One
 * update whose condition is the rule itself, so a license renewed meanwhile is left alone and a
 * run cut short is simply done again.
 */
export async function expireLicenses(stores: TaskStores, now: Date): Promise<number> {
  return stores.licenses.expirePastDue(now);
}

/** Spec 2.5: removes the rejected-attempt rows whose last try is 90 days old or older. */
export async function pruneRejectedAttempts(stores: TaskStores, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - REJECTED_ATTEMPT_RETENTION_MS);
  return stores.rejectedAttempts.pruneUntouchedSince(cutoff);
}
