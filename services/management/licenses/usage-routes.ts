import { LicenseRef } from '../../../libs/contracts/index.js';
import type { Route } from '../../../libs/http/index.js';
import { adminErrors } from '../route-makers/admin-errors.js';
import { KeyPath } from './license-routes.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { rpcRoute } from '../route-makers/rpc-route.js';

const key = ({ params }: { params: { key: string } }) =>
  LicenseRef.parse({ license_key: params.key });

/** A license's usage counter (docs/api-decisions.md, "Usage counters"): read, and reset. */
export const usageRoutes = [
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/licenses/:key/usage`,
    operationId: 'getLicenseUsage',
    summary:
      "A license's usage counter: the uses of the current period, its plan's max_uses (null: " +
      'the plan counts no usage) and uses_reset, and when the counter resets.',
    tag: 'Licenses',
    params: KeyPath,
    rpc: 'license.getUsage',
    request: key,
    success: { status: 200, description: 'The usage counter.' },
    errors: { 404: adminErrors[404]('No license with this key.') },
  }),
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/licenses/:key/usage/reset`,
    operationId: 'resetLicenseUsage',
    summary:
      "Start a license's usage counter again from 0 in the current period; the " +
      'usage.limit_reached event may then be sent again in it.',
    tag: 'Licenses',
    role: 'support',
    params: KeyPath,
    rpc: 'license.resetUsage',
    request: key,
    success: { status: 200, description: 'The usage counter after the reset.' },
    errors: { 404: adminErrors[404]('No license with this key.') },
  }),
] satisfies readonly Route<ManagementDeps>[];
