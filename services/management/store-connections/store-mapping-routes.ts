import {
  CreateStoreMappingRequest,
  UpdateStoreMappingRequest,
} from '../../../libs/contracts/stores/store-connections.js';
import type { Route } from '../../../libs/http/index.js';
import { adminErrors, byIdErrors } from '../route-makers/admin-errors.js';
import { IdPath, nonEmptyPatch } from '../route-makers/admin-inputs.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { rpcRoute } from '../route-makers/rpc-route.js';
import { NO_CONNECTION } from './store-connection-routes.js';

const MappingBody = CreateStoreMappingRequest.omit({ connection_id: true });
const MappingPatch = nonEmptyPatch(UpdateStoreMappingRequest.omit({ id: true }));

const NO_MAPPING = 'No store mapping with this id.';

/** What the stores service refuses of a mapping beside the schema's checks. */
const UNKNOWN_TARGET = 'no product or plan with the id given';

/**
 * What a store's price, variant or product id sells (docs/stores.md): a product and a plan, how
 * a subscription's renewal reaches the license, and how long a one-off order's license runs.
 * An owner's, as the catalog's plans are: they decide what every sale issues.
 */
export const storeMappingRoutes = [
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/store-connections/:id/mappings`,
    operationId: 'createStoreMapping',
    summary:
      "Map one of the store's ids (a Stripe or Paddle price, a Lemon Squeezy variant, a " +
      'WooCommerce product or variation) to a product and plan: its events issue and change ' +
      'licenses of that plan. One mapping per id and connection.',
    tag: 'Stores',
    params: IdPath,
    body: MappingBody,
    rpc: 'stores.createMapping',
    request: ({ params, body }) => ({ ...body, connection_id: params.id }),
    success: { status: 201, description: 'The mapping.' },
    location: (mapping) => `${ADMIN_BASE}/store-mappings/${mapping.id}`,
    errors: {
      400: adminErrors[400](
        `The id is not a positive integer, a field fails validation, or ${UNKNOWN_TARGET}.`,
      ),
      404: adminErrors[404](`${NO_CONNECTION} Or ${UNKNOWN_TARGET}.`),
      409: { codes: ['ALREADY_EXISTS'], description: 'The connection maps this id already.' },
    },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/store-connections/:id/mappings`,
    operationId: 'listStoreMappings',
    summary: "A connection's mappings.",
    tag: 'Stores',
    params: IdPath,
    rpc: 'stores.listMappings',
    request: ({ params }) => params,
    success: { status: 200, description: 'The mappings.' },
    errors: byIdErrors(NO_CONNECTION),
  }),
  rpcRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/store-mappings/:id`,
    operationId: 'updateStoreMapping',
    summary:
      "Change a mapping's product, plan, renewal or duration. Licenses issued before keep " +
      'theirs; the events received from then on use the new one. At least one field must be sent.',
    tag: 'Stores',
    params: IdPath,
    body: MappingPatch,
    rpc: 'stores.updateMapping',
    request: ({ params, body }) => ({ ...params, ...body }),
    success: { status: 200, description: 'The changed mapping.' },
    errors: {
      400: adminErrors[400](
        `The id is not a positive integer, a field fails validation, or ${UNKNOWN_TARGET}.`,
      ),
      404: adminErrors[404](`${NO_MAPPING} Or ${UNKNOWN_TARGET}.`),
    },
  }),
  rpcRoute({
    method: 'delete',
    path: `${ADMIN_BASE}/store-mappings/:id`,
    operationId: 'deleteStoreMapping',
    summary:
      "Remove a mapping: the store's id is unmapped again, and its next events change nothing " +
      'until it is mapped.',
    tag: 'Stores',
    params: IdPath,
    rpc: 'stores.deleteMapping',
    request: ({ params }) => params,
    success: { status: 200, description: 'The removed mapping.' },
    errors: byIdErrors(NO_MAPPING),
  }),
] satisfies readonly Route<ManagementDeps>[];
