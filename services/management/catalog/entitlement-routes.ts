import { z } from 'zod';
import {
  CreateEntitlementRequest,
  EntitlementCode,
  EntitlementInUse,
  GrantEntitlementRequest,
  UpdateEntitlementRequest,
} from '../../../libs/contracts/index.js';
import type { Route } from '../../../libs/http/index.js';
import { adminErrors } from '../route-makers/admin-errors.js';
import { KeyPath } from '../licenses/license-routes.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { rpcRoute } from '../route-makers/rpc-route.js';

/** An entitlement named by its code in the path. */
const CodePath = z.object({ code: EntitlementCode });
const LicenseCodePath = KeyPath.extend({ code: EntitlementCode });
const EntitlementPatch = UpdateEntitlementRequest.omit({ code: true });
const EntitlementToGrant = GrantEntitlementRequest.omit({ license_key: true });

const codeErrors = {
  400: adminErrors[400]('The code is not an entitlement code (lowercase, at most 64).'),
  404: adminErrors[404]('There is no entitlement with this code.'),
};

/** A license's change: its audit entry keeps its own entitlements before and after. */
const licenseEntitlementsAudit = {
  before: async ({ params }: { params: { key: string } }, { transport }: ManagementDeps) => {
    const license = await transport.call('license.getLicense', { license_key: params.key });
    return { entitlements: license.entitlements };
  },
  after: (data: unknown) => ({
    entitlements: (data as { entitlements: unknown }).entitlements,
  }),
};

/**
 * Entitlements (docs/api-decisions.md, "Entitlements"), owned by the license service: what a
 * plan grants by code, and what a license carries beyond its plan's, each with its expiry.
 */
export const entitlementRoutes = [
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/entitlements`,
    operationId: 'createEntitlement',
    summary: 'Define an entitlement: a unique code (pro, updates-3y) and a name.',
    tag: 'Entitlements',
    body: CreateEntitlementRequest,
    rpc: 'license.createEntitlement',
    request: ({ body }) => body,
    success: { status: 201, description: 'The entitlement.' },
    location: (entitlement) => `${ADMIN_BASE}/entitlements/${entitlement.code}`,
    errors: { 409: { codes: ['ALREADY_EXISTS'], description: 'The code is taken.' } },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/entitlements`,
    operationId: 'listEntitlements',
    summary: 'All entitlements, by code.',
    tag: 'Entitlements',
    rpc: 'license.listEntitlements',
    request: () => ({}),
    success: { status: 200, description: 'The entitlements.' },
    errors: {},
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/entitlements/:code`,
    operationId: 'getEntitlement',
    summary: 'One entitlement.',
    tag: 'Entitlements',
    params: CodePath,
    rpc: 'license.getEntitlement',
    request: ({ params }) => params,
    success: { status: 200, description: 'The entitlement.' },
    errors: codeErrors,
  }),
  rpcRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/entitlements/:code`,
    operationId: 'updateEntitlement',
    summary: 'Rename an entitlement. Its code stays: plans, licenses and files refer to it.',
    tag: 'Entitlements',
    params: CodePath,
    body: EntitlementPatch,
    rpc: 'license.updateEntitlement',
    request: ({ params, body }) => ({ ...params, ...body }),
    success: { status: 200, description: 'The renamed entitlement.' },
    errors: codeErrors,
    audit: {
      before: ({ params }, { transport }) => transport.call('license.getEntitlement', params),
    },
  }),
  rpcRoute({
    method: 'delete',
    path: `${ADMIN_BASE}/entitlements/:code`,
    operationId: 'deleteEntitlement',
    summary:
      'Delete an entitlement that no plan and no license grants (remove it from them first). ' +
      'A file or version still requiring it is then offered to no key.',
    tag: 'Entitlements',
    params: CodePath,
    rpc: 'license.deleteEntitlement',
    request: ({ params }) => params,
    success: { status: 200, description: 'The entitlement deleted.' },
    errors: {
      ...codeErrors,
      409: {
        codes: ['ENTITLEMENT_IN_USE'],
        description: 'A plan or a license grants it; carries how many of each.',
        details: EntitlementInUse,
      },
    },
  }),
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/licenses/:key/entitlements`,
    operationId: 'grantEntitlement',
    summary:
      'Give a license an entitlement of its own, beyond its plan’s, until expires_at (null: ' +
      'never). Giving one it has replaces the expiry.',
    tag: 'Licenses',
    role: 'support',
    params: KeyPath,
    body: EntitlementToGrant,
    rpc: 'license.grantEntitlement',
    request: ({ params, body }) => ({ ...body, license_key: params.key }),
    success: { status: 200, description: 'The license, with its entitlements.' },
    errors: {
      400: adminErrors[400]('A field that fails validation, or a code that is not defined.'),
      404: adminErrors[404]('No license with this key.'),
    },
    audit: licenseEntitlementsAudit,
  }),
  rpcRoute({
    method: 'delete',
    path: `${ADMIN_BASE}/licenses/:key/entitlements/:code`,
    operationId: 'revokeEntitlement',
    summary: "Take a license's own entitlement away (its plan's stay while it is on the plan).",
    tag: 'Licenses',
    role: 'support',
    params: LicenseCodePath,
    rpc: 'license.revokeEntitlement',
    request: ({ params }) => ({ license_key: params.key, code: params.code }),
    success: { status: 200, description: 'The license, without the entitlement.' },
    errors: {
      400: adminErrors[400]('A key or code that fails validation.'),
      404: adminErrors[404]('No license with this key, or it carries no such entitlement.'),
    },
    audit: licenseEntitlementsAudit,
  }),
] satisfies readonly Route<ManagementDeps>[];
