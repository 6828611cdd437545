import { z } from 'zod';
import { ALL_EVENTS, domainEventTypes } from '../bounds.js';
import { errorCodes, type ErrorCode } from '../errors.js';
import { ReleaseChannel, RolloutPercent } from '../catalog/updaters.js';
import { ClientIp, Id, LicenseStatus, Timestamp } from '../shared.js';
import { StoreLicensesChanged } from '../stores/store-license-changes.js';
import { UsesReset } from '../licenses/usage.js';

/**
 * Domain events: what happened to licenses, activations, downloads and versions, published by the
 * service that owns the data, durably (at least once), for whatever follows them. The webhooks
 * service turns each into deliveries to the endpoints that asked for it (docs/webhooks.md shows
 * every event with an example). Their types are listed in libs/contracts/bounds.ts, which the
 * console reads.
 */
export { ALL_EVENTS, domainEventTypes };
/** The types a webhook endpoint may ask for (`*` is every one of these). */
export type WebhookEventType = (typeof domainEventTypes)[number];

/**
 * Domain events between the services alone: never offered to a webhook endpoint nor sent to one
 * (`*` included). `store.licenses_changed`: the license changes the stores service made, for the
 * audit log (the same changes reach the endpoints as the license service's own events).
 */
export const serviceEventTypes = ['store.licenses_changed'] as const;
export type DomainEventType = WebhookEventType | (typeof serviceEventTypes)[number];

/** Whether an event of this type may be sent to a webhook endpoint. */
export function isWebhookEventType(type: DomainEventType): type is WebhookEventType {
  return (domainEventTypes as readonly string[]).includes(type);
}

/** The event a webhook endpoint receives when an admin asks for a test; never a domain event. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** A license as its events describe it (spec 2.2), without the owner or the activations. */
const LicenseFacts = z.object({
  license_key: z.string(),
  product_id: Id,
  plan_id: Id,
  status: LicenseStatus,
  activation_limit: z.number().int().nonnegative(),
  expires_at: Timestamp.nullable(),
});

/** The fields of a license an admin changes (`license.updated`). */
export const licenseUpdateFields = ['status', 'activation_limit', 'expires_at'] as const;
const LicenseUpdateField = z.enum(licenseUpdateFields);

/** An activation as its events describe it: the normalised identifier (spec 2.4). */
const ActivationFacts = z.object({
  license_key: z.string(),
  product_id: Id,
  identifier: z.string(),
  name: z.string().nullable(),
  ip: ClientIp,
  /** It matched one of the plan's exempt patterns and took no slot. */
  exempt: z.boolean(),
});

/** A trial as its events describe it, without the buyer's address. */
const TrialFacts = z.object({
  license_key: z.string(),
  product_id: Id,
  plan_id: Id,
  identifier: z.string(),
  started_at: Timestamp,
  expires_at: Timestamp,
});

/** The error code a refused client got. */
const Reason = z.enum(errorCodes as [ErrorCode, ...ErrorCode[]]);

