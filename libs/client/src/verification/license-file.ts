/**
 * Offline license files (`POST /licenses/checkout`): checked against the pinned keys only, with
 * no request to the server. libs/signatures reads the file; this decides what it is worth here.
 */
import { LICENSE_FILE_VERSION, readLicenseFile } from '../../../signatures/index.js';
import { clientFailure } from '../http.js';
import type { FailureResult, LicenseFileData, LicensingResult, ValidationData } from '../result.js';
import type { SignedTime } from '../store.js';
import type { PinnedKeys } from './verify.js';
import { verifySignedBytes } from './verify.js';

export interface LicenseFileContext {
  /** The pinned keys; null when the client has none (then no file verifies). */
  keys: PinnedKeys | null;
  /** The product this software is. */
  productId: number;
  /** The identifier the caller runs on, compared exactly with the file's (normalised) one. */
  identifier?: string;
  /** Milliseconds since the epoch. */
  now: number;
  clockTolerance: number;
  signedTime: SignedTime;
  /** Until when (ms since the epoch, real time) the store may be waited for. */
  until: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function signatureInvalid(message: string, status = 0): FailureResult {
  return clientFailure(message, status, 'SIGNATURE_INVALID');
}

/** `CLOCK_TAMPERED`: the device's clock is behind `latest`, a time the server vouched for. */
export function clockTampered(now: number, latest: number): FailureResult {
  return clientFailure(
    `This device's clock (${iso(now)}) is behind a time the license server vouched for (${iso(latest)}): it has been set back, so offline checks cannot be trusted.`,
    0,
    'CLOCK_TAMPERED',
  );
}

/** The fields of a version 1 payload this client relies on, or null. */
function readPayload(payload: Record<string, unknown>) {
  const { ver, product_id, identifier, license, issued_at, expires_at } = payload;
  if (ver !== LICENSE_FILE_VERSION || !Number.isSafeInteger(product_id)) return null;
  if (typeof identifier !== 'string' || !isRecord(license)) return null;
  if (typeof issued_at !== 'string' || typeof expires_at !== 'string') return null;
  const issued = Date.parse(issued_at);
  const leaseEnd = Date.parse(expires_at);
  if (!Number.isFinite(issued) || !Number.isFinite(leaseEnd)) return null;
  if (typeof license.valid !== 'boolean' || typeof license.status !== 'string') return null;
  if (typeof license.license_key !== 'string') return null;
  return {
    productId: product_id as number,
    identifier,
    license,
    issuedAt: issued_at,
    issued,
    leaseEnd,
    leaseExpiresAt: expires_at,
  };
}

/**
 * Checks a license file offline, in this order: signed by a pinned key (`SIGNATURE_INVALID`,
 * also for anything that is not a version 1 license file), the clock not set back behind the
 * latest signed time or the file's own `issued_at` (`CLOCK_TAMPERED`), the product
 * (`PRODUCT_MISMATCH`), the identifier (`IDENTIFIER_MISMATCH`), the lease
 * (`LICENSE_FILE_EXPIRED`).
 */
export async function checkLicenseFile(
  file: unknown,
  context: LicenseFileContext,
): Promise<LicensingResult<LicenseFileData>> {
  const read = typeof file === 'string' ? readLicenseFile(file) : null;
  if (read === null) {
    return signatureInvalid('The license file failed verification: it is not a license file.');
  }
  if (context.keys === null || context.keys.size === 0) {
    return signatureInvalid(
      'The license file failed verification: no public key of the license server is pinned.',
    );
  }
  const verified = await verifySignedBytes(
    context.keys,
    read.header.kid,
    read.signingInput,
    read.signature,
  );
  if (verified !== true) {
    return signatureInvalid(`The license file failed verification: ${verified}.`);
  }
  const payload = readPayload(read.payload);
  if (payload === null) {
    return signatureInvalid(
      `The license file failed verification: it is not a version ${LICENSE_FILE_VERSION} license file this client reads.`,
    );
  }

  const { now } = context;
  const latest = Math.max(await context.signedTime.get(context.until), payload.issued);
  await context.signedTime.note(payload.issued, context.until);
  if (now < latest - context.clockTolerance) return clockTampered(now, latest);
  if (payload.productId !== context.productId) {
    return clientFailure(
      `The license file is for product ${payload.productId}, not product ${context.productId}.`,
      0,
      'PRODUCT_MISMATCH',
    );
  }
  if (context.identifier !== undefined && context.identifier !== payload.identifier) {
    return clientFailure(
      `The license file is for "${payload.identifier}", not "${context.identifier}".`,
      0,
      'IDENTIFIER_MISMATCH',
    );
  }
  if (now >= payload.leaseEnd) {
    return clientFailure(
      `The license file's lease ended at ${payload.leaseExpiresAt}: check it out again.`,
      0,
      'LICENSE_FILE_EXPIRED',
    );
  }
  const license = payload.license as unknown as ValidationData;
  return {
    success: true,
    data: {
      valid: license.valid,
      status: license.status,
      license_key: license.license_key,
      product: license.product ?? null,
      plan: license.plan ?? null,
      activation_type: license.activation_type ?? null,
      activation_limit: license.activation_limit ?? 0,
      activations_used: license.activations_used ?? 0,
      expires_at: license.expires_at ?? null,
      // Files signed before expiry terms existed carry none: no grace, no limit.
      in_grace: license.in_grace ?? false,
      grace_ends_at: license.grace_ends_at ?? null,
      updates_until: license.updates_until ?? null,
      identifier_activated: true,
      // Files issued before entitlements existed carry none.
      entitlements: Array.isArray(license.entitlements) ? license.entitlements : [],
      entitlements_missing: [],
      code: null,
      identifier: payload.identifier,
      product_id: payload.productId,
      issued_at: payload.issuedAt,
      lease_expires_at: payload.leaseExpiresAt,
    },
    message: '',
    code: '',
    httpStatus: 0,
  };
}
