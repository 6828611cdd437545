import type { Logger } from '../../libs/logging/index.js';

/** Why an activation was removed. */
export type ActivationRemovalSource = 'deactivate' | 'admin' | 'lease';

/** An activation removed from its license (spec 3.2), as a domain event. */
export interface ActivationDeleted {
  license_key: string;
  identifier: string;
  source: ActivationRemovalSource;
  at: Date;
}

/**
 * The license service's domain events: what happened to licenses and activations, for whatever
 * follows them (the log, today).
 */
export interface LicenseEvents {
  activationDeleted(event: ActivationDeleted): void;
}

/** Events written to the log, one line each, named as the event. */
export function loggedEvents(logger: Logger): LicenseEvents {
  return {
    activationDeleted: ({ license_key, identifier, source, at }) =>
      logger.info(
        { event: 'activation.deleted', license_key, identifier, source, at: at.toISOString() },
        'activation deleted',
      ),
  };
}

/** The removal of lapsed activations (docs/api-decisions.md, "Leases"), as events. */
export function announceLapsed(
  events: LicenseEvents,
  licenseKey: string,
  released: ReadonlyArray<{ identifier: string }>,
  at: Date,
): void {
  for (const { identifier } of released) {
    events.activationDeleted({ license_key: licenseKey, identifier, source: 'lease', at });
  }
}
