import { NonEmptyShortText } from '../shared.js';

/**
 * The license key as sent by a client; unknown keys are answered, not rejected, here. Shared by
 * the license contracts, not exported from the package index.
 */
export const LicenseKey = NonEmptyShortText;
