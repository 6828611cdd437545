import type { LicenseStatus } from '../../libs/contracts/index.js';
import type { ActivationRecord, LicenseRecord } from '../../services/license/records.js';

/**
 * The licenses the in-memory license store and read model share (license-memory-stores.ts), as
 * the MongoDB ones share the licenses collection.
 */
export class MemoryLicenseTable {
  readonly byKey = new Map<string, LicenseRecord>();
  /** Each license's activations in the order they were made, as its `activations` array. */
  readonly activationsOf = new Map<string, ActivationRecord[]>();
  /** The order licenses were issued in: what MongoDB's `_id` breaks ties of `created_at` with. */
  readonly issueOrder = new Map<string, number>();
  /** Each license's last counted checks' ids, as its `recent_checks`. */
  readonly recentChecks = new Map<string, string[]>();
}

/** Each method first yields to the event loop, as a database round trip does. */
export const roundTrip = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Mirrors the MongoDB filter `{ lease_expires_at: { $not: { $lte: now } } }`: not lapsed. */
export const liveAt = (activation: ActivationRecord, now: Date) =>
  activation.lease_expires_at === null || activation.lease_expires_at.getTime() > now.getTime();

/** Mirrors the MongoDB filter `{ expires_at: null } or { expires_at: { $gt: now } }`. */
export const unexpiredAt = (license: LicenseRecord, now: Date) =>
  license.expires_at === null || license.expires_at.getTime() > now.getTime();

/**
 * Mirrors the MongoDB filter of a reported status
 * (services/license/licenses/mongo-license-documents.ts `reportedStatusFilter`).
 */
export function hasReportedStatus(
  license: LicenseRecord,
  status: LicenseStatus,
  now: Date,
): boolean {
  switch (status) {
    case 'active':
      return license.status === 'active' && unexpiredAt(license, now);
    case 'expired':
      return (
        license.status === 'expired' || (license.status === 'active' && !unexpiredAt(license, now))
      );
    default:
      return license.status === status;
  }
}
