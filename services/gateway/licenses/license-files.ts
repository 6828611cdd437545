import {
  LicensingError,
  type Checkout,
  type LicenseFileAnswer,
} from '../../../libs/contracts/index.js';
import type { Signer } from '../../../libs/http/index.js';
import {
  LICENSE_FILE_TYPE,
  LICENSE_FILE_VERSION,
  licenseFile,
  licenseFileSigningInput,
} from '../../../libs/signatures/index.js';

/**
 * The time to live a client asked for, or the longest one when it asked none; over the longest
 * is refused (400 INVALID_REQUEST), naming the field as the form's own errors do.
 */
export function licenseFileTtl(asked: number | null, maxSeconds: number): number {
  if (asked === null) return maxSeconds;
  if (asked > maxSeconds) {
    throw new LicensingError('INVALID_REQUEST', `ttl: must be at most ${maxSeconds} seconds`);
  }
  return asked;
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * A license file (libs/signatures `licenseFileSigningInput`, `licenseFile`): what the license
 * service decided and recorded, signed by the gateway, which alone holds the key; `kid` names
 * the key in the published set.
 */
export function signedLicenseFile(signer: Signer, checkout: Checkout): LicenseFileAnswer {
  const input = licenseFileSigningInput(
    { alg: 'EdDSA', typ: LICENSE_FILE_TYPE, kid: signer.kid },
    {
      ver: LICENSE_FILE_VERSION,
      product_id: checkout.product_id,
      identifier: checkout.identifier,
      license: checkout.license,
      issued_at: checkout.issued_at,
      expires_at: checkout.expires_at,
      iat: seconds(checkout.issued_at),
      exp: seconds(checkout.expires_at),
    },
  );
  return {
    license_file: licenseFile(input, signer.sign(input)),
    issued_at: checkout.issued_at,
    expires_at: checkout.expires_at,
  };
}
