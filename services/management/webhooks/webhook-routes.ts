import { z } from 'zod';
import {
  CreateWebhookRequest,
  ListWebhookDeliveriesRequest,
  MAX_WEBHOOK_ENDPOINTS,
  UpdateWebhookRequest,
  WebhookDeliveryId,
  WebhookDeliveryStatus,
} from '../../../libs/contracts/index.js';
import { parseWith, type Route } from '../../../libs/http/index.js';
import { adminErrors, byIdErrors } from '../route-makers/admin-errors.js';
import { IdPath, absentIfEmpty, nonEmptyPatch, pageFields } from '../route-makers/admin-inputs.js';
import { rpcRoute } from '../route-makers/rpc-route.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';

const WebhookPatch = nonEmptyPatch(UpdateWebhookRequest.omit({ id: true }));

const DeliveryPath = IdPath.extend({
  delivery_id: WebhookDeliveryId.meta({
    description: 'The delivery id: `msg_` and letters or digits (its `webhook-id` header).',
  }),
});

/** The listing of an endpoint's deliveries: known fields once each; the page bounds. */
const DeliveryListQuery = z.strictObject({
  status: absentIfEmpty(WebhookDeliveryStatus).meta({
    description:
      'Only deliveries in this state: pending (to be tried, or tried again), delivered, or ' +
      'failed (every attempt failed and no more will be made).',
  }),
  ...pageFields('Deliveries'),
});

const webhookPath = (id: number) => `${ADMIN_BASE}/webhooks/${id}`;

const NO_ENDPOINT = 'No webhook endpoint with this id.';

/** What the webhooks service refuses of an endpoint's address, beside the schema's checks. */
const REFUSED_URL =
  'a URL whose host is, or resolves to, a loopback, private, link-local or metadata address ' +
  '(allowed only with WEBHOOK_ALLOW_PRIVATE_URLS=true)';

/**
 * Webhook endpoints and their deliveries, owned by the webhooks service: which domain events an
 * endpoint receives, its signing secret (shown when made or replaced, never again), a test event,
 * and each delivery's attempts, retried on demand.
 */
