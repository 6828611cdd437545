/** Checking a license file with no client at hand: software that only ever checks files offline. */
import { LicensingClient } from '../client.js';
import type { VerifyLicenseFileOptions } from '../options.js';
import type { LicenseFileData, LicensingResult } from '../result.js';
import type { CacheOption } from '../store.js';
import type { KeysOption } from './verify.js';

export interface OfflineVerifyOptions extends VerifyLicenseFileOptions {
  /** The server's public keys, pinned, as the client's `keys` option. */
  keys: KeysOption;
  /** The product this software is. */
  productId: number | string;
  /** The client's `cache` option: the latest signed time it remembers, updated with the file's. */
  cache?: CacheOption;
  /** As the client's option, in milliseconds (default 5 minutes). */
  clockTolerance?: number;
}

/**
 * `LicensingClient.verifyLicenseFile` without a client, for software that only ever checks
 * files offline (no store URL needed).
 */
export async function verifyLicenseFile(
  file: string | null | undefined,
  options: OfflineVerifyOptions,
): Promise<LicensingResult<LicenseFileData>> {
  const { keys, productId, cache, clockTolerance, ...check } = options;
  // The store URL is not used offline; the client checks the other options as it always does.
  const client = new LicensingClient('http://offline.invalid', productId, {
    keys,
    cache,
    clockTolerance,
  });
  return client.verifyLicenseFile(file, check);
}
