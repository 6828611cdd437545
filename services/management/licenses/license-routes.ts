import { z } from 'zod';
import {
  BulkLicenseChangeRequest,
  BulkLicenseChangeResult,
  ChangePlanRequest,
  CreateLicenseRequest,
  ExportLicensesRequest,
  IdText,
  LicenseDetail,
  LicenseSort,
  LicenseStatus,
  MAX_BULK_LICENSES,
  NonEmptyShortText,
  PlanChangeFacts,
  RenewLicenseRequest,
  SearchLicensesRequest,
  UpdateLicenseRequest,
} from '../../../libs/contracts/index.js';
import { parseWith, type Route } from '../../../libs/http/index.js';
import { changeEach } from './bulk-changes.js';
import { licenseColumns } from '../../../libs/http/csv/csv-columns.js';
import { adminErrors, refusalAsConflict } from '../route-makers/admin-errors.js';
import { absentIfEmpty, nonEmptyPatch, pageFields } from '../route-makers/admin-inputs.js';
import { adminRoute } from '../route-makers/admin-route.js';
import { rpcRoute } from '../route-makers/rpc-route.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { EXPORT_BATCH, batchesAfter, csvRoute } from '../route-makers/exports.js';

export const KeyPath = z.object({
  key: NonEmptyShortText.meta({ description: 'The license key.' }),
});
const LicensePatch = nonEmptyPatch(
  UpdateLicenseRequest.omit({ license_key: true, extend_expiry_days: true }),
);
const PlanChange = ChangePlanRequest.omit({ license_key: true });
const Renewal = RenewLicenseRequest.omit({ license_key: true });

/** What the license list holds and its order: known fields once each. */
const LicenseListQuery = z.strictObject({
  product_id: absentIfEmpty(IdText).meta({ description: 'Only licenses of this product.' }),
  plan_id: absentIfEmpty(IdText).meta({ description: 'Only licenses on this plan.' }),
  status: absentIfEmpty(LicenseStatus).meta({
    description: 'The reported status: an active license past its expiry date is expired.',
  }),
  q: absentIfEmpty(NonEmptyShortText).meta({
    description:
      'A license key prefix; an identifier activated on the license (normalised for ' +
      "comparison: https://www.Shop.example/ finds shop.example); the customer's e-mail " +
      "address in any letter case; or a metadata value, a store's order or subscription id, " +
      "or an imported license's id in the system it came from, exactly.",
  }),
  sort: absentIfEmpty(LicenseSort),
});

/** The license search's query: the list's, and the page bounds of the contract. */
const LicenseSearchQuery = LicenseListQuery.extend(pageFields('Licenses'));

export const licensePath = (key: string) => `${ADMIN_BASE}/licenses/${encodeURIComponent(key)}`;

/** A change of a license: its audit entry keeps the fields that moved (read before the change). */
const licenseBefore = {
  before: ({ params }: { params: { key: string } }, { transport }: ManagementDeps) =>
    transport.call('license.getLicense', { license_key: params.key }),
};

