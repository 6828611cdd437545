import {
  activationTypes,
  refusal,
  type ActivationType,
  type LicenseStatus,
  type Refusal,
} from '../../libs/contracts/index.js';
import {
  checkIdentifier,
  identifierKey,
  normaliseIdentifier,
} from '../../libs/identifier/index.js';

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

function isRefusal<T extends object>(value: T | Refusal): value is Refusal {
  return 'code' in value && 'message' in value;
}

export interface NormalisedIdentifier {
  identifier: string;
  key: string;
}

/**
 * Spec 2.4; an identifier that normalises to nothing, to more than 255 characters, or (domain)
 * to something that is not a website is refused with INVALID_REQUEST.
 */
export function normaliseOrRefuse(
  type: ActivationType,
  raw: string,
): NormalisedIdentifier | Refusal {
  const checked = checkIdentifier(type, raw);
  if ('problem' in checked) return refusal('INVALID_REQUEST', checked.problem);
  return { identifier: checked.identifier, key: identifierKey(checked.identifier) };
}

/** An identifier's key under each activation type it is valid for. */
export type IdentifierKeys = Partial<Record<ActivationType, string>>;

/**
 * The keys an identifier has under each activation type it is valid for (2.4): what a store
 * matches when the license's type is not known yet (a validate in one round trip).
 */
export function identifierKeysByType(raw: string): IdentifierKeys {
  const keys: IdentifierKeys = {};
  for (const type of activationTypes) {
    const identifier = normaliseIdentifier(type, raw);
    if (identifier !== null) keys[type] = identifierKey(identifier);
  }
  return keys;
}

export function findActivation<T extends { identifier_key: string }>(
  activations: readonly T[],
  key: string,
): T | undefined {
  return activations.find((a) => a.identifier_key === key);
}

/**
 * Whether an identifier, normalised as in 2.4, is activated on the license. One that cannot be
 * normalised is not (docs/api-decisions.md: validate answers rather than refuses).
 */
export function isIdentifierActivated(
  license: Pick<LicenseState, 'activation_type' | 'activations'>,
  raw: string,
): boolean {
  const identifier = normaliseOrRefuse(license.activation_type, raw);
  return (
    !isRefusal(identifier) && findActivation(license.activations, identifier.key) !== undefined
  );
}

// ---- The refusals the rules make ----

export function unknownKey(): Refusal {
  return refusal('LICENSE_INVALID', 'This license key is not valid.');
}

export function productMismatch(): Refusal {
  return refusal('PRODUCT_MISMATCH', 'This license key does not cover this product.');
}

export function limitReached(
  license: Pick<LicenseState, 'activation_limit' | 'activations'>,
): Refusal {
  return refusal('ACTIVATION_LIMIT_REACHED', 'All activation slots of this license are in use.', {
    activation_limit: license.activation_limit,
    activations_used: license.activations.length,
  });
}

export function activationNotFound(): Refusal {
  return refusal('ACTIVATION_NOT_FOUND', 'This identifier is not activated on this license.');
}

/** Spec 3.3: a limit below the activations in use is refused. */
export function limitBelowActivations(counts: {
  activation_limit: number;
  activations_used: number;
}): Refusal {
  return refusal(
    'ACTIVATION_LIMIT_TOO_LOW',
    'The activation limit cannot be lower than the number of activations in use.',
    { activation_limit: counts.activation_limit, activations_used: counts.activations_used },
  );
}

/** Spec 4.1 order 3, 4.2 rule 4 and deactivate: `product_id` sent and not covered. */
function mismatches(product: LicensedProduct | null, productId: number | null): boolean {
  return productId !== null && product !== null && !coversProduct(product, productId);
}

// ---- Spec 4.1 and 3.2: activate ----

/** The outcome of checking an activate request against a license (spec 4.1 and 3.2). */
export type ActivationDecision =
  | { outcome: 'claim'; identifier: NormalisedIdentifier }
  | { outcome: 'already-active'; identifier: string }
  | { outcome: 'refuse'; refusal: Refusal; recordAttempt: NormalisedIdentifier | null };

