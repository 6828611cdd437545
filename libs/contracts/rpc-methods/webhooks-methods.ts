import * as webhooks from '../events/webhooks.js';
import { EmptyRequest, Health, method } from './method.js';

/** The webhooks service's RPC methods (endpoints and deliveries). */
export const webhooksMethods = {
  'webhooks.health': method('webhooks', EmptyRequest, Health),
  'webhooks.createEndpoint': method(
    'webhooks',
    webhooks.CreateWebhookRequest,
    webhooks.WebhookEndpointWithSecret,
  ),
  'webhooks.listEndpoints': method('webhooks', EmptyRequest, webhooks.WebhookList),
  'webhooks.getEndpoint': method('webhooks', webhooks.WebhookRef, webhooks.WebhookEndpoint),
  'webhooks.updateEndpoint': method(
    'webhooks',
    webhooks.UpdateWebhookRequest,
    webhooks.WebhookEndpoint,
  ),
  'webhooks.deleteEndpoint': method('webhooks', webhooks.WebhookRef, webhooks.WebhookEndpoint),
  /** A new secret, answered once; the one before keeps signing beside it for 24 hours. */
  'webhooks.rotateSecret': method(
    'webhooks',
    webhooks.WebhookRef,
    webhooks.WebhookEndpointWithSecret,
  ),
  /** Queues a `webhook.test` event for the endpoint, tried at once. */
  'webhooks.sendTest': method('webhooks', webhooks.WebhookRef, webhooks.WebhookDelivery),
  'webhooks.listDeliveries': method(
    'webhooks',
    webhooks.ListWebhookDeliveriesRequest,
    webhooks.WebhookDeliveryPage,
  ),
  /** Tries a delivery again now, whatever its state; its id (the `webhook-id`) stays. */
  'webhooks.retryDelivery': method(
    'webhooks',
    webhooks.WebhookDeliveryRef,
    webhooks.WebhookDelivery,
  ),
} as const;
