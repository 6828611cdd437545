import {
  CreatePlanRequest,
  CreateProductRequest,
  PlanNameTaken,
  UpdatePlanRequest,
  UpdateProductRequest,
} from '../../../libs/contracts/index.js';
import type { Route } from '../../../libs/http/index.js';
import { adminErrors, byIdErrors } from '../route-makers/admin-errors.js';
import { IdPath, nonEmptyPatch } from '../route-makers/admin-inputs.js';
import { rpcRoute } from '../route-makers/rpc-route.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';

const ProductPatch = nonEmptyPatch(UpdateProductRequest.omit({ id: true }));
const PlanPatch = nonEmptyPatch(UpdatePlanRequest.omit({ id: true }));

/** Products and bundles (spec 2.2, 2.7), owned by the update catalog; plans (spec 2.1). */
export const catalogRoutes = [
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/products`,
    operationId: 'createProduct',
    summary: 'Create a product, or a bundle when bundle_items is not empty.',
    tag: 'Products',
    body: CreateProductRequest,
    rpc: 'update-catalog.createProduct',
    request: ({ body }) => body,
    success: { status: 201, description: 'The product.' },
    location: (product) => `${ADMIN_BASE}/products/${product.id}`,
    errors: { 409: { codes: ['ALREADY_EXISTS'], description: 'The id is taken.' } },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/products`,
    operationId: 'listProducts',
    summary: 'All products, by id.',
    tag: 'Products',
    rpc: 'update-catalog.listProducts',
    request: () => ({}),
    success: { status: 200, description: 'The products.' },
    errors: {},
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/products/:id`,
    operationId: 'getProduct',
    summary: 'One product.',
    tag: 'Products',
    params: IdPath,
    rpc: 'update-catalog.getProduct',
    request: ({ params }) => params,
    success: { status: 200, description: 'The product.' },
    errors: byIdErrors(),
  }),
  rpcRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/products/:id`,
    operationId: 'updateProduct',
    summary: 'Change some settings of a product. At least one field must be sent.',
    tag: 'Products',
    params: IdPath,
    body: ProductPatch,
    rpc: 'update-catalog.updateProduct',
    request: ({ params, body }) => ({ ...params, ...body }),
    success: { status: 200, description: 'The changed product.' },
    errors: { 404: adminErrors[404]() },
    audit: {
      before: ({ params }, { transport }) => transport.call('update-catalog.getProduct', params),
    },
  }),
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/plans`,
    operationId: 'createPlan',
    summary: 'Create a plan: its activation type and limit (spec 2.1; 0 means unlimited).',
    tag: 'Plans',
    body: CreatePlanRequest,
    rpc: 'license.createPlan',
    request: ({ body }) => body,
    success: { status: 201, description: 'The plan.' },
    location: (plan) => `${ADMIN_BASE}/plans/${plan.id}`,
    errors: {
      409: {
        codes: ['ALREADY_EXISTS'],
        description:
          'The id is taken, or another plan has this name (compared without letter case and ' +
          'extra white space; carries its plan_id).',
        details: PlanNameTaken,
      },
    },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/plans`,
    operationId: 'listPlans',
    summary: 'All plans, by id.',
    tag: 'Plans',
    rpc: 'license.listPlans',
    request: () => ({}),
    success: { status: 200, description: 'The plans.' },
    errors: {},
  }),
  rpcRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/plans/:id`,
    operationId: 'updatePlan',
    summary:
      "Change a plan's name, lease or exempt identifiers. Licenses take them when issued on " +
      'the plan or moved to it (spec 3.3), not before; at least one field must be sent.',
    tag: 'Plans',
    params: IdPath,
    body: PlanPatch,
    rpc: 'license.updatePlan',
    request: ({ params, body }) => ({ ...params, ...body }),
    success: { status: 200, description: 'The changed plan.' },
    errors: {
      400: adminErrors[400](
        'A field that fails validation, or an exempt pattern the plan cannot match.',
      ),
      404: adminErrors[404](),
      409: {
        codes: ['ALREADY_EXISTS'],
        description:
          'Another plan has this name (compared without letter case and extra white space; ' +
          'carries its plan_id).',
        details: PlanNameTaken,
      },
    },
    audit: { before: ({ params }, { transport }) => transport.call('license.getPlan', params) },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/plans/:id`,
    operationId: 'getPlan',
    summary: 'One plan.',
    tag: 'Plans',
    params: IdPath,
    rpc: 'license.getPlan',
    request: ({ params }) => params,
    success: { status: 200, description: 'The plan.' },
    errors: byIdErrors(),
  }),
] satisfies readonly Route<ManagementDeps>[];