/** The data of each domain event, by type. */
export const domainEventData = {
  'license.created': LicenseFacts,
  /** An admin changed the status, the limit or the expiry: `changed` names them, `previous` holds their values before. */
  'license.updated': LicenseFacts.extend({
    changed: z.array(LicenseUpdateField).min(1),
    previous: z.object({
      status: LicenseStatus.optional(),
      activation_limit: z.number().int().nonnegative().optional(),
      expires_at: Timestamp.nullable().optional(),
    }),
  }),
  /** The scheduled task of spec 3.1 found it past its expiry date. */
  'license.expired': LicenseFacts,
  /**
   * Expiry strategies (docs/api-decisions.md): the expiry task found it past its expiry date on a
   * plan with grace days; it answers as active until `grace_ends_at`.
   */
  'license.grace_started': LicenseFacts.extend({ grace_ends_at: Timestamp }),
  /** Spec 3.3: a renewal moved its expiry. */
  'license.renewed': LicenseFacts.extend({ previous_expires_at: Timestamp.nullable() }),
  /** Spec 3.3: it moved to another plan (now, or by the renewal that applied a stored change). */
  'license.plan_changed': LicenseFacts.extend({ previous_plan_id: Id }),
  'activation.created': ActivationFacts.extend({ source: z.enum(['api', 'admin']) }),
  'activation.deleted': ActivationFacts.extend({
    /** A client's deactivate, an admin's removal, or a lease that lapsed. */
    source: z.enum(['deactivate', 'admin', 'lease']),
  }),
  /** Spec 4.1: an activation refused; only the refusals recorded as rejected attempts (2.5). */
  'activation.rejected': z.object({
    license_key: z.string(),
    product_id: Id,
    identifier: z.string(),
    ip: ClientIp,
    reason: Reason,
  }),
  'download.served': z.object({
    license_key: z.string().nullable(),
    product_id: Id,
    identifier: z.string().nullable(),
    ip: ClientIp,
    version: z.string(),
    filename: z.string(),
  }),
  /** Spec 4.5: a refused download, with the error code the client got. */
  'download.refused': z.object({
    license_key: z.string().nullable(),
    product_id: Id.nullable(),
    identifier: z.string().nullable(),
    ip: ClientIp,
    reason: Reason,
  }),
  /** A version became published: created published, or published later. */
  'version.published': z.object({
    product_id: Id,
    version_id: Id,
    version: z.string(),
    release_date: z.string().nullable(),
  }),
  /** An admin raised, lowered or paused a version's staged rollout (docs/updaters.md). */
  'version.rollout_changed': z.object({
    product_id: Id,
    version_id: Id,
    version: z.string(),
    channel: ReleaseChannel,
    rollout_percent: RolloutPercent,
    previous_rollout_percent: RolloutPercent,
  }),
  /**
   * A license's usage counter reached its plan's cap, or an increment was refused for it: once
   * per license and period (docs/api-decisions.md, "Usage counters").
   */
  'usage.limit_reached': z.object({
    license_key: z.string(),
    product_id: Id,
    plan_id: Id,
    uses: z.number().int().nonnegative(),
    max_uses: z.number().int().positive(),
    uses_reset: UsesReset,
    /** When the counter starts again from 0; null when it never does. */
    resets_at: Timestamp.nullable(),
  }),
  /** A trial license was issued with the identifier activated on it (docs/api-decisions.md, "Trials"). */
  'trial.started': TrialFacts,
  /** A paid license was activated on the trial's identifier: the trial license is cancelled. */
  'trial.converted': TrialFacts.extend({
    converted_license_key: z.string(),
    converted_at: Timestamp,
  }),
  'store.licenses_changed': StoreLicensesChanged,
} as const satisfies Record<DomainEventType, z.ZodType>;

export type DomainEventData<T extends DomainEventType> = z.output<(typeof domainEventData)[T]>;

/** A domain event id: unique per event, so a consumer that sees it twice can tell. */
export const DomainEventId = z.uuid();

function eventOf<T extends DomainEventType>(type: T) {
  return z.object({
    id: DomainEventId,
    type: z.literal(type),
    timestamp: Timestamp,
    data: domainEventData[type],
  });
}

/** One domain event as it travels on the message bus. */
export const DomainEvent = z.discriminatedUnion('type', [
  eventOf('license.created'),
  eventOf('license.updated'),
  eventOf('license.expired'),
  eventOf('license.grace_started'),
  eventOf('license.renewed'),
  eventOf('license.plan_changed'),
  eventOf('activation.created'),
  eventOf('activation.deleted'),
  eventOf('activation.rejected'),
  eventOf('download.served'),
  eventOf('download.refused'),
  eventOf('version.published'),
  eventOf('version.rollout_changed'),
  eventOf('usage.limit_reached'),
  eventOf('trial.started'),
  eventOf('trial.converted'),
  eventOf('store.licenses_changed'),
]);
export type DomainEvent = z.output<typeof DomainEvent>;
export type DomainEventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
/** Fails the type check when an event type is missing from the union above. */
type EveryTypeCarried = DomainEventType extends DomainEvent['type'] ? true : never;
const everyTypeCarried: EveryTypeCarried = true;
void everyTypeCarried;

/**
 * The consumers of domain events: each has a durable queue of its own, declared by the publishers
 * too, so that events published before a consumer first starts wait for it.
 */
export const domainEventConsumers = ['webhooks', 'audit'] as const;
export type DomainEventConsumer = (typeof domainEventConsumers)[number];

/**
 * The types each consumer's queue receives: the webhooks service every type (it sends on those an
 * endpoint may ask for, and its queue has always been bound to all of them), the management
 * service's audit log the store's license changes alone, so the events of every activation and
 * download do not pass through it.
 */
export const consumedDomainEvents: Record<
  DomainEventConsumer,
  'every' | readonly DomainEventType[]
> = { webhooks: 'every', audit: ['store.licenses_changed'] };

/** Whether a consumer's queue receives events of a type. */
export function consumesDomainEvent(consumer: DomainEventConsumer, type: DomainEventType): boolean {
  const types = consumedDomainEvents[consumer];
  return types === 'every' || types.includes(type);
}

/** A domain event of a type, with a new id, at the time given. */
export function domainEvent<T extends DomainEventType>(
  type: T,
  data: DomainEventData<T>,
  at: Date,
): DomainEventOf<T> {
  return {
    id: globalThis.crypto.randomUUID(),
    type,
    timestamp: at.toISOString(),
    data,
  } as DomainEventOf<T>;
}