export const webhookRoutes = [
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/webhooks`,
    operationId: 'createWebhook',
    summary:
      'Add a webhook endpoint: its URL, the events it receives (`["*"]` for all of them) and a ' +
      'description. The answer carries its signing secret, the only time it is shown.',
    tag: 'Webhooks',
    body: CreateWebhookRequest,
    rpc: 'webhooks.createEndpoint',
    request: ({ body }) => body,
    success: { status: 201, description: 'The endpoint, with its secret.' },
    location: (endpoint) => webhookPath(endpoint.id),
    errors: {
      400: adminErrors[400](
        `A field that fails validation, ${REFUSED_URL}, or already ${MAX_WEBHOOK_ENDPOINTS} ` +
          'endpoints.',
      ),
    },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/webhooks`,
    operationId: 'listWebhooks',
    summary: 'Every webhook endpoint, without its secret.',
    tag: 'Webhooks',
    rpc: 'webhooks.listEndpoints',
    request: () => ({}),
    success: { status: 200, description: 'The endpoints.' },
    errors: {},
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/webhooks/:id`,
    operationId: 'getWebhook',
    summary: 'One webhook endpoint, without its secret.',
    tag: 'Webhooks',
    params: IdPath,
    rpc: 'webhooks.getEndpoint',
    request: ({ params }) => params,
    success: { status: 200, description: 'The endpoint.' },
    errors: byIdErrors(NO_ENDPOINT),
  }),
  rpcRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/webhooks/:id`,
    operationId: 'updateWebhook',
    summary:
      'Change the URL, events or description of an endpoint, or enable or disable it: enabled ' +
      'again, it starts afresh (no longer failing) and its waiting deliveries are sent. At ' +
      'least one field must be sent.',
    tag: 'Webhooks',
    params: IdPath,
    body: WebhookPatch,
    rpc: 'webhooks.updateEndpoint',
    request: ({ params, body }) => ({ ...params, ...body }),
    success: { status: 200, description: 'The changed endpoint.' },
    errors: {
      400: adminErrors[400](`A field that fails validation, or ${REFUSED_URL}.`),
      404: adminErrors[404](NO_ENDPOINT),
    },
    audit: {
      before: ({ params }, { transport }) => transport.call('webhooks.getEndpoint', params),
    },
  }),
  rpcRoute({
    method: 'delete',
    path: `${ADMIN_BASE}/webhooks/:id`,
    operationId: 'deleteWebhook',
    summary: 'Remove an endpoint and its deliveries; nothing more is sent to it. Cannot be undone.',
    tag: 'Webhooks',
    params: IdPath,
    rpc: 'webhooks.deleteEndpoint',
    request: ({ params }) => params,
    success: { status: 200, description: 'The removed endpoint.' },
    errors: byIdErrors(NO_ENDPOINT),
  }),
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/webhooks/:id/secret`,
    operationId: 'rotateWebhookSecret',
    summary:
      "Replace an endpoint's signing secret. The answer carries the new one, the only time it " +
      'is shown; deliveries are signed with the old one too for 24 hours, so the receiver can ' +
      'switch without losing any.',
    tag: 'Webhooks',
    params: IdPath,
    rpc: 'webhooks.rotateSecret',
    request: ({ params }) => params,
    success: { status: 200, description: 'The endpoint, with its new secret.' },
    errors: byIdErrors(NO_ENDPOINT),
    audit: {
      before: ({ params }, { transport }) => transport.call('webhooks.getEndpoint', params),
    },
  }),
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/webhooks/:id/test`,
    operationId: 'sendWebhookTest',
    summary:
      'Queue a `webhook.test` event for an endpoint, tried at once (a disabled endpoint gets ' +
      'it once enabled). 202: the answer is the delivery as queued, before its first attempt; ' +
      'its attempts are read from the deliveries.',
    tag: 'Webhooks',
    params: IdPath,
    rpc: 'webhooks.sendTest',
    request: ({ params }) => params,
    success: { status: 202, description: 'The delivery, queued.' },
    errors: byIdErrors(NO_ENDPOINT),
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/webhooks/:id/deliveries`,
    operationId: 'listWebhookDeliveries',
    summary:
      "An endpoint's deliveries, newest first, a page at a time: the event, the payload sent, " +
      'every attempt (time, HTTP status or error, duration) and the next one.',
    tag: 'Webhooks',
    params: IdPath,
    query: DeliveryListQuery,
    rpc: 'webhooks.listDeliveries',
    // The contract fills in absent fields and bounds page and per_page.
    request: ({ params, query }) =>
      parseWith(ListWebhookDeliveriesRequest, { ...query, endpoint_id: params.id }, 'query'),
    success: { status: 200, description: 'One page of deliveries.' },
    errors: {
      400: adminErrors[400](
        'The id is not a positive integer, or an unknown, repeated or ' + 'malformed parameter.',
      ),
      404: adminErrors[404](NO_ENDPOINT),
    },
  }),
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/webhooks/:id/deliveries/:delivery_id/retry`,
    operationId: 'retryWebhookDelivery',
    summary:
      'Try a delivery again now, whatever its state (a failed one too), with the same id, so ' +
      'a receiver that got it before can tell. The answer is the delivery pending again, before ' +
      'that attempt; it counts as one attempt more of its retry schedule. Refused while an ' +
      'attempt of it is under way.',
    tag: 'Webhooks',
    params: DeliveryPath,
    rpc: 'webhooks.retryDelivery',
    request: ({ params }) => ({ endpoint_id: params.id, delivery_id: params.delivery_id }),
    success: { status: 200, description: 'The delivery, queued again.' },
    errors: {
      400: adminErrors[400]('The id is not a positive integer, or the delivery id is malformed.'),
      404: adminErrors[404]('No webhook endpoint with this id, or no such delivery of it.'),
      409: {
        codes: ['ATTEMPT_IN_PROGRESS'],
        description:
          'An attempt of the delivery is under way: it is sent once at a time. Retry it once ' +
          'that attempt is listed.',
      },
    },
  }),
] satisfies readonly Route<ManagementDeps>[];
