import {
  CreateStoreConnectionRequest,
  PREVIOUS_SECRET_HOURS,
  UpdateStoreConnectionRequest,
} from '../../../libs/contracts/stores/store-connections.js';
import {
  StoreConnectionView,
  StoreConnectionViewList,
} from '../../../libs/contracts/stores/store-connection-views.js';
import type { Route } from '../../../libs/http/index.js';
import { adminErrors, byIdErrors } from '../route-makers/admin-errors.js';
import { IdPath, nonEmptyPatch } from '../route-makers/admin-inputs.js';
import { adminRoute } from '../route-makers/admin-route.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { connectionView } from './store-connection-view.js';

const ConnectionPatch = nonEmptyPatch(UpdateStoreConnectionRequest.omit({ id: true }));

export const storeConnectionPath = (id: number) => `${ADMIN_BASE}/store-connections/${id}`;

export const NO_CONNECTION = 'No store connection with this id.';

/** A connection as answered, read before a change so that the audit entry compares like with like. */
const viewOf = async ({ params }: { params: { id: number } }, deps: ManagementDeps) =>
  connectionView(await deps.transport.call('stores.getConnection', params), deps.publicUrl);

/**
 * The stores whose sales become licenses (docs/stores.md), owned by the stores service: each
 * answer carries the URL the store is to send its events to (`events_url`) and never a secret.
 * A signing secret is pasted from the store, when the connection is made or the store's is
 * replaced; it is kept by the stores service and never answered or written to the audit log.
 * Connections are an owner's: a secret and what sales make licenses are at stake.
 */
export const storeConnectionRoutes = [
  adminRoute({
    method: 'post',
    path: `${ADMIN_BASE}/store-connections`,
    operationId: 'createStoreConnection',
    summary:
      'Connect a store (Stripe, Paddle, Lemon Squeezy or WooCommerce) in its test or live mode: ' +
      'its name, the signing secret of its webhook, optionally an API key, the grace days of a ' +
      'failed payment and the e-mails its buyers get. The answer carries `events_url`, the ' +
      "address to paste into the store's webhook settings; the secrets are never answered.",
    tag: 'Stores',
    body: CreateStoreConnectionRequest,
    success: { status: 201, description: 'The connection.', data: StoreConnectionView },
    errors: { 400: adminErrors[400]('A field that fails validation.') },
    handle: async ({ body }, { transport, publicUrl }) => {
      const made = await transport.call('stores.createConnection', body);
      return { data: connectionView(made, publicUrl), location: storeConnectionPath(made.id) };
    },
  }),
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/store-connections`,
    operationId: 'listStoreConnections',
    summary: 'Every store connection, with its events URL, without its secrets.',
    tag: 'Stores',
    success: { status: 200, description: 'The connections.', data: StoreConnectionViewList },
    errors: {},
    handle: async (_input, { transport, publicUrl }) => {
      const { connections } = await transport.call('stores.listConnections', {});
      return {
        data: { connections: connections.map((made) => connectionView(made, publicUrl)) },
      };
    },
  }),
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/store-connections/:id`,
    operationId: 'getStoreConnection',
    summary: 'One store connection, with its events URL, without its secrets.',
    tag: 'Stores',
    params: IdPath,
    success: { status: 200, description: 'The connection.', data: StoreConnectionView },
    errors: byIdErrors(NO_CONNECTION),
    handle: async (input, deps) => ({ data: await viewOf(input, deps) }),
  }),
  adminRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/store-connections/:id`,
    operationId: 'updateStoreConnection',
    summary:
      "Change a connection's name, mode, API key (null removes it), grace days or e-mails, or " +
      `replace its signing secret with the store's new one: the one before still verifies for ` +
      `${PREVIOUS_SECRET_HOURS} hours, so events the store signed with it meanwhile are taken. ` +
      'At least one field must be sent.',
    tag: 'Stores',
    params: IdPath,
    body: ConnectionPatch,
    success: { status: 200, description: 'The changed connection.', data: StoreConnectionView },
    errors: {
      400: adminErrors[400]('The id is not a positive integer, or a field fails validation.'),
      404: adminErrors[404](NO_CONNECTION),
    },
    audit: { before: viewOf },
    handle: async ({ params, body }, { transport, publicUrl }) => {
      const changed = await transport.call('stores.updateConnection', { ...params, ...body });
      return { data: connectionView(changed, publicUrl) };
    },
  }),
  adminRoute({
    method: 'delete',
    path: `${ADMIN_BASE}/store-connections/:id`,
    operationId: 'deleteStoreConnection',
    summary:
      'Remove a connection and its mappings: what the store sends to its events URL afterwards ' +
      'is not taken. The events it received stay listed; the licenses they made are not changed.',
    tag: 'Stores',
    params: IdPath,
    success: { status: 200, description: 'The removed connection.', data: StoreConnectionView },
    errors: byIdErrors(NO_CONNECTION),
    handle: async ({ params }, { transport, publicUrl }) => {
      const removed = await transport.call('stores.deleteConnection', params);
      return { data: connectionView(removed, publicUrl) };
    },
  }),
] satisfies readonly Route<ManagementDeps>[];