/** Licenses (spec 2.2, 3.3); their activations are activation-routes.ts. */
export const licenseRoutes = [
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/licenses`,
    operationId: 'createLicense',
    summary:
      "Issue a license. It copies the plan's activation type and limit; the key is generated " +
      '(128 random bits, 32 hex characters) when not sent.',
    tag: 'Licenses',
    role: 'support',
    body: CreateLicenseRequest,
    rpc: 'license.createLicense',
    request: ({ body }) => body,
    success: { status: 201, description: 'The license.' },
    location: (license) => licensePath(license.license_key),
    errors: {
      400: adminErrors[400]('A field that fails validation, or an unknown product or plan.'),
      409: { codes: ['ALREADY_EXISTS'], description: 'A license with this key exists.' },
    },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/licenses`,
    operationId: 'searchLicenses',
    summary:
      'Licenses, paged, newest first unless sorted otherwise: by product, plan, reported ' +
      "status, and a key prefix, an activated identifier (find a customer's license from the " +
      "site they name), the customer's e-mail address or a metadata value (an order id).",
    tag: 'Licenses',
    query: LicenseSearchQuery,
    rpc: 'license.searchLicenses',
    // The contract fills in absent fields and bounds page and per_page.
    request: ({ query }) => parseWith(SearchLicensesRequest, query, 'query'),
    success: { status: 200, description: 'One page of licenses.' },
    errors: { 400: adminErrors[400]('An unknown, repeated or malformed parameter.') },
  }),
  csvRoute({
    path: `${ADMIN_BASE}/exports/licenses`,
    operationId: 'exportLicenses',
    summary:
      "Every license of the search, in its order, as CSV: the columns of the console's table " +
      '(license_key, customer_email, customer_name, product, plan, status, activations_used, ' +
      'activation_limit, expires_at, created_at, last_check_at). Streamed, whatever the number.',
    tag: 'Licenses',
    query: LicenseListQuery,
    what: 'licenses',
    rows: async ({ query }, { transport }) => {
      // Every batch at the instant the export started: a license is reported as of then.
      const request = parseWith(
        ExportLicensesRequest,
        { ...query, limit: EXPORT_BATCH, as_of: new Date().toISOString() },
        'query',
      );
      return {
        columns: licenseColumns,
        batches: batchesAfter(async (after) => {
          const batch = await transport.call('license.exportLicenses', { ...request, after });
          return { rows: batch.licenses, next: batch.next };
        }),
      };
    },
  }),
  adminRoute({
    method: 'post',
    path: `${ADMIN_BASE}/licenses/bulk-changes`,
    operationId: 'changeLicenses',
    summary:
      `Change up to ${MAX_BULK_LICENSES} licenses at once: set their status, extend their ` +
      'expiry by a number of days, or set it. Each license is changed as PATCH /licenses/{key} ' +
      'changes it, with the same rules and events; the answer says, for each in the order ' +
      'named, the license after the change or why it was refused (its error code and message). ' +
      '200 even when some, or all, were refused.',
    tag: 'Licenses',
    role: 'support',
    body: BulkLicenseChangeRequest,
    success: {
      status: 200,
      description: 'What became of each license.',
      data: BulkLicenseChangeResult,
    },
    errors: {
      400: adminErrors[400](
        `A field that fails validation: an unknown action, no key, more than ${MAX_BULK_LICENSES} ` +
          'or one named twice. Nothing is changed.',
      ),
    },
    handle: async ({ body }, { transport, logger }) => {
      const { result, changed } = await changeEach(transport, logger, body);
      const changes = changed.map(({ license_key, before, after }) => ({
        path: licensePath(license_key),
        before,
        after,
      }));
      return { data: result, changes };
    },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/licenses/:key`,
    operationId: 'getLicense',
    summary: 'Every field of spec 2.2, with activations and rejected activation attempts.',
    tag: 'Licenses',
    params: KeyPath,
    rpc: 'license.getLicense',
    request: ({ params }) => ({ license_key: params.key }),
    success: { status: 200, description: 'The license.' },
    errors: {
      400: adminErrors[400]('The key is over 255 characters or has NUL.'),
      404: adminErrors[404](),
    },
  }),
  rpcRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/licenses/:key`,
    operationId: 'updateLicense',
    summary:
      'Change status, expiry or activation limit, automatic renewal and the next payment ' +
      'date, the customer (null removes it) or the metadata (replaced whole). A new limit ' +
      'takes effect at once (spec 3.3).',
    tag: 'Licenses',
    role: 'support',
    params: KeyPath,
    body: LicensePatch,
    rpc: 'license.updateLicense',
    request: ({ params, body }) => ({ license_key: params.key, ...body }),
    success: { status: 200, description: 'The changed license.' },
    errors: {
      404: adminErrors[404](),
      409: {
        codes: ['ACTIVATION_LIMIT_TOO_LOW'],
        description:
          'The limit is below the activations in use; carries activation_limit and ' +
          'activations_used. Nothing is changed.',
      },
    },
    audit: licenseBefore,
  }),
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/licenses/:key/plan-change`,
    operationId: 'changePlan',
    summary:
      "Move a license to another plan (spec 3.3): now (its limit and type reset to the plan's) " +
      'or at the next checkout renewal (stored as pending_plan until then). Activations stay, ' +
      'even above the new limit; new ones are refused until the count is under it. A change ' +
      'that leaves more activations than the new limit, or changes the activation type, needs ' +
      '`confirm: true`.',
    tag: 'Licenses',
    role: 'support',
    params: KeyPath,
    body: PlanChange,
    rpc: 'license.changePlan',
    request: ({ params, body }) => ({ license_key: params.key, ...body }),
    success: { status: 200, description: 'The license.' },
    errors: {
      404: adminErrors[404]('No license with this key, or no such plan.'),
      409: {
        codes: ['CONFIRMATION_REQUIRED'],
        description:
          'Not confirmed, and the change would leave more activations than the new limit or ' +
          'change the activation type. Nothing is changed; the error says what the change ' +
          'would do: plan_id, plan (its name), activation_type and new_activation_type, ' +
          'type_changes, activation_limit and new_activation_limit, activations_used, ' +
          'activations_over_limit (0 for an unlimited plan). Send it again with confirm: true ' +
          'to make it.',
        details: PlanChangeFacts,
      },
    },
    audit: licenseBefore,
  }),
  adminRoute({
    method: 'post',
    path: `${ADMIN_BASE}/licenses/:key/renewals`,
    operationId: 'renewLicense',
    summary:
      'Renew a license (spec 3.3): a new expiry and next payment date. checkout (the Renew ' +
      "button) applies a pending plan change and resets limit and type to the plan's; gateway " +
      '(automatic renewal) leaves them unchanged. An expired license becomes active, a ' +
      'suspended one stays suspended; a revoked or cancelled one cannot be renewed.',
    tag: 'Licenses',
    role: 'support',
    params: KeyPath,
    body: Renewal,
    success: { status: 200, description: 'The renewed license.', data: LicenseDetail },
    errors: {
      400: adminErrors[400]('A field that fails validation, or an expiry that is not ahead.'),
      404: adminErrors[404]('No license with this key.'),
      409: {
        codes: ['LICENSE_INVALID'],
        description: 'The license is revoked or cancelled: issue a new one instead.',
      },
    },
    audit: licenseBefore,
    handle: async ({ params, body }, { transport }) => ({
      data: await refusalAsConflict(
        transport.call('license.renewLicense', { license_key: params.key, ...body }),
      ),
    }),
  }),
] satisfies readonly Route<ManagementDeps>[];
