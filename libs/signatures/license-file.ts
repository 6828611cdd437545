import { fromBase64, toBase64Url } from './structured-fields.js';

/**
 * An offline license file: a JSON Web Token (RFC 7519) in JWS compact serialization (RFC 7515),
 * signed with Ed25519 (`alg: EdDSA`, RFC 8037) by a key of the public key set. Any JOSE library
 * that knows EdDSA can check one; docs/api-decisions.md ("License files") gives its fields and a
 * worked example. Version 1 is `typ: licensing-file+jwt` with `ver: 1` in the payload.
 */

export const LICENSE_FILE_TYPE = 'licensing-file+jwt';
export const LICENSE_FILE_VERSION = 1;

export interface LicenseFileHeader {
  alg: 'EdDSA';
  typ: typeof LICENSE_FILE_TYPE;
  kid: string;
}

/** The license's state as validate reports it (spec 4.2), when the file was issued. */
export interface LicenseFileState {
  valid: boolean;
  status: string;
  license_key: string;
  product: string | null;
  plan: string | null;
  activation_type: string | null;
  activation_limit: number;
  activations_used: number;
  expires_at: string | null;
}

export interface LicenseFilePayload {
  ver: typeof LICENSE_FILE_VERSION;
  /** The product the file is for. */
  product_id: number;
  /** The identifier, normalised, that the file is for: it was activated when the file was issued. */
  identifier: string;
  license: LicenseFileState;
  /** ISO 8601 UTC. */
  issued_at: string;
  /** The end of the lease, ISO 8601 UTC: the earlier of the asked time to live and the license's expiry. */
  expires_at: string;
  /** `issued_at` and `expires_at` in seconds, as JWT tooling reads them (RFC 7519 4.1). */
  iat: number;
  exp: number;
}

const encodeJson = (value: object) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));

/** The bytes the signature is made over: `base64url(header).base64url(payload)`. */
export function licenseFileSigningInput(
  header: LicenseFileHeader,
  payload: LicenseFilePayload,
): string {
  return `${encodeJson(header)}.${encodeJson(payload)}`;
}

/** The file: its signing input and the signature, base64url. */
export function licenseFile(signingInput: string, signature: Uint8Array): string {
  return `${signingInput}.${toBase64Url(signature)}`;
}

export interface ReadLicenseFile {
  header: LicenseFileHeader;
  /** Not checked beyond being a JSON object: the reader checks the fields it relies on. */
  payload: Record<string, unknown>;
  signingInput: string;
  signature: Uint8Array;
}

/** A license file read back, or null when it is not a JWS of this type. */
export function readLicenseFile(text: string): ReadLicenseFile | null {
  const parts = text.trim().split('.');
  if (parts.length !== 3) return null;
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const decode = (part: string): unknown => {
    const bytes = fromBase64(part);
    if (bytes === null || /[+/=]/.test(part)) return null;
    try {
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
    } catch {
      return null;
    }
  };
  const header = decode(headerPart) as Partial<LicenseFileHeader> | null;
  const payload = decode(payloadPart);
  const signature = fromBase64(signaturePart);
  if (header?.alg !== 'EdDSA' || header.typ !== LICENSE_FILE_TYPE) return null;
  if (typeof header.kid !== 'string' || signature === null) return null;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  return {
    header: { alg: 'EdDSA', typ: LICENSE_FILE_TYPE, kid: header.kid },
    payload: payload as Record<string, unknown>,
    signingInput: `${headerPart}.${payloadPart}`,
    signature,
  };
}
