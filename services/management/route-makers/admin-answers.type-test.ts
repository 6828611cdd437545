/**
 * What an admin route may answer, checked by the typecheck (never run): a handler answers the type of
 * the success schema its route documents. Each line marked `@ts-expect-error` must not compile,
 * or the typecheck fails.
 */
import { LicenseDetail, Plan } from '../../../libs/contracts/index.js';
import { IdPath } from './admin-inputs.js';
import { adminRoute } from './admin-route.js';
import { ADMIN_BASE } from '../management-deps.js';
import { rpcRoute } from './rpc-route.js';

const route = { path: `${ADMIN_BASE}/plans/:id`, summary: 'One plan.', tag: 'Plans', errors: {} };

export const answersTheCompilerRefuses = [
  adminRoute({
    ...route,
    method: 'get',
    operationId: 'getPlan',
    params: IdPath,
    success: { status: 200, description: 'The plan.', data: Plan },
    // @ts-expect-error the route documents a plan, and the handler answers a license
    handle: async ({ params }, { transport }) => ({
      data: await transport.call('license.getLicense', { license_key: String(params.id) }),
    }),
  }),
  adminRoute({
    ...route,
    method: 'get',
    operationId: 'getPlan',
    params: IdPath,
    success: { status: 200, description: 'The plan.', data: Plan },
    // @ts-expect-error a plan's id is a number
    handle: async ({ params }) => ({ data: { id: String(params.id), name: 'Pro' } }),
  }),
  rpcRoute({
    ...route,
    method: 'get',
    operationId: 'getPlan',
    params: IdPath,
    rpc: 'license.getPlan',
    request: ({ params }) => params,
    // @ts-expect-error the answer is the call's response schema, not one restated beside it
    success: { status: 200, description: 'The plan.', data: LicenseDetail },
  }),
  rpcRoute({
    ...route,
    method: 'get',
    operationId: 'getPlan',
    params: IdPath,
    rpc: 'license.getPlan',
    // @ts-expect-error the request is the call's: a plan is named by its id
    request: ({ params }) => ({ plan_id: params.id }),
    success: { status: 200, description: 'The plan.' },
  }),
];
