import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  MAX_FIELD_LENGTH,
  characterLength,
  invalidRequest,
  wellFormedString,
  type ActivationResult,
  type ErrorCode,
  type ReleaseChannel,
  type ValidationResult,
} from '../../../libs/contracts/index.js';

/**
 * EDD Software Licensing's API (docs/updaters/wordpress.md), read and answered in its own
 * shapes: the request fields `EDD_SL_Plugin_Updater` and EDD's license forms send, and the
 * answers they read, mapped onto this service's license operations.
 */

const Field = wellFormedString().refine((value) => characterLength(value) <= MAX_FIELD_LENGTH, {
  message: `must be at most ${MAX_FIELD_LENGTH} characters`,
});

export const eddActions = [
  'get_version',
  'activate_license',
  'check_license',
  'deactivate_license',
] as const;
export type EddAction = (typeof eddActions)[number];

/** EDD's fields; the others its updater sends (author, php_version, wp_version...) are ignored. */
export const EddFields = z.object({
  edd_action: z.enum(eddActions).meta({ description: 'The request type.' }),
  license: Field.optional().meta({ description: 'The license key.' }),
  item_id: Field.optional().meta({ description: 'The product id.' }),
  item_name: Field.optional().meta({ description: 'Not read: send item_id.' }),
  url: Field.optional().meta({
    description: "The site's URL: the identifier, normalised for the license (spec 2.4).",
  }),
  version: Field.optional(),
  slug: Field.optional(),
  beta: Field.optional().meta({ description: '`1` or `true`: the beta channel (get_version).' }),
});
export type EddFields = z.output<typeof EddFields>;

export type EddCall =
  | {
      action: 'get_version';
      license_key: string | null;
      product_id: number;
      identifier: string | null;
      channel: ReleaseChannel;
    }
  | {
      action: Exclude<EddAction, 'get_version'>;
      license_key: string;
      product_id: number | null;
      identifier: string | null;
    };

