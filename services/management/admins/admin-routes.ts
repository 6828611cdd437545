import {
  Admin,
  AdminList,
  AdminTokenId,
  AdminTokenInfo,
  AdminWithToken,
  CreateAdminRequest,
  NewAdminToken,
  SignedInAdmin,
  UpdateAdminRequest,
} from '../../../libs/contracts/index.js';
import type { Route } from '../../../libs/http/index.js';
import { adminErrors, byIdErrors } from '../route-makers/admin-errors.js';
import { IdPath, nonEmptyPatch } from '../route-makers/admin-inputs.js';
import { adminRoute } from '../route-makers/admin-route.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';

const AdminPatch = nonEmptyPatch(UpdateAdminRequest);
const TokenPath = IdPath.extend({
  token_id: AdminTokenId.meta({ description: "The token's id: the 16 hex digits after `adm_`." }),
});

const NO_ADMIN = 'No admin with this id.';
const adminPath = (id: number) => `${ADMIN_BASE}/admins/${id}`;

const lastOwner = {
  codes: ['LAST_OWNER'],
  description:
    'The admin is the last owner: nobody could manage admins after this. Make another admin an ' +
    'owner first.',
} as const;

/**
 * The signed-in admin, and the named admins with their tokens (docs/api-decisions.md, "Admins
 * and roles"). Only owners manage admins; a token is shown once, when made.
 */
export const adminRoutes = [
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/me`,
    operationId: 'signedInAdmin',
    summary:
      'Who the token belongs to: the admin (or the bootstrap owner of ADMIN_TOKENS), their ' +
      'role, and the operations that role may call.',
    tag: 'Admins',
    success: { status: 200, description: 'The signed-in admin.', data: SignedInAdmin },
    errors: {},
    handle: async (_input, { allowedOperations }, { admin }) => {
      return { data: { ...admin, operations: allowedOperations(admin.role) } };
    },
  }),
  adminRoute({
    method: 'post',
    path: `${ADMIN_BASE}/admins`,
    operationId: 'createAdmin',
    summary:
      'Add a named admin with a role (viewer, support or owner). The answer carries their first ' +
      'token, the only time it is shown.',
    tag: 'Admins',
    body: CreateAdminRequest,
    success: { status: 201, description: 'The admin, with a token.', data: AdminWithToken },
    errors: {},
    handle: async ({ body }, { directory }) => {
      const admin = await directory.create(body.name, body.role);
      return { data: admin, location: adminPath(admin.id) };
    },
  }),
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/admins`,
    operationId: 'listAdmins',
    summary: 'The named admins, by id, with their tokens (ids and dates only).',
    tag: 'Admins',
    role: 'owner',
    success: { status: 200, description: 'The admins.', data: AdminList },
    errors: {},
    handle: async (_input, { directory }) => ({ data: { admins: await directory.list() } }),
  }),
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/admins/:id`,
    operationId: 'getAdmin',
    summary: 'One named admin with their tokens (ids and dates only).',
    tag: 'Admins',
    role: 'owner',
    params: IdPath,
    success: { status: 200, description: 'The admin.', data: Admin },
    errors: byIdErrors(NO_ADMIN),
    handle: async ({ params }, { directory }) => ({ data: await directory.get(params.id) }),
  }),
  adminRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/admins/:id`,
    operationId: 'updateAdmin',
    summary:
      "Rename an admin or change their role; a lesser role holds for the admin's next request " +
      '(on other replicas of the management API within 10 seconds).',
    tag: 'Admins',
    params: IdPath,
    body: AdminPatch,
    success: { status: 200, description: 'The changed admin.', data: Admin },
    errors: { 404: adminErrors[404](NO_ADMIN), 409: lastOwner },
    audit: { before: ({ params }, { directory }) => directory.get(params.id) },
    handle: async ({ params, body }, { directory }) => ({
      data: await directory.update(params.id, body),
    }),
  }),
  adminRoute({
    method: 'delete',
    path: `${ADMIN_BASE}/admins/:id`,
    operationId: 'removeAdmin',
    summary: 'Remove an admin and every token of theirs. Cannot be undone.',
    tag: 'Admins',
    params: IdPath,
    success: { status: 200, description: 'The removed admin.', data: Admin },
    errors: { ...byIdErrors(NO_ADMIN), 409: lastOwner },
    handle: async ({ params }, { directory }) => ({ data: await directory.remove(params.id) }),
  }),
  adminRoute({
    method: 'post',
    path: `${ADMIN_BASE}/admins/:id/tokens`,
    operationId: 'createAdminToken',
    summary: 'Make another token for an admin, shown this once.',
    tag: 'Admins',
    params: IdPath,
    success: { status: 201, description: 'The new token.', data: NewAdminToken },
    errors: {
      ...byIdErrors(NO_ADMIN),
      400: adminErrors[400]('The id is not a positive integer, or the admin holds 20 tokens.'),
    },
    handle: async ({ params }, { directory }) => {
      const token = await directory.addToken(params.id);
      return { data: token, location: `${adminPath(params.id)}/tokens/${token.id}` };
    },
  }),
  adminRoute({
    method: 'delete',
    path: `${ADMIN_BASE}/admins/:id/tokens/:token_id`,
    operationId: 'revokeAdminToken',
    summary:
      'Revoke a token: refused from the next request on (on other replicas of the management ' +
      'API within 10 seconds).',
    tag: 'Admins',
    params: TokenPath,
    success: { status: 200, description: 'The revoked token.', data: AdminTokenInfo },
    errors: {
      400: adminErrors[400]('The id is not a positive integer, or the token id is malformed.'),
      404: adminErrors[404]('No admin with this id, or no such token of theirs.'),
    },
    handle: async ({ params }, { directory }) => ({
      data: await directory.revokeToken(params.id, params.token_id),
    }),
  }),
] satisfies readonly Route<ManagementDeps>[];
