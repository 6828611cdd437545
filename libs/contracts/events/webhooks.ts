import { z } from 'zod';
import { ALL_EVENTS, MAX_WEBHOOK_ENDPOINTS, domainEventTypes } from '../bounds.js';
import {
  DEFAULT_PER_PAGE,
  Id,
  MAX_PAGE,
  MAX_PER_PAGE,
  ShortText,
  Timestamp,
  WellFormedText,
} from '../shared.js';

/**
 * Webhook endpoints and their deliveries (the management API, the webhooks service): what an
 * admin registers to receive the domain events (domain-events.ts), and what was sent to it.
 */

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
