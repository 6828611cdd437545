import { z } from 'zod';
import {
  LicenseAuthorization,
  keyOfAuthorization,
  oneLicenseKey,
} from '../requests/license-authorization.js';
import {
  LicensingError,
  MAX_FIELD_LENGTH,
  NonEmptyShortText,
  characterLength,
  wellFormedString,
} from '../../../libs/contracts/index.js';

/**
 * What every feed reads of its request (docs/updaters.md): the key in the query (`license_key`,
 * or `dlid` as Joomla's update sites carry it) or in `Authorization: License <key>` (the desktop
 * updaters' request headers), the identifier it is used on, and If-None-Match.
 */

const Text = wellFormedString()
  .refine((value) => characterLength(value) <= MAX_FIELD_LENGTH, {
    message: `must be at most ${MAX_FIELD_LENGTH} characters`,
  })
  .transform((value) => (value === '' ? undefined : value));

const KeyText = Text.pipe(NonEmptyShortText.optional());

/** The key fields of a feed's query; each feed's own fields are added to it. */
export const feedKeyFields = {
  license_key: KeyText.optional().meta({ description: 'The license key.' }),
  dlid: KeyText.optional().meta({ description: 'Alias of `license_key`.' }),
  identifier: Text.optional().meta({
    description:
      'The identifier the key is used on (spec 2.4): it draws the rollout bucket, and a product ' +
      'whose downloads need an activated identifier needs it.',
  }),
};

export const FeedHeaders = z.object({
  Authorization: LicenseAuthorization,
  'If-None-Match': z
    .string()
    .max(2048)
    .optional()
    .meta({ description: 'The ETag of the copy the updater has: 304 when it is current.' }),
});

export interface FeedCallerFields {
  license_key: string | null;
  identifier: string | null;
  key_in_query: boolean;
}

/**
 * The caller's key from the query, the path (a feed whose URL is the key's own) or the header:
 * two that differ, or an Authorization header of another scheme, are refused rather than
 * guessed between. A key in the path counts as one in the query: the URL carries it.
 */
export function feedCaller(
  query: { license_key?: string | undefined; dlid?: string | undefined; identifier?: string },
  headers: z.output<typeof FeedHeaders>,
  inPath: string | null = null,
): FeedCallerFields {
  const sent = [query.license_key, query.dlid, inPath].filter((key) => key != null);
  if (new Set(sent).size > 1) {
    throw new LicensingError(
      'INVALID_REQUEST',
      inPath === null
        ? 'license_key and dlid name different keys; send one of them.'
        : 'The path and the query name different keys; send one of them.',
    );
  }
  const inQuery = sent[0] ?? null;
  const licenseKey = oneLicenseKey(inQuery, keyOfAuthorization(headers.Authorization));
  return {
    license_key: licenseKey,
    identifier: query.identifier ?? null,
    key_in_query: inQuery !== null,
  };
}
