import { z } from 'zod';
import { ALL_EVENTS, MAX_WEBHOOK_ENDPOINTS, domainEventTypes } from './bounds.js';
import { errorCodes, type ErrorCode } from './errors.js';
import { ReleaseChannel, RolloutPercent } from './updaters.js';
import {
  ClientIp,
  DEFAULT_PER_PAGE,
  Id,
  LicenseStatus,
  MAX_PAGE,
  MAX_PER_PAGE,
  ShortText,
  Timestamp,
  WellFormedText,
} from './shared.js';

/**
 * Domain events: what happened to licenses, activations, downloads and versions, published by the
 * service that owns the data, durably (at least once), for whatever follows them. The webhooks
 * service turns each into deliveries to the endpoints that asked for it (docs/webhooks.md shows
 * every event with an example). Their types are listed in bounds.ts, which the console reads.
 */
export { ALL_EVENTS, domainEventTypes };
export type DomainEventType = (typeof domainEventTypes)[number];

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
  eventOf('license.renewed'),
  eventOf('license.plan_changed'),
  eventOf('activation.created'),
  eventOf('activation.deleted'),
  eventOf('activation.rejected'),
  eventOf('download.served'),
  eventOf('download.refused'),
  eventOf('version.published'),
  eventOf('version.rollout_changed'),
]);
export type DomainEvent = z.output<typeof DomainEvent>;
export type DomainEventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
/** Fails the type check when an event type is missing from the union above. */
type EveryTypeCarried = DomainEventType extends DomainEvent['type'] ? true : never;
const everyTypeCarried: EveryTypeCarried = true;
void everyTypeCarried;

// --- Webhook endpoints (management API, the webhooks service) -------------------------------

export { MAX_WEBHOOK_ENDPOINTS };
const MAX_URL_LENGTH = 2048;

/** An absolute http(s) URL without credentials; where it points is checked by the service. */
export const WebhookUrl = WellFormedText.max(MAX_URL_LENGTH).refine(
  (value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') &&
        url.hostname !== '' &&
        url.username === '' &&
        url.password === ''
      );
    } catch {
      return false;
    }
  },
  { message: 'must be an absolute http or https URL without credentials' },
);

/** The events an endpoint receives: some domain event types, or `*` for all of them. */
export const WebhookEvents = z
  .array(z.enum([...domainEventTypes, ALL_EVENTS]))
  .min(1)
  .max(domainEventTypes.length + 1)
  .refine((events) => new Set(events).size === events.length, {
    message: 'must not repeat an event',
  })
  .refine((events) => !events.includes(ALL_EVENTS) || events.length === 1, {
    message: '`*` stands alone',
  });

/** Why an endpoint is disabled: an admin did it, or every delivery failed for days. */
export const webhookDisabledReasons = ['admin', 'failing'] as const;

export const WebhookEndpoint = z.object({
  id: Id,
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  /** Null while enabled. */
  disabled_reason: z.enum(webhookDisabledReasons).nullable(),
  /** Since when every attempt failed; null after a delivered one. */
  failing_since: Timestamp.nullable(),
  created_at: Timestamp,
  /** When the secret was last replaced; the one before signs too until 24 hours later. */
  secret_rotated_at: Timestamp.nullable(),
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** `whsec_` and the base64 of 32 random bytes: shown when made, never again. */
export const WebhookSecret = z.string().regex(/^whsec_[A-Za-z0-9+/]{43}=$/);

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({ secret: WebhookSecret });
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

export const CreateWebhookRequest = z.strictObject({
  url: WebhookUrl,
  events: WebhookEvents,
  description: ShortText.nullable().default(null),
});
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

export const UpdateWebhookRequest = z.strictObject({
  id: Id,
  url: WebhookUrl.optional(),
  events: WebhookEvents.optional(),
  description: ShortText.nullable().optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequest>;

export const WebhookRef = z.strictObject({ id: Id });
export const WebhookList = z.object({ webhooks: z.array(WebhookEndpoint) });

export const webhookDeliveryStatuses = ['pending', 'delivered', 'failed'] as const;
export const WebhookDeliveryStatus = z.enum(webhookDeliveryStatuses);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

/** A delivery id: the `webhook-id` header of every attempt (Standard Webhooks). */
export const WebhookDeliveryId = z.string().regex(/^msg_[0-9A-Za-z]{1,64}$/);

export const WebhookAttempt = z.object({
  at: Timestamp,
  /** The HTTP status answered; null when none was (the error says why). */
  status: z.number().int().nullable(),
  /** A network error, a timeout or a refused address; null when an answer came. */
  error: z.string().nullable(),
  duration_ms: z.number().int().nonnegative(),
  /** The start of the answer's body, at most 4 KB read and 1 KB kept. */
  response: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

export const WebhookDelivery = z.object({
  id: WebhookDeliveryId,
  endpoint_id: Id,
  event_type: z.string(),
  /** The body sent: `{"type", "timestamp", "data"}`. */
  payload: z.string(),
  status: WebhookDeliveryStatus,
  attempts: z.array(WebhookAttempt),
  /** When it is tried next; null once delivered or failed. */
  next_attempt_at: Timestamp.nullable(),
  created_at: Timestamp,
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ListWebhookDeliveriesRequest = z.strictObject({
  endpoint_id: Id,
  status: WebhookDeliveryStatus.nullable().default(null),
  page: z.number().int().positive().max(MAX_PAGE).default(1),
  per_page: z.number().int().positive().max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});
export type ListWebhookDeliveriesRequest = z.infer<typeof ListWebhookDeliveriesRequest>;

export const WebhookDeliveryPage = z.object({
  deliveries: z.array(WebhookDelivery),
  page: z.number().int().positive(),
  per_page: z.number().int().positive(),
  total: z.number().int().nonnegative(),
});

export const WebhookDeliveryRef = z.strictObject({
  endpoint_id: Id,
  delivery_id: WebhookDeliveryId,
});

/**
 * The consumers of domain events: each has a durable queue of its own, declared by the publishers
 * too, so that events published before a consumer first starts wait for it.
 */
export const domainEventConsumers = ['webhooks'] as const;
export type DomainEventConsumer = (typeof domainEventConsumers)[number];

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
