import { z } from 'zod';
import {
  EntitlementCode,
  IdText,
  MAX_FIELD_LENGTH,
  MAX_PLAN_ENTITLEMENTS,
  NonEmptyShortText,
  ReleaseChannel,
  characterLength,
  wellFormedString,
} from '../../../libs/contracts/index.js';
import { LicenseAuthorization } from './license-authorization.js';

/**
 * What the public API accepts (spec 4.1 to 4.5), as schemas: the routes parse form fields and
 * query strings with them (`defineRoute`), and the OpenAPI document shows them. Every value
 * arrives as text; `Form` (libs/http/input/form.ts) has already refused what is not a plain list of
 * fields, except in the update check, which refuses nothing. Fields an operation does not use are
 * ignored (client libraries send extras). An empty field counts as absent, except validate's
 * `identifier` (docs/api-decisions.md, "Empty values").
 */

const AT_MOST = `must be at most ${MAX_FIELD_LENGTH} characters`;

/**
 * A field as sent: at most 255 characters (spec 8), counted as Unicode characters, and text that
 * can be stored as it was sent (`Form` has already refused bytes that are not UTF-8).
 */
export const Text = wellFormedString({
  error: (issue) => (issue.input === undefined ? 'is required' : 'must be one plain value'),
})
  .refine((value) => characterLength(value) <= MAX_FIELD_LENGTH, AT_MOST)
  .meta({ maxLength: MAX_FIELD_LENGTH });

/** An optional field: sent empty is the same as not sent. */
export const OptionalText = Text.optional().transform((value) =>
  value === '' ? undefined : value,
);

/** A required field: absent or empty is refused. */
export const RequiredText = Text.refine((value) => value !== '', 'is required');

const key = (description: string) => OptionalText.meta({ description });

/** Spec 1: `dlid` is accepted in place of `license_key`; both must name the same key. */
export const licenseKeyFields = {
  license_key: key('The license key. Required unless `dlid` is sent.'),
  dlid: key('Alias of `license_key`.'),
};

interface KeyFields {
  license_key?: string | undefined;
  dlid?: string | undefined;
}

export function sameKeys(fields: KeyFields): boolean {
  return !fields.license_key || !fields.dlid || fields.license_key === fields.dlid;
}
export const SAME_KEYS = {
  message: 'license_key and dlid name different keys; send one of them',
  path: ['license_key'],
};
export function oneKey(fields: KeyFields, ctx: z.RefinementCtx): string {
  const licenseKey = fields.license_key ?? fields.dlid;
  if (licenseKey === undefined) {
    ctx.addIssue({ code: 'custom', message: 'is required', path: ['license_key'] });
    return z.NEVER;
  }
  return licenseKey;
}

const productId = OptionalText.pipe(IdText.optional()).meta({
  description: 'Product the call is for; a key that does not cover it gets PRODUCT_MISMATCH.',
});
const identifier = (description: string) => RequiredText.meta({ description });

/** Spec 4.1. */
export const ActivateForm = z
  .object({
    ...licenseKeyFields,
    identifier: identifier('Website, device, e-mail address or instance, per the activation type.'),
    product_id: productId,
    name: OptionalText.meta({ description: 'Label of the activation, shown in the portal.' }),
  })
  .refine(sameKeys, SAME_KEYS)
  .transform((fields, ctx) => ({
    license_key: oneKey(fields, ctx),
    identifier: fields.identifier,
    product_id: fields.product_id ?? null,
    name: fields.name ?? null,
  }));

/**
 * Validate's `entitlements` (docs/api-decisions.md, "Entitlements"): codes separated by commas,
 * within the field's 255 characters and at most MAX_PLAN_ENTITLEMENTS of them; each asked once.
 */
