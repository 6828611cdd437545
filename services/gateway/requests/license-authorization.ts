import { z } from 'zod';
import { LicensingError, NonEmptyShortText } from '../../../libs/contracts/index.js';

/**
 * `Authorization: License <key>`: how the desktop updaters (electron-updater's `requestHeaders`,
 * Tauri's `headers`) send the key, on the feed and on the downloads it lists alike
 * (docs/updaters.md), so the key stays out of URLs and logs.
 */
export const LicenseAuthorization = z
  .string()
  .max(1024)
  .optional()
  .meta({ description: '`License <key>`: the key, for updaters that send request headers.' });

const LICENSE_SCHEME = /^License\s+(\S.*)$/i;

/** The key of the header; an Authorization of another scheme is refused rather than ignored. */
export function keyOfAuthorization(header: string | undefined): string | null {
  if (header === undefined) return null;
  const parsed = NonEmptyShortText.safeParse(LICENSE_SCHEME.exec(header.trim())?.[1]?.trim());
  if (!parsed.success) {
    throw new LicensingError('INVALID_REQUEST', 'Authorization: send the key as "License <key>".');
  }
  return parsed.data;
}

/** The key sent in the query or the header; two that differ are refused, not guessed between. */
export function oneLicenseKey(inQuery: string | null, inHeader: string | null): string | null {
  if (inQuery !== null && inHeader !== null && inQuery !== inHeader) {
    throw new LicensingError(
      'INVALID_REQUEST',
      'The query and the Authorization header name different keys; send one of them.',
    );
  }
  return inQuery ?? inHeader;
}
