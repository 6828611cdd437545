import { UsageLimitDetails, UsageResult } from '../../../libs/contracts/index.js';
import { API_BASE } from '../../../libs/contracts/api-base.js';
import type { Route } from '../../../libs/http/index.js';
import { clientIp } from '../requests/client-ip.js';
import { formRoute } from '../requests/form-route.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { UsageForm } from './usage-inputs.js';

/** Usage counters (docs/api-decisions.md, "Usage counters"): a client records uses of a license. */
export const usageRoute: Route<GatewayDeps> = formRoute({
  path: `${API_BASE}/licenses/usage`,
  operationId: 'recordUsage',
  tag: 'Licenses',
  summary:
    "Record uses of a license on its plan's usage counter (max_uses per uses_reset period), " +
    'once per idempotency_key; answers the uses of the period, the cap and when it resets.',
  form: UsageForm,
  call: ({ transport }, input, req) =>
    transport.call('license.recordUsage', { ...input, ip: clientIp(req) }),
  result: UsageResult,
  errors: {
    400: {
      codes: ['INVALID_REQUEST'],
      description:
        'A missing key, product_id or idempotency_key, a value over 255 characters, an ' +
        'increment that is not a positive integer up to 1,000,000, an identifier that ' +
        'normalises to nothing, a malformed form, or a license whose plan counts no usage.',
    },
    403: {
      codes: ['LICENSE_INVALID', 'PRODUCT_MISMATCH', 'LICENSE_EXPIRED', 'USAGE_LIMIT_REACHED'],
      description:
        'Refused as activate refuses, in this order (spec 4.1); USAGE_LIMIT_REACHED when the ' +
        'increment would pass the cap of the period, carrying uses and max_uses.',
      details: UsageLimitDetails,
    },
    404: {
      codes: ['ACTIVATION_NOT_FOUND'],
      description: 'The identifier sent is not activated on this license.',
    },
  },
});
