import type { z } from 'zod';
import {
  ActivationResult,
  LicenseFileAnswer,
  ValidationResult,
} from '../../../libs/contracts/index.js';
import type { Route } from '../../../libs/http/index.js';
import { clientIp } from '../requests/client-ip.js';
import { formRoute, type FormOperation } from '../requests/form-route.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { ActivateForm, CheckoutForm, DeactivateForm, ValidateForm } from '../requests/inputs.js';
import { licenseFileTtl, signedLicenseFile } from './license-files.js';
import { API_BASE } from '../../../libs/contracts/api-base.js';

/**
 * Spec 4.1 to 4.3: the license operations, under `{api_base}/licenses/`, and the offline license
 * file (docs/api-decisions.md, "License files").
 */
function licenseRoute<Input extends { license_key: string }, Result extends z.ZodType>(
  operation: Omit<FormOperation<Input, Result>, 'path' | 'operationId' | 'tag'> & {
    name: 'activate' | 'validate' | 'deactivate' | 'checkout';
  },
): Route<GatewayDeps> {
  return formRoute({
    ...operation,
    path: `${API_BASE}/licenses/${operation.name}`,
    operationId: operation.name,
    tag: 'Licenses',
  });
}

export const licenseRoutes: readonly Route<GatewayDeps>[] = [
  licenseRoute({
    name: 'activate',
    summary: 'Register an activation (idempotent). Spec 4.1.',
    form: ActivateForm,
    limitedPerKey: true,
    call: ({ transport }, input, req) =>
      transport.call('license.activate', { ...input, ip: clientIp(req) }),
    result: ActivationResult,
    errors: {
      400: {
        codes: ['INVALID_REQUEST'],
        description:
          'A missing key or identifier, a value over 255 characters, an identifier that ' +
          'normalises to nothing or (domain) is not a website, or a malformed form.',
      },
      403: {
        codes: [
          'LICENSE_INVALID',
          'PRODUCT_MISMATCH',
          'LICENSE_EXPIRED',
          'ACTIVATION_LIMIT_REACHED',
        ],
        description:
          'Refused, in this order (spec 4.1); ACTIVATION_LIMIT_REACHED also carries ' +
          'activation_limit and activations_used.',
      },
    },
  }),
  licenseRoute({
    name: 'validate',
    summary:
      'Whether a license is usable, and an identifier activated on it. Spec 4.2: unknown, ' +
      'inactive and expired keys get 200 with valid false.',
    form: ValidateForm,
    call: ({ transport }, input, req) =>
      transport.call('license.validate', { ...input, ip: clientIp(req) }),
    result: ValidationResult,
    errors: {
      400: {
        codes: ['INVALID_REQUEST'],
        description: 'A missing key, a value over 255 characters, or a malformed form.',
      },
      403: { codes: ['PRODUCT_MISMATCH'], description: 'The key does not cover product_id.' },
    },
  }),
  licenseRoute({
    name: 'deactivate',
    summary:
      'Free the activation of an identifier, whatever the license status. Spec 4.3 (the ' +
      'parameters and answers it leaves open: docs/api-decisions.md).',
    form: DeactivateForm,
    call: ({ transport }, input) => transport.call('license.deactivate', input),
    result: ActivationResult,
    errors: {
      400: {
        codes: ['INVALID_REQUEST'],
        description:
          'A missing key or identifier, a value over 255 characters, or an identifier that ' +
          'normalises to nothing.',
      },
      403: {
        codes: ['LICENSE_INVALID', 'PRODUCT_MISMATCH'],
        description: 'An unknown key, or one that does not cover product_id.',
      },
      404: {
        codes: ['ACTIVATION_NOT_FOUND'],
        description: 'The identifier is not activated on this license (already gone).',
      },
    },
  }),
  licenseRoute({
    name: 'checkout',
    summary:
      'An offline license file for an activated identifier: a JWT signed with a key of ' +
      'GET {api_base}/keys, holding the license as validate reports it, for one product, for a ' +
      'lease (docs/api-decisions.md, "License files"). Recorded on the activation, whose lease ' +
      '(on a plan with one) it renews and the file never outlasts.',
    form: CheckoutForm,
    call: async ({ transport, signing, licenseFileMaxTtlSeconds }, { ttl, ...input }) => {
      const ttl_seconds = licenseFileTtl(ttl, licenseFileMaxTtlSeconds);
      const checkout = await transport.call('license.checkout', { ...input, ttl_seconds });
      return signedLicenseFile(signing.signer, checkout);
    },
    result: LicenseFileAnswer,
    errors: {
      400: {
        codes: ['INVALID_REQUEST'],
        description:
          'A missing key, identifier or product_id, a value over 255 characters, a ttl that is ' +
          'not a positive integer or is over LICENSE_FILE_MAX_TTL_SECONDS, an identifier that ' +
          'normalises to nothing, or a malformed form.',
      },
      403: {
        codes: ['LICENSE_INVALID', 'PRODUCT_MISMATCH', 'LICENSE_EXPIRED'],
        description: 'Refused as activate refuses, in this order (spec 4.1).',
      },
      404: {
        codes: ['ACTIVATION_NOT_FOUND'],
        description: 'The identifier is not activated on this license.',
      },
    },
  }),
];
