import {
  LicensingError,
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_TEST_EVENT,
} from '../../libs/contracts/index.js';
import type { ServedHandlers } from '../../libs/transport/index.js';
import { destinationProblem, type DestinationPolicy } from './destination.js';
import { PREVIOUS_SECRET_KEPT_MS } from './rules.js';
import { generateSecret, testDeliveryId, webhookPayload } from './signatures.js';
import type { WebhookEndpointRecord, WebhookStores } from './stores.js';
import { deliveryView, endpointView, endpointWithSecretView } from './views.js';

export interface WebhookDeps {
  stores: WebhookStores;
  policy: DestinationPolicy;
  clock: () => Date;
  /** Tells the sender a delivery is due now. */
  nudge: () => void;
}

function notFound(id: number): LicensingError {
  return new LicensingError('NOT_FOUND', `No webhook endpoint has the id ${id}.`);
}

/** A URL refused for where it points: a bad request, changing nothing. */
async function checkDestination(url: string, policy: DestinationPolicy): Promise<void> {
  const problem = await destinationProblem(url, policy);
  if (problem !== null) throw new LicensingError('INVALID_REQUEST', problem);
}

/** RPC handlers of the webhooks service: the endpoints, their deliveries, tests and retries. */
export function createWebhookHandlers({
  stores,
  policy,
  clock,
  nudge,
}: WebhookDeps): ServedHandlers<'webhooks'> {
  const { endpoints, deliveries } = stores;

  async function existing(id: number): Promise<WebhookEndpointRecord> {
    const endpoint = await endpoints.find(id);
    if (!endpoint) throw notFound(id);
    return endpoint;
  }

  return {
    'webhooks.createEndpoint': async ({ url, events, description }, context) => {
      await checkDestination(url, policy);
      context.beforeWrite();
      const created = await endpoints.create(
        { url, events, description, secret: generateSecret(), created_at: clock() },
        MAX_WEBHOOK_ENDPOINTS,
      );
      if (!created) {
        throw new LicensingError(
          'INVALID_REQUEST',
          `At most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints may be registered; delete one first.`,
        );
      }
      return endpointWithSecretView(created);
    },

    'webhooks.listEndpoints': async () => ({
      webhooks: (await endpoints.list()).map(endpointView),
    }),

    'webhooks.getEndpoint': async ({ id }) => endpointView(await existing(id)),

    'webhooks.updateEndpoint': async ({ id, url, events, description, enabled }, context) => {
      const endpoint = await existing(id);
      if (url !== undefined && url !== endpoint.url) await checkDestination(url, policy);
      // Enabled again, it starts afresh; disabled by an admin, it says so.
      const health =
        enabled === true && !endpoint.enabled
          ? { disabled_reason: null, failing_since: null }
          : enabled === false && endpoint.enabled
            ? { disabled_reason: 'admin' as const }
            : {};
      context.beforeWrite();
      const updated = await endpoints.update(id, {
        url,
        events,
        description,
        enabled,
        ...health,
      });
      if (!updated) throw notFound(id);
      if (updated.enabled && !endpoint.enabled) nudge();
      return endpointView(updated);
    },

    'webhooks.deleteEndpoint': async ({ id }, context) => {
      context.beforeWrite();
      const removed = await endpoints.remove(id);
      if (!removed) throw notFound(id);
      context.beforeWrite();
      await deliveries.removeForEndpoint(id);
      return endpointView(removed);
    },

    'webhooks.rotateSecret': async ({ id }, context) => {
      const now = clock();
      context.beforeWrite();
      const rotated = await endpoints.rotateSecret(
        id,
        generateSecret(),
        now,
        new Date(now.getTime() + PREVIOUS_SECRET_KEPT_MS),
      );
      if (!rotated) throw notFound(id);
      return endpointWithSecretView(rotated);
    },

    'webhooks.sendTest': async ({ id }, context) => {
      const endpoint = await existing(id);
      const now = clock();
      const timestamp = now.toISOString();
      const delivery = {
        id: testDeliveryId(),
        endpoint_id: endpoint.id,
        event_type: WEBHOOK_TEST_EVENT,
        event_at: now,
        payload: webhookPayload(WEBHOOK_TEST_EVENT, timestamp, {
          webhook_id: endpoint.id,
          message: 'A test event sent from the licensing service.',
        }),
        next_attempt_at: now,
        created_at: now,
      };
      context.beforeWrite();
      await deliveries.add([delivery]);
      nudge();
      return deliveryView({ ...delivery, status: 'pending', attempts: [] });
    },

    'webhooks.listDeliveries': async ({ endpoint_id, status, page, per_page }) => {
      await existing(endpoint_id);
      const found = await deliveries.page(endpoint_id, status, page, per_page);
      return {
        deliveries: found.deliveries.map(deliveryView),
        page,
        per_page,
        total: found.total,
      };
    },

    'webhooks.retryDelivery': async ({ endpoint_id, delivery_id }, context) => {
      await existing(endpoint_id);
      context.beforeWrite();
      const delivery = await deliveries.retryNow(endpoint_id, delivery_id, clock());
      if (!delivery) {
        throw new LicensingError(
          'NOT_FOUND',
          `Webhook endpoint ${endpoint_id} has no delivery ${delivery_id}.`,
        );
      }
      if (delivery === 'attempting') {
        throw new LicensingError(
          'ATTEMPT_IN_PROGRESS',
          `Delivery ${delivery_id} is being attempted right now: retry it, if still needed, ` +
            'once that attempt is listed.',
        );
      }
      nudge();
      return deliveryView(delivery);
    },
  };
}
