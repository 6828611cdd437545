import { isWebhookEventType, type DomainEvent } from '../../libs/contracts/index.js';
import { deliveryIdFor, webhookPayload } from './signatures.js';
import type { WebhookStores } from './stores.js';

/**
 * A domain event becomes one delivery per enabled endpoint that asked for its type, due at once.
 * Their ids derive from the event's, so an event the message bus delivers again adds nothing;
 * the bus has the event acknowledged only once this has resolved (at least once, never lost).
 * An event between the services alone (`serviceEventTypes`) goes to no endpoint, `*` included.
 */
export async function takeDomainEvent(
  event: DomainEvent,
  deps: { stores: WebhookStores; clock: () => Date },
): Promise<number> {
  if (!isWebhookEventType(event.type)) return 0;
  const endpoints = await deps.stores.endpoints.wanting(event.type);
  if (endpoints.length === 0) return 0;
  const now = deps.clock();
  const payload = webhookPayload(event.type, event.timestamp, event.data);
  await deps.stores.deliveries.add(
    endpoints.map((endpoint) => ({
      id: deliveryIdFor(event.id, endpoint.id),
      endpoint_id: endpoint.id,
      event_type: event.type,
      event_at: new Date(event.timestamp),
      payload,
      next_attempt_at: now,
      created_at: now,
    })),
  );
  return endpoints.length;
}