const askedEntitlements = OptionalText.transform((text) =>
  text === undefined ? [] : [...new Set(text.split(',').map((code) => code.trim()))],
)
  .pipe(z.array(EntitlementCode).max(MAX_PLAN_ENTITLEMENTS))
  .meta({
    description:
      'Entitlement codes, comma-separated (`pro,updates-3y`; at most ' +
      `${MAX_PLAN_ENTITLEMENTS}): any the license lacks makes the answer \`valid: false\` ` +
      'with `entitlements_missing` and `code: "ENTITLEMENTS_MISSING"`; optional.',
  });

/** Spec 4.2: an identifier sent empty is sent, and is not activated (rule 3). */
export const ValidateForm = z
  .object({
    ...licenseKeyFields,
    identifier: Text.optional().meta({
      description: 'Whether this identifier is activated is reported; optional.',
    }),
    product_id: productId,
    entitlements: askedEntitlements,
  })
  .refine(sameKeys, SAME_KEYS)
  .transform((fields, ctx) => ({
    license_key: oneKey(fields, ctx),
    identifier: fields.identifier ?? null,
    product_id: fields.product_id ?? null,
    entitlements: fields.entitlements,
  }));

/** Spec 4.3 (completed in docs/api-decisions.md). */
export const DeactivateForm = z
  .object({
    ...licenseKeyFields,
    identifier: identifier('The identifier to free, normalised as on activation.'),
    product_id: productId,
  })
  .refine(sameKeys, SAME_KEYS)
  .transform((fields, ctx) => ({
    license_key: oneKey(fields, ctx),
    identifier: fields.identifier,
    product_id: fields.product_id ?? null,
  }));

/**
 * A license file (docs/api-decisions.md, "License files"): the key, an activated identifier, the
 * product the file is for (required: a file is bound to one product) and the lease asked for.
 */
export const CheckoutForm = z
  .object({
    ...licenseKeyFields,
    identifier: identifier('An identifier activated on the license, normalised as on activation.'),
    product_id: RequiredText.pipe(IdText).meta({
      description:
        'The product the file is for; a key that does not cover it gets PRODUCT_MISMATCH.',
    }),
    ttl: OptionalText.pipe(IdText.optional()).meta({
      description:
        'Seconds the file should hold: a positive integer, at most LICENSE_FILE_MAX_TTL_SECONDS ' +
        '(30 days unless configured), which is also the lease when none is asked. The license ' +
        'expiring first ends the lease then; on a plan with activation leases, so does the ' +
        "activation's lease, which the checkout renews.",
    }),
  })
  .refine(sameKeys, SAME_KEYS)
  .transform((fields, ctx) => ({
    license_key: oneKey(fields, ctx),
    identifier: fields.identifier,
    product_id: fields.product_id,
    ttl: fields.ttl ?? null,
  }));

/** Spec 1, 2.3: the customer portal asks for its license by key, in a form (never a URL). */
export const PortalForm = z
  .object(licenseKeyFields)
  .refine(sameKeys, SAME_KEYS)
  .transform((fields, ctx) => ({ license_key: oneKey(fields, ctx) }));

/** Spec 4.5: the product in the path. */
export const ProductPath = z.object({ product_id: IdText });

/**
 * Spec 4.4 response 3: a path that names no product (`/updates/0`, `/updates/abc`) is answered,
 * not refused; its product is null.
 */
export const UpdateCheckPath = z.object({
  product_id: z
    .string()
    .transform((text) => IdText.safeParse(text).data ?? null)
    .meta({ description: 'A product id, a positive integer; anything else names no product.' }),
});

/** A key the update check can use: one well-formed key (1 to 255 characters, not blank). */
const UsableKey = Text.pipe(NonEmptyShortText);

/**
 * One key field of the update check, from the query as sent (every value under its name, null
 * where it is not valid percent-encoding): the key when every non-empty value is the same usable
 * key, null when they are not, absent when none was sent.
 */
const sentKey = (description: string) =>
  z
    .preprocess((values: Array<string | null> | undefined) => {
      const sent = values?.filter((value) => value !== '') ?? [];
      if (sent.length === 0) return undefined;
      return sent.every((value) => value === sent[0]) ? sent[0] : null;
    }, UsableKey.optional())
    // Widened, so that a key that cannot be used is caught as null.
    .transform((key): string | null | undefined => key)
    .catch(null)
    .meta({ description });