/**
 * The errors of spec 4.1 in their order: INVALID_REQUEST, LICENSE_INVALID, PRODUCT_MISMATCH,
 * LICENSE_EXPIRED, ACTIVATION_LIMIT_REACHED. An unknown key has no activation type to normalise
 * the identifier for, so it is LICENSE_INVALID. LICENSE_INVALID covers every stored status but
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
  if (license === null) return { outcome: 'refuse', refusal: unknownKey(), recordAttempt: null };
  const identifier = normaliseOrRefuse(license.activation_type, request.identifier);
  if (isRefusal(identifier)) return { outcome: 'refuse', refusal: identifier, recordAttempt: null };
  if (license.status !== 'active') {
    return {
      outcome: 'refuse',
      refusal: refusal('LICENSE_INVALID', `This license is ${license.status}.`),
      recordAttempt: license.status === 'expired' ? identifier : null,
    };
  }
  if (mismatches(product, request.product_id)) {
    return { outcome: 'refuse', refusal: productMismatch(), recordAttempt: null };
  }
  if (isPastExpiry(license, now)) {
    return {
      outcome: 'refuse',
      refusal: refusal('LICENSE_EXPIRED', 'This license has expired.'),
      recordAttempt: identifier,
    };
  }
  const existing = findActivation(license.activations, identifier.key);
  if (existing) return { outcome: 'already-active', identifier: existing.identifier };
  if (isFull(license)) {
    return { outcome: 'refuse', refusal: limitReached(license), recordAttempt: identifier };
  }
  return { outcome: 'claim', identifier };
}

// ---- Spec 4.2: validate ----

/** The outcome of a validate request (spec 4.2). */
export type ValidationDecision =
  /** Rule 1: the answer for an unknown key; nothing is touched. */
  | { outcome: 'unknown-key' }
  | { outcome: 'refuse'; refusal: Refusal }
  | {
      outcome: 'report';
      /** Rule 1: an active license past its expiry date reports `expired`. */
      status: LicenseStatus;
      /** Rule 1: only an active, unexpired license is valid. */
      valid: boolean;
      /** True when no identifier was sent, else whether it is activated. */
      identifierActivated: boolean;
      /** Rule 3: last_check_at, last_check_ip and check_count are updated. */
      countsAsCheck: boolean;
    };

/**
 * Spec 4.2. Rules 1 and 2: an unknown, inactive or expired key is answered, never refused with
 * LICENSE_INVALID or LICENSE_EXPIRED. Rule 3: a check without identifier, or with an activated
 * one, counts as a check; one with an identifier that is not activated does not. Rule 4: the
 * only refusal here is PRODUCT_MISMATCH (INVALID_REQUEST is the request schema's).
 */
export function decideValidation({
  license,
  product,
  request,
  now,
}: {
  license: LicenseState | null;
  product: LicensedProduct | null;
  request: { identifier: string | null; product_id: number | null };
  now: Date;
}): ValidationDecision {
  if (license === null) return { outcome: 'unknown-key' };
  if (mismatches(product, request.product_id)) {
    return { outcome: 'refuse', refusal: productMismatch() };
  }
  const status = effectiveStatus(license, now);
  const identifierActivated =
    request.identifier === null || isIdentifierActivated(license, request.identifier);
  return {
    outcome: 'report',
    status,
    valid: status === 'active',
    identifierActivated,
    countsAsCheck: identifierActivated,
  };
}

// ---- Spec 4.3 (completed in docs/api-decisions.md): deactivate ----

export type DeactivationDecision =
  | { outcome: 'release'; identifier: NormalisedIdentifier }
  | { outcome: 'refuse'; refusal: Refusal };

/**
 * Deactivate's errors in their order (docs/api-decisions.md "Deactivate"): INVALID_REQUEST,
 * LICENSE_INVALID (an unknown key only: deactivation works whatever the status, so a customer
 * can always free a slot), PRODUCT_MISMATCH, ACTIVATION_NOT_FOUND. An unknown key has no
 * activation type to normalise the identifier for, so it is LICENSE_INVALID.
 */
