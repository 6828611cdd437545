import { z } from 'zod';
import {
  AddActivationRequest,
  LicenseDetail,
  ListActivationsRequest,
  NonEmptyShortText,
} from '../../../libs/contracts/index.js';
import { parseWith, type Route } from '../../../libs/http/index.js';
import { adminErrors, refusalAsConflict } from '../route-makers/admin-errors.js';
import { absentIfEmpty, pageFields } from '../route-makers/admin-inputs.js';
import { adminRoute } from '../route-makers/admin-route.js';
import { KeyPath, licensePath } from './license-routes.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { rpcRoute } from '../route-makers/rpc-route.js';

const ActivationPath = KeyPath.extend({
  identifier: NonEmptyShortText.meta({ description: 'The identifier, normalised or not.' }),
});
const ActivationToAdd = AddActivationRequest.omit({ license_key: true });

/** The listing of a license's activations: known fields once each; the page bounds. */
const ActivationListQuery = z.strictObject({
  q: absentIfEmpty(NonEmptyShortText).meta({
    description:
      "Only the activation of this identifier, normalised as the license's activation type " +
      'normalises it (https://www.Shop.example/ finds shop.example on a domain license).',
  }),
  ...pageFields('Activations'),
});

/** A license's activations: the admin's Add and Remove (spec 3.2), and the list of them. */
export const activationRoutes = [
  adminRoute({
    method: 'post',
    path: `${ADMIN_BASE}/licenses/:key/activations`,
    operationId: 'addActivation',
    summary:
      'Add an activation (spec 3.2). The identifier is normalised like an API call; the IP is ' +
      'empty. A refusal for a full or expired license is recorded as a rejected attempt, as ' +
      "the activate call's is (source admin).",
    tag: 'Licenses',
    role: 'support',
    params: KeyPath,
    body: ActivationToAdd,
    success: {
      status: 201,
      description: 'The license with the new activation.',
      data: LicenseDetail,
    },
    errors: {
      404: adminErrors[404]('No license with this key.'),
      409: {
        codes: [
          'LICENSE_INVALID',
          'LICENSE_EXPIRED',
          'ACTIVATION_LIMIT_REACHED',
          'ACTIVATION_EXISTS',
        ],
        description:
          'Not active; expired; full (carries activation_limit and activations_used); or the ' +
          'identifier is already activated.',
      },
    },
    handle: async ({ params, body }, { transport }) => {
      const { license, activation } = await refusalAsConflict(
        transport.call('license.addActivation', { license_key: params.key, ...body }),
      );
      return {
        data: license,
        location: `${licensePath(license.license_key)}/activations/${encodeURIComponent(activation.identifier)}`,
        audited: { activation },
      };
    },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/licenses/:key/activations`,
    operationId: 'listActivations',
    summary:
      "A license's activations, oldest first, a page at a time: all of them, however many " +
      'the license holds (its detail shows the first 100).',
    tag: 'Licenses',
    params: KeyPath,
    query: ActivationListQuery,
    rpc: 'license.listActivations',
    request: ({ params, query }) =>
      parseWith(ListActivationsRequest, { ...query, license_key: params.key }, 'query'),
    success: { status: 200, description: 'One page of activations.' },
    errors: {
      400: adminErrors[400]('An unknown, repeated or malformed parameter.'),
      404: adminErrors[404]('No license with this key.'),
    },
  }),
  rpcRoute({
    method: 'delete',
    path: `${ADMIN_BASE}/licenses/:key/activations/:identifier`,
    operationId: 'removeActivation',
    summary: 'Remove an activation and free its slot (spec 3.2). Cannot be undone.',
    tag: 'Licenses',
    role: 'support',
    params: ActivationPath,
    rpc: 'license.removeActivation',
    request: ({ params }) => ({ license_key: params.key, identifier: params.identifier }),
    success: { status: 200, description: 'The license without the activation.' },
    errors: {
      400: adminErrors[400]('A key or identifier that fails validation.'),
      404: {
        codes: ['NOT_FOUND', 'ACTIVATION_NOT_FOUND'],
        description: 'No license with this key, or the identifier is not activated on it.',
      },
    },
    audit: {
      // The activation as it was; the license without it is the answer.
      before: async ({ params }, { transport }) => {
        const { activations } = await transport.call(
          'license.listActivations',
          parseWith(
            ListActivationsRequest,
            { license_key: params.key, q: params.identifier },
            'path',
          ),
        );
        return { activation: activations[0] ?? null };
      },
      after: () => null,
    },
  }),
] satisfies readonly Route<ManagementDeps>[];
