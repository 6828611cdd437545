import type { PublishDomainEvent } from '../../libs/transport/domain-events.js';
import type { VersionRecord } from './stores.js';

/**
 * The update catalog's domain events, said by the handlers once the write that made each happen
 * has succeeded.
 */
export interface CatalogEvents {
  /**
   * A version became published (what the update check may offer, spec 4.4 rule 1): created published,
   * or changed from unpublished to published.
   */
  versionPublished(event: { version: VersionRecord; at: Date }): void;
  /** An admin changed a version's rollout percentage (docs/updaters.md, staged rollouts). */
  rolloutChanged(event: { version: VersionRecord; previousPercent: number; at: Date }): void;
}

/** The events as domain events (libs/contracts/events/domain-events.ts), each handed to `publish`. */
export function publishedCatalogEvents(publish: PublishDomainEvent): CatalogEvents {
  return {
    versionPublished: ({ version, at }) =>
      publish(
        'version.published',
        {
          product_id: version.product_id,
          version_id: version.id,
          version: version.version,
          release_date: version.release_date,
        },
        at,
      ),
    rolloutChanged: ({ version, previousPercent, at }) =>
      publish(
        'version.rollout_changed',
        {
          product_id: version.product_id,
          version_id: version.id,
          version: version.version,
          channel: version.channel,
          rollout_percent: version.rollout_percent,
          previous_rollout_percent: previousPercent,
        },
        at,
      ),
  };
}
