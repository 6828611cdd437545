import type { DailyCounts } from '../../../libs/daily-counts/index.js';
import type { LicenseEvents } from '../events.js';

/** What the license service counts per UTC day and product (the admin overview). */
export const licenseMetrics = [
  'activations',
  'deactivations',
  'validations',
  'rejected_activations',
] as const;
export type LicenseMetric = (typeof licenseMetrics)[number];

export type LicenseCounts = DailyCounts<LicenseMetric>;

/**
 * The license service's events, counted as they are said: each counts once, on the day of its
 * `at`, under the license's product (a bundle license's under the bundle), as its domain event
 * would be, so the counts of a day equal its events:
 * - `activation.created` (a client's activate or an admin's Add) is an activation;
 * - `activation.deleted` (a deactivate, an admin's Remove, a lapsed lease) a deactivation;
 * - `activation.rejected` (a refusal recorded as a rejected attempt, spec 2.5) a rejected one.
 * Validations are no event: the validate handler counts them itself.
 */
export function countedEvents(events: LicenseEvents, counts: LicenseCounts): LicenseEvents {
  return {
    ...events,
    activationCreated: (event) => {
      events.activationCreated(event);
      counts.count('activations', event.license.product_id, event.at);
    },
    activationDeleted: (event) => {
      events.activationDeleted(event);
      counts.count('deactivations', event.license.product_id, event.at);
    },
    activationRejected: (event) => {
      events.activationRejected(event);
      counts.count('rejected_activations', event.license.product_id, event.at);
    },
  };
}