/**
 * Spec 4.4: the update check's query. It never refuses (4.4 answers only 200, 429 and 500), and
 * 5.2 says a key "only changes the scope": a key it cannot use is ignored, as if none was sent
 * (docs/api-decisions.md, "The update check answers, it does not refuse"). Usable means every
 * non-empty value sent as `license_key` or `dlid` is the same well-formed key; two different
 * keys, a blank or over-long key, or one that is not valid percent-encoding are not.
 */
export const UpdateCheckQuery = z
  .object({
    license_key: sentKey('The license key. A key that cannot be used is ignored, like no key.'),
    dlid: sentKey('Alias of `license_key`.'),
    identifier: sentKey(
      'The identifier the key is used on, which draws its rollout bucket (docs/updaters.md). ' +
        'One that cannot be used is ignored, like none.',
    ),
    channel: sentKey(
      'The release channel: stable (default), rc, beta, alpha or dev (docs/updaters.md). An ' +
        'unknown one is read as stable.',
    ),
  })
  .meta({ description: 'A key scopes the answer to its plan and adds the license state.' })
  .transform(({ license_key, dlid, identifier, channel }) => ({
    license_key:
      license_key === null || dlid === null || (license_key && dlid && license_key !== dlid)
        ? null
        : (license_key ?? dlid ?? null),
    identifier: identifier ?? null,
    channel: ReleaseChannel.catch('stable').parse(channel ?? 'stable'),
  }));

/**
 * Spec 4.5: the key as `dlid` (CMS updaters) or `license_key`, and an identifier. Joomla 4.0
 * appends `&amp;dlid=` to a URL ending in a bare `?`, which arrives as a field named `amp;dlid`
 * (docs/updaters.md): read as `dlid`.
 */
export const DownloadQuery = z
  .object({
    dlid: key('The license key, as CMS updaters send it.'),
    'amp;dlid': key('`dlid` as Joomla 4.0 sends it after a bare `?`.'),
    license_key: key('Alias of `dlid`.'),
    channel: ReleaseChannel.optional().meta({
      description:
        'The release channel whose newest version is served: stable (default), rc, beta, ' +
        'alpha or dev (docs/updaters.md).',
    }),
    identifier: OptionalText.meta({
      description:
        'An identifier activated on the license, normalised as in spec 2.4. Required when the ' +
        'product needs an activated identifier; optional otherwise, but one that is sent must ' +
        'be activated.',
    }),
  })
  .transform(({ 'amp;dlid': ampDlid, dlid, ...fields }) => ({ ...fields, dlid: dlid ?? ampDlid }))
  .refine(sameKeys, SAME_KEYS)
  .refine((fields) => (fields.license_key ?? fields.dlid)?.trim() !== '', {
    message: 'must not be blank',
    path: ['license_key'],
  })
  .transform((fields) => ({
    license_key: fields.license_key ?? fields.dlid ?? null,
    identifier: fields.identifier ?? null,
    channel: fields.channel ?? 'stable',
  }));

/** A file a feed listed: its product, its id and the name its URL ends with. */
export const PinnedFilePath = z.object({
  product_id: IdText,
  file_id: IdText,
  filename: Text.refine((value) => value !== '', 'is required').meta({
    description: "The file's name, as the feed gave it.",
  }),
});

/** Spec 4.5: a resumed download names its range, and the version it started on. */
export const DownloadHeaders = z.object({
  Authorization: LicenseAuthorization,
  Range: z
    .string()
    .optional()
    .meta({ description: 'One byte range (bytes=start-, bytes=start-end, bytes=-suffix).' }),
  'If-Range': z
    .string()
    .optional()
    .meta({ description: 'The ETag of the partial file; Range is ignored when it changed.' }),
});