/** EDD's updater sends an unset item_id as `0` or empty (PHP's `false`): no product named. */
function productOf(itemId: string | undefined): number | null {
  const value = itemId?.trim() ?? '';
  if (value === '' || value === '0' || value === 'false') return null;
  if (!/^[1-9][0-9]{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw invalidRequest('item_id: must be the product id, a positive integer.');
  }
  return Number(value);
}

const present = (value: string | undefined) =>
  value === undefined || value.trim() === '' ? null : value.trim();

/** The call a request makes, or INVALID_REQUEST for what no EDD client sends. */
export function eddCall(fields: EddFields): EddCall {
  const product_id = productOf(fields.item_id);
  const license_key = present(fields.license);
  const identifier = present(fields.url);
  if (fields.edd_action === 'get_version') {
    if (product_id === null) throw invalidRequest('item_id: send the product id.');
    const beta = ['1', 'true'].includes(fields.beta?.trim().toLowerCase() ?? '');
    return {
      action: 'get_version',
      license_key,
      product_id,
      identifier,
      channel: beta ? 'beta' : 'stable',
    };
  }
  if (license_key === null) throw invalidRequest('license: send the license key.');
  if (fields.edd_action !== 'check_license' && identifier === null) {
    throw invalidRequest('url: send the site the license is used on.');
  }
  return { action: fields.edd_action, license_key, product_id, identifier };
}

/**
 * How an answer of EDD's API may be kept (docs/updaters.md, "Caching"). get_version by GET is a
 * feed as the others are: an ETag, 304 to an If-None-Match naming it, `private, no-cache`. By
 * POST, as EDD_SL_Plugin_Updater sends it, it is not: HTTP caches keep no answer to a POST, and an
 * If-None-Match on a POST asks for a precondition (412 when it fails, RFC 9110 13.1.2), not for a
 * 304; the updater keeps its own copy. The license actions change or report a license: never kept.
 */
export function eddCaching(method: 'get' | 'post', call: EddCall): 'revalidate' | 'no-store' {
  return method === 'get' && call.action === 'get_version' ? 'revalidate' : 'no-store';
}

/** A license's state, as activate, deactivate and validate report it. */
export type LicenseState = Pick<
  ValidationResult,
  'status' | 'product' | 'activation_limit' | 'activations_used' | 'expires_at'
>;

/** EDD's `expires`: `lifetime`, or `Y-m-d H:i:s` (UTC). */
export function eddExpires(expiresAt: string | null): string {
  if (expiresAt === null) return 'lifetime';
  return new Date(expiresAt).toISOString().slice(0, 19).replace('T', ' ');
}

/** The fields every license answer of EDD carries. */
function licenseFields(state: LicenseState, call: EddCall) {
  const unlimited = state.activation_limit === 0;
  const expires = eddExpires(state.expires_at);
  return {
    item_id: call.product_id ?? false,
    item_name: state.product ?? '',
    expires,
    license_limit: state.activation_limit,
    site_count: state.activations_used,
    activations_left: unlimited
      ? ('unlimited' as const)
      : Math.max(0, state.activation_limit - state.activations_used),
    // EDD's checksum lets a client see the license changed; it carries nothing of the key.
    checksum: createHash('md5')
      .update(`${call.license_key}:${expires}:${state.activation_limit}`)
      .digest('hex'),
  };
}

/** EDD's word for a license that is not usable, by its status here. */
function unusable(status: ValidationResult['status']): 'invalid' | 'expired' | 'disabled' {
  if (status === 'invalid') return 'invalid';
  return status === 'expired' ? 'expired' : 'disabled';
}

export function activatedAnswer(result: ActivationResult, call: EddCall) {
  return { success: true, license: 'valid', ...licenseFields(result, call) };
}

/** EDD's `error` of a refused activation, from the refusal and the license's state. */
export function activationError(code: ErrorCode, state: LicenseState): string {
  if (code === 'PRODUCT_MISMATCH') return 'invalid_item_id';
  if (code === 'ACTIVATION_LIMIT_REACHED') return 'no_activations_left';
  if (code === 'LICENSE_EXPIRED' || state.status === 'expired') return 'expired';
  if (state.status === 'invalid') return 'missing';
  if (state.status === 'suspended') return 'disabled';
  if (state.status === 'revoked' || state.status === 'cancelled') return 'revoked';
  return 'license_not_activable';
}

export function activationRefusedAnswer(code: ErrorCode, state: LicenseState, call: EddCall) {
  const error = activationError(code, state);
  return {
    success: false,
    license: 'invalid',
    error,
    ...(error === 'no_activations_left' ? { max_sites: state.activation_limit } : {}),
    ...licenseFields(state, call),
  };
}

/**
 * check_license: `valid`; `site_inactive` for a usable license not activated on the site sent;
 * `invalid_item_id` when it does not cover the item; else why it is not usable.
 */
export function checkAnswer(result: ValidationResult | { mismatch: LicenseState }, call: EddCall) {
  if ('mismatch' in result) {
    return { success: false, license: 'invalid_item_id', ...licenseFields(result.mismatch, call) };
  }
  const license = !result.valid
    ? unusable(result.status)
    : call.identifier !== null && !result.identifier_activated
      ? 'site_inactive'
      : 'valid';
  return { success: license === 'valid', license, ...licenseFields(result, call) };
}

export function deactivatedAnswer(result: ActivationResult, call: EddCall) {
  return { success: true, license: 'deactivated', ...licenseFields(result, call) };
}

/** A deactivation refused (unknown key, another item, a site not activated): `failed`. */
export function deactivationFailedAnswer(state: LicenseState, call: EddCall) {
  return { success: false, license: 'failed', ...licenseFields(state, call) };
}

/** The answers, as documented. */
export const EddLicenseAnswer = z.object({
  success: z.boolean(),
  license: z.string().meta({
    description:
      'valid, invalid, expired, disabled, site_inactive, invalid_item_id, deactivated, failed.',
  }),
  error: z
    .string()
    .optional()
    .meta({
      description:
        'Why an activation failed: missing, license_not_activable, revoked, disabled, ' +
        'no_activations_left, expired, invalid_item_id.',
    }),
  max_sites: z.number().int().optional(),
  item_id: z.union([z.number().int(), z.literal(false)]),
  item_name: z.string(),
  expires: z.string().meta({ description: '`lifetime` or `Y-m-d H:i:s` (UTC).' }),
  license_limit: z.number().int().meta({ description: '0: unlimited.' }),
  site_count: z.number().int(),
  activations_left: z.union([z.number().int(), z.literal('unlimited')]),
  checksum: z.string(),
});

export const EddVersionAnswer = z.object({
  new_version: z.string().meta({ description: 'Empty when no version is offered.' }),
  version: z.string().meta({
    description:
      "The same as new_version: WordPress's plugin details compare it with the installed one.",
  }),
  stable_version: z.string(),
  name: z.string(),
  author: z
    .string()
    .optional()
    .meta({ description: "HTML: the seller's name (STORE_NAME); left out when it is not set." }),
  slug: z.string(),
  url: z.string(),
  last_updated: z.string(),
  homepage: z.string(),
  package: z.string().meta({ description: 'Empty unless the key may download (spec 4.5).' }),
  download_link: z.string(),
  sections: z.object({ description: z.string(), changelog: z.string() }),
  banners: z.string().meta({ description: 'A serialized PHP array, as EDD sends it.' }),
  icons: z.string().meta({ description: 'A serialized PHP array, as EDD sends it.' }),
  requires: z.string().optional(),
  tested: z.string().optional(),
  requires_php: z.string().optional(),
  msg: z.string().optional().meta({ description: 'Why there is no package.' }),
});
