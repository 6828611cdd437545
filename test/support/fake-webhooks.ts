import { randomBytes } from 'node:crypto';
import {
  LicensingError,
  MAX_WEBHOOK_ENDPOINTS,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '../../libs/contracts/index.js';
import type { ServedHandlers, Transport } from '../../libs/transport/index.js';

/**
 * The webhooks service's RPC methods in memory, served on a system's transport: endpoints and
 * deliveries as the contract shapes them, loopback URLs refused, nothing sent anywhere.
 */
export function fakeWebhooks(): ServedHandlers<'webhooks'> {
  let nextId = 1;
  const endpoints = new Map<number, WebhookEndpoint>();
  const deliveries: WebhookDelivery[] = [];
  const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
  const find = (id: number) => {
    const endpoint = endpoints.get(id);
    if (!endpoint) throw new LicensingError('NOT_FOUND', 'No webhook endpoint with this id.');
    return endpoint;
  };
  const refuseLoopback = (url: string) => {
    const host = new URL(url).hostname;
    if (host === 'localhost' || host.startsWith('127.') || host === '[::1]') {
      throw new LicensingError('INVALID_REQUEST', 'url: points to a loopback address.');
    }
  };
  return {
    'webhooks.createEndpoint': async (request) => {
      refuseLoopback(request.url);
      if (endpoints.size >= MAX_WEBHOOK_ENDPOINTS) {
        throw new LicensingError('INVALID_REQUEST', 'There are 50 endpoints already.');
      }
      const endpoint: WebhookEndpoint = {
        id: nextId++,
        url: request.url,
        events: request.events,
        description: request.description,
        enabled: true,
        disabled_reason: null,
        failing_since: null,
        created_at: new Date().toISOString(),
        secret_rotated_at: null,
      };
      endpoints.set(endpoint.id, endpoint);
      return { ...endpoint, secret: secret() };
    },
    'webhooks.listEndpoints': async () => ({ webhooks: [...endpoints.values()] }),
    'webhooks.getEndpoint': async ({ id }) => find(id),
    'webhooks.updateEndpoint': async ({ id, ...changes }) => {
      if (changes.url !== undefined) refuseLoopback(changes.url);
      const endpoint = find(id);
      const enabled = changes.enabled ?? endpoint.enabled;
      const changed: WebhookEndpoint = {
        ...endpoint,
        ...(changes.url !== undefined ? { url: changes.url } : {}),
        ...(changes.events !== undefined ? { events: changes.events } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        enabled,
        disabled_reason: enabled
          ? null
          : changes.enabled === false
            ? 'admin'
            : endpoint.disabled_reason,
      };
      endpoints.set(id, changed);
      return changed;
    },
    'webhooks.deleteEndpoint': async ({ id }) => {
      const endpoint = find(id);
      endpoints.delete(id);
      return endpoint;
    },
    'webhooks.rotateSecret': async ({ id }) => {
      const endpoint = { ...find(id), secret_rotated_at: new Date().toISOString() };
      endpoints.set(id, endpoint);
      return { ...endpoint, secret: secret() };
    },
    'webhooks.sendTest': async ({ id }) => {
      find(id);
      const now = new Date().toISOString();
      const delivery: WebhookDelivery = {
        id: `msg_${randomBytes(8).toString('hex')}`,
        endpoint_id: id,
        event_type: 'webhook.test',
        payload: JSON.stringify({ type: 'webhook.test', timestamp: now, data: {} }),
        status: 'pending',
        attempts: [],
        next_attempt_at: now,
        created_at: now,
      };
      deliveries.unshift(delivery);
      return delivery;
    },
    'webhooks.listDeliveries': async ({ endpoint_id, status, page, per_page }) => {
      find(endpoint_id);
      const matching = deliveries.filter(
        (d) => d.endpoint_id === endpoint_id && (status === null || d.status === status),
      );
      return {
        deliveries: matching.slice((page - 1) * per_page, page * per_page),
        page,
        per_page,
        total: matching.length,
      };
    },
    'webhooks.retryDelivery': async ({ endpoint_id, delivery_id }) => {
      find(endpoint_id);
      const delivery = deliveries.find(
        (d) => d.endpoint_id === endpoint_id && d.id === delivery_id,
      );
      if (!delivery) throw new LicensingError('NOT_FOUND', 'No such delivery.');
      return delivery;
    },
  };
}

/** Serves the fake on `transport`. */
export function serveFakeWebhooks(transport: Transport): Promise<void> {
  return transport.serve('webhooks', fakeWebhooks());
}
