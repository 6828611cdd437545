import {
  LicensingError,
  type ActivationType,
  type LicenseStatus,
} from '../../libs/contracts/index.js';
import { checkIdentifier, identifierKey } from '../../libs/identifier/index.js';

/** What the rules need to know about a license; the stored record has more. */
export interface LicenseState {
  status: LicenseStatus;
  expires_at: Date | null;
  activation_type: ActivationType;
  activation_limit: number;
  activations: ReadonlyArray<{ identifier: string; identifier_key: string }>;
}

/** The product a license was bought for: a single product, or a bundle of products. */
export interface LicensedProduct {
  id: number;
  title: string;
  bundle_items: readonly number[];
}

export function isPastExpiry(license: Pick<LicenseState, 'expires_at'>, now: Date): boolean {
  return license.expires_at !== null && license.expires_at.getTime() <= now.getTime();
}

/**
 * Spec 3.1 and 4.2: an active license past its expiry date reports `expired` before the
 * scheduled task updates its stored status.
 */
export function effectiveStatus(
  license: Pick<LicenseState, 'status' | 'expires_at'>,
  now: Date,
): LicenseStatus {
  return license.status === 'active' && isPastExpiry(license, now) ? 'expired' : license.status;
}

/**
 * Spec 2.2: a license covers its own product and, for a bundle, each product in the bundle. Only
 * one level is resolved: a bundle inside the bundle does not pass its products through.
 */
export function coversProduct(product: LicensedProduct, productId: number): boolean {
  return product.id === productId || product.bundle_items.includes(productId);
}

export function isFull(license: Pick<LicenseState, 'activation_limit' | 'activations'>): boolean {
  return license.activation_limit !== 0 && license.activations.length >= license.activation_limit;
}

export interface NormalisedIdentifier {
  identifier: string;
  key: string;
}

/**
 * Spec 2.4; an identifier that normalises to nothing, to more than 255 characters, or (domain)
 * to something that is not a website is refused with INVALID_REQUEST.
 */
export function normaliseOrRefuse(type: ActivationType, raw: string): NormalisedIdentifier {
  const checked = checkIdentifier(type, raw);
  if ('problem' in checked) throw new LicensingError('INVALID_REQUEST', checked.problem);
  return { identifier: checked.identifier, key: identifierKey(checked.identifier) };
}

export function findActivation<T extends { identifier_key: string }>(
  activations: readonly T[],
  key: string,
): T | undefined {
  return activations.find((a) => a.identifier_key === key);
}

export function limitReached(
  license: Pick<LicenseState, 'activation_limit' | 'activations'>,
  status?: number,
): LicensingError {
  return new LicensingError(
    'ACTIVATION_LIMIT_REACHED',
    'All activation slots of this license are in use.',
    {
      status,
      details: {
        activation_limit: license.activation_limit,
        activations_used: license.activations.length,
      },
    },
  );
}

/** The outcome of checking an activate request against a license (spec 4.1 and 3.2). */
export type ActivationDecision =
  | { outcome: 'claim'; identifier: NormalisedIdentifier }
  | { outcome: 'already-active'; identifier: string }
  | { outcome: 'refuse'; error: LicensingError; recordAttempt: NormalisedIdentifier | null };

/**
 * The errors of spec 4.1 in their order: INVALID_REQUEST, LICENSE_INVALID, PRODUCT_MISMATCH,
 * LICENSE_EXPIRED, ACTIVATION_LIMIT_REACHED. LICENSE_INVALID covers every stored status but
 * `active`, `expired` included (4.1 order 2); LICENSE_EXPIRED is for an active license past its
 * date, which only the scheduled task turns into `expired` (3.1). Refusals for an expired
 * license, by date or by status, and for a full one are recorded as rejected attempts (2.5).
 */
export function decideActivation(
  license: LicenseState | null,
  product: LicensedProduct | null,
  request: { identifier: string; product_id: number | null },
  now: Date,
): ActivationDecision {
  if (license === null) {
    return {
      outcome: 'refuse',
      error: new LicensingError('LICENSE_INVALID', 'This license key is not valid.'),
      recordAttempt: null,
    };
  }
  const identifier = normaliseOrRefuse(license.activation_type, request.identifier);
  if (license.status !== 'active') {
    return {
      outcome: 'refuse',
      error: new LicensingError('LICENSE_INVALID', `This license is ${license.status}.`),
      recordAttempt: license.status === 'expired' ? identifier : null,
    };
  }
  if (request.product_id !== null && product && !coversProduct(product, request.product_id)) {
    return { outcome: 'refuse', error: productMismatch(), recordAttempt: null };
  }
  if (isPastExpiry(license, now)) {
    return {
      outcome: 'refuse',
      error: new LicensingError('LICENSE_EXPIRED', 'This license has expired.'),
      recordAttempt: identifier,
    };
  }
  const existing = findActivation(license.activations, identifier.key);
  if (existing) return { outcome: 'already-active', identifier: existing.identifier };
  if (isFull(license)) {
    return { outcome: 'refuse', error: limitReached(license), recordAttempt: identifier };
  }
  return { outcome: 'claim', identifier };
}

export function productMismatch(): LicensingError {
  return new LicensingError('PRODUCT_MISMATCH', 'This license key does not cover this product.');
}