export function decideDeactivation({
  license,
  product,
  request,
}: {
  license: LicenseState | null;
  product: LicensedProduct | null;
  request: { identifier: string; product_id: number | null };
}): DeactivationDecision {
  if (license === null) return { outcome: 'refuse', refusal: unknownKey() };
  const identifier = normaliseOrRefuse(license.activation_type, request.identifier);
  if (isRefusal(identifier)) return { outcome: 'refuse', refusal: identifier };
  if (mismatches(product, request.product_id)) {
    return { outcome: 'refuse', refusal: productMismatch() };
  }
  if (!findActivation(license.activations, identifier.key)) {
    return { outcome: 'refuse', refusal: activationNotFound() };
  }
  return { outcome: 'release', identifier };
}

// ---- Spec 3.3: renewals ----

/** `checkout`: the Renew button; `gateway`: an automatic renewal by the payment gateway. */
export type RenewalSource = 'checkout' | 'gateway';

/** What a renewal decision needs to know about the license. */
export interface RenewableLicense {
  status: LicenseStatus;
  plan_id: number;
  pending_plan_id: number | null;
}

export type RenewalDecision =
  | {
      outcome: 'renew';
      /** The status after the renewal. */
      status: LicenseStatus;
      /**
       * Checkout: the plan whose limit and type the license takes (its pending plan change, else
       * its own plan). Null for a gateway renewal: plan, limit, type and pending change stay.
       */
      planId: number | null;
    }
  | { outcome: 'refuse'; refusal: Refusal };

/**
 * A renewal's status (docs/api-decisions.md): a license stored as `expired` becomes `active`,
 * `active` stays `active`, `suspended` stays `suspended` (its dates are extended; lifting a
 * suspension is an admin's separate decision). `revoked` and `cancelled` are terminal: they
 * cannot be renewed (null), a new license is issued instead.
 */
export function statusAfterRenewal(status: LicenseStatus): LicenseStatus | null {
  switch (status) {
    case 'expired':
    case 'active':
      return 'active';
    case 'suspended':
      return 'suspended';
    case 'revoked':
    case 'cancelled':
      return null;
  }
}

/**
 * Spec 3.3: a renewal through checkout (the Renew button) resets limit and type to the plan's,
 * a pending plan change applied first; an automatic gateway renewal leaves them unchanged. Its
 * refusals, in order: INVALID_REQUEST for a new expiry date that is not after `now`, then
 * LICENSE_INVALID for a revoked or cancelled license (`statusAfterRenewal`).
 */
export function decideRenewal({
  license,
  request,
  now,
}: {
  license: RenewableLicense;
  request: { source: RenewalSource; expires_at: Date };
  now: Date;
}): RenewalDecision {
  if (request.expires_at.getTime() <= now.getTime()) {
    return {
      outcome: 'refuse',
      refusal: refusal('INVALID_REQUEST', 'The new expiry date must be in the future.'),
    };
  }
  const status = statusAfterRenewal(license.status);
  if (status === null) {
    return {
      outcome: 'refuse',
      refusal: refusal(
        'LICENSE_INVALID',
        `This license is ${license.status} and cannot be renewed; issue a new license instead.`,
      ),
    };
  }
  return {
    outcome: 'renew',
    status,
    planId: request.source === 'checkout' ? (license.pending_plan_id ?? license.plan_id) : null,
  };
}

// ---- Admin search ----

/**
 * Spec 2.4: the keys under which a searched text would be stored as an activated identifier,
 * one for each way an activation type normalises it (the domain form of
 * `https://www.Shop.example/x` is `shop.example`), without repeats; a type that cannot take the
 * text adds none.
 */
export function identifierSearchKeys(text: string): string[] {
  return [...new Set(Object.values(identifierKeysByType(text)))];
}

/**
 * What an admin's search text matches: a license key starting with it (keys never start or end
 * with white space, so neither does the prefix), or an activated identifier, normalised.
 */
export function searchText(text: string): { keyPrefix: string | null; identifierKeys: string[] } {
  const keyPrefix = text.trim();
  return {
    keyPrefix: keyPrefix === '' ? null : keyPrefix,
    identifierKeys: identifierSearchKeys(text),
  };
}
