import {
  CreatePlanRequest,
  CreateProductRequest,
  Plan,
  PlanList,
  PlanNameTaken,
  Product,
  ProductList,
  UpdatePlanRequest,
  UpdateProductRequest,
} from '../../libs/contracts/index.js';
import type { Route } from '../../libs/http/index.js';
import {
  ADMIN_BASE,
  IdPath,
  adminErrors,
  adminRoute,
  byIdErrors,
  nonEmptyPatch,
  type ManagementDeps,
} from './deps.js';

const ProductPatch = nonEmptyPatch(UpdateProductRequest.omit({ id: true }));
const PlanPatch = nonEmptyPatch(UpdatePlanRequest.omit({ id: true }));

/** Products and bundles (spec 2.2, 2.7), owned by the update catalog; plans (spec 2.1). */
export const catalogRoutes = [
  adminRoute({
    method: 'post',
    path: `${ADMIN_BASE}/products`,
    operationId: 'createProduct',
    summary: 'Create a product, or a bundle when bundle_items is not empty.',
    tag: 'Products',
    body: CreateProductRequest,
    success: { status: 201, description: 'The product.', data: Product },
    errors: { 409: { codes: ['ALREADY_EXISTS'], description: 'The id is taken.' } },
    handle: async ({ body }, { transport }) => {
      const product = await transport.call('update-catalog.createProduct', body);
      return { data: product, location: `${ADMIN_BASE}/products/${product.id}` };
    },
  }),
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/products`,
    operationId: 'listProducts',
    summary: 'All products, by id.',
    tag: 'Products',
    success: { status: 200, description: 'The products.', data: ProductList },
    errors: {},
    handle: async (_input, { transport }) => ({
      data: await transport.call('update-catalog.listProducts', {}),
    }),
  }),
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/products/:id`,
    operationId: 'getProduct',
    summary: 'One product.',
    tag: 'Products',
    params: IdPath,
    success: { status: 200, description: 'The product.', data: Product },
    errors: byIdErrors(),
    handle: async ({ params }, { transport }) => ({
      data: await transport.call('update-catalog.getProduct', params),
    }),
  }),
  adminRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/products/:id`,
    operationId: 'updateProduct',
    summary: 'Change some settings of a product. At least one field must be sent.',
    tag: 'Products',
    params: IdPath,
    body: ProductPatch,
    success: { status: 200, description: 'The changed product.', data: Product },
    errors: { 404: adminErrors[404]() },
    audit: {
      before: ({ params }, { transport }) => transport.call('update-catalog.getProduct', params),
    },
    handle: async ({ params, body }, { transport }) => ({
      data: await transport.call('update-catalog.updateProduct', { ...params, ...body }),
    }),
  }),
  adminRoute({
    method: 'post',
    path: `${ADMIN_BASE}/plans`,
    operationId: 'createPlan',
    summary: 'Create a plan: its activation type and limit (spec 2.1; 0 means unlimited).',
    tag: 'Plans',
    body: CreatePlanRequest,
    success: { status: 201, description: 'The plan.', data: Plan },
    errors: {
      409: {
        codes: ['ALREADY_EXISTS'],
        description:
          'The id is taken, or another plan has this name (compared without letter case and ' +
          'extra white space; carries its plan_id).',
        details: PlanNameTaken,
      },
    },
    handle: async ({ body }, { transport }) => {
      const plan = await transport.call('license.createPlan', body);
      return { data: plan, location: `${ADMIN_BASE}/plans/${plan.id}` };
    },
  }),
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/plans`,
    operationId: 'listPlans',
    summary: 'All plans, by id.',
    tag: 'Plans',
    success: { status: 200, description: 'The plans.', data: PlanList },
    errors: {},
    handle: async (_input, { transport }) => ({
      data: await transport.call('license.listPlans', {}),
    }),
  }),
  adminRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/plans/:id`,
    operationId: 'updatePlan',
    summary:
      "Change a plan's name, lease or exempt identifiers. Licenses take them when issued on " +
      'the plan or moved to it (spec 3.3), not before; at least one field must be sent.',
    tag: 'Plans',
    params: IdPath,
    body: PlanPatch,
    success: { status: 200, description: 'The changed plan.', data: Plan },
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
    handle: async ({ params, body }, { transport }) => ({
      data: await transport.call('license.updatePlan', { ...params, ...body }),
    }),
  }),
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/plans/:id`,
    operationId: 'getPlan',
    summary: 'One plan.',
    tag: 'Plans',
    params: IdPath,
    success: { status: 200, description: 'The plan.', data: Plan },
    errors: byIdErrors(),
    handle: async ({ params }, { transport }) => ({
      data: await transport.call('license.getPlan', params),
    }),
  }),
] satisfies readonly Route<ManagementDeps>[];
