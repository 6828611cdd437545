import { SigningKeysView } from '../../../libs/contracts/index.js';
import { adminRoute } from '../route-makers/admin-route.js';
import { ADMIN_BASE } from '../management-deps.js';

/**
 * The public API's signing keys as an operator checks them (docs/operations.md, "Signing keys"):
 * which key signs, which are published, and the address of the key set clients fetch. Ids only:
 * the keys themselves stay with the gateway.
 */
export const signingKeysRoute = adminRoute({
  method: 'get',
  path: `${ADMIN_BASE}/signing-keys`,
  operationId: 'signingKeys',
  summary:
    'The ids (RFC 7638 thumbprints) of the keys that sign the public API’s answers and license ' +
    'files, the current one first, and the URL of the key set the public API publishes.',
  tag: 'Operations',
  success: { status: 200, description: 'The signing keys.', data: SigningKeysView },
  errors: {},
  handle: async (_input, { signingKeys }) => ({ data: signingKeys }),
});
