import type { LicenseModels } from './models.js';

/** Spec 2.5 and 8: rejected-attempt rows untouched for 90 days are removed. */
export const REJECTED_ATTEMPT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * Spec 3.1: an active license whose expiry date has passed becomes `expired`. Until this runs,
 * validate and the update check already report `expired` (rules.ts `effectiveStatus`). One
 * `updateMany` whose filter re-checks the condition, so a license renewed meanwhile is left alone.
 */
export async function expireLicenses(models: LicenseModels, now: Date): Promise<number> {
  const result = await models.License.updateMany(
    { status: 'active', expires_at: { $ne: null, $lte: now } },
    { $set: { status: 'expired' } },
  );
  return result.modifiedCount;
}

/** Spec 2.5: removes the rejected-attempt rows whose last try is 90 days old or older. */
export async function pruneRejectedAttempts(models: LicenseModels, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - REJECTED_ATTEMPT_RETENTION_MS);
  const result = await models.RejectedAttempt.deleteMany({ last_attempt_at: { $lte: cutoff } });
  return result.deletedCount;
}
