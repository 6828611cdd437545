import { PortalLicense } from '../../libs/contracts/index.js';
import type { Route } from '../../libs/http/index.js';
import { formRoute } from './requests/form-route.js';
import type { GatewayDeps } from './gateway-deps.js';
import { PortalForm } from './requests/inputs.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * Spec 1 and 2.3: the customer portal's data. A customer sees their license and its activated
 * identifiers, with each activation's name. The key is their credential (spec 5.1) and travels
 * in the body of a POST, never in a URL (which logs and proxies keep). Read-only: it changes
 * nothing, not even validate's check fields; any status can be viewed.
 */
export const portalRoute: Route<GatewayDeps> = formRoute({
  path: `${API_BASE}/portal/license`,
  operationId: 'portalLicense',
  summary:
    "The customer portal's view of a license: product (or the bundle's products), plan, " +
    'status, expiry, used and limit, and the activated identifiers with their names and ' +
    'dates. Read-only. Spec 1, 2.3.',
  tag: 'Customer portal',
  form: PortalForm,
  result: PortalLicense,
  errors: {
    400: {
      codes: ['INVALID_REQUEST'],
      description: 'A missing key, a value over 255 characters, or a malformed form.',
    },
    403: { codes: ['LICENSE_INVALID'], description: 'The key does not exist.' },
  },
  call: ({ transport }, input) => transport.call('license.portalLicense', input),
});
