import {
  refusal,
  type LicenseStatus,
  type Refused,
  type RejectionReason,
} from '../../../libs/contracts/index.js';
import { isExemptIdentifier } from './exempt-rules.js';
import { expiryStanding, type ExpiryStanding } from '../lifecycle/expiry-rules.js';
import {
  activationNotFound,
  coversProduct,
  exemptSlotsFull,
  findActivation,
  isFull,
  isIdentifierActivated,
  isRecordFull,
  limitReached,
  normaliseOrRefuse,
  productMismatch,
  recordFull,
  unknownKey,
  type LicenseState,
  type LicensedProduct,
  type NormalisedIdentifier,
} from '../rules.js';

/**
 * How often an activation, a checkout or a renewal is decided again when the license changed
 * between the read and the conditional write.
 */
export const MAX_DECISION_ROUNDS = 5;

/** When an activation made or renewed `now` lapses under a lease of `seconds`; null without one. */
export function leaseEnd(seconds: number | null, now: Date): Date | null {
  return seconds === null ? null : new Date(now.getTime() + seconds * 1000);
}

/** Spec 4.1 order 3, 4.2 rule 4 and deactivate: `product_id` sent and not covered. */
function mismatches(product: LicensedProduct | null, productId: number | null): boolean {
  return productId !== null && product !== null && !coversProduct(product, productId);
}

// ---- Spec 4.1 and 3.2: activate ----

/** Whether a license may be used for an identifier now (spec 4.1 orders 1 to 4). */
export type LicenseUse =
  | {
      ok: true;
      license: LicenseState;
      identifier: NormalisedIdentifier;
      /** How it stands against its expiry (lifecycle/expiry-rules.ts). */
      standing: ExpiryStanding;
    }
  | (Refused & {
      /** The identifier, when the refusal is for an expired license (spec 2.5). */
      expired: NormalisedIdentifier | null;
    });

/**
 * The errors of spec 4.1 up to order 4, in their order: INVALID_REQUEST, LICENSE_INVALID,
 * PRODUCT_MISMATCH, LICENSE_EXPIRED; activate and checkout refuse alike. An unknown key has no
 * activation type to normalise the identifier for, so it is LICENSE_INVALID. LICENSE_INVALID
 * covers every stored status but `active`, `expired` included (4.1 order 2); LICENSE_EXPIRED is
 * for an active license past its date, which only the scheduled task turns into `expired` (3.1).
 * The plan's expiry terms (lifecycle/expiry-rules.ts) move "past its date" to the end of the grace,
 * and on `maintain` and `restrict` keep an expired license usable (`restrict`: `existing-only`).
 */
export function checkLicenseUse(
  license: LicenseState | null,
  product: LicensedProduct | null,
  request: { identifier: string; product_id: number | null },
  now: Date,
): LicenseUse {
  if (license === null) return { ok: false, refusal: unknownKey(), expired: null };
  const normalised = normaliseOrRefuse(license.activation_type, request.identifier);
  if (!normalised.ok) return { ok: false, refusal: normalised.refusal, expired: null };
  const { identifier } = normalised;
  const standing = expiryStanding(license, now);
  if (standing.use === 'inactive') {
    return {
      ok: false,
      refusal: refusal('LICENSE_INVALID', `This license is ${license.status}.`),
      expired: license.status === 'expired' ? identifier : null,
    };
  }
  if (mismatches(product, request.product_id)) {
    return { ok: false, refusal: productMismatch(), expired: null };
  }
  if (standing.use === 'expired')
    return { ok: false, refusal: expiredRefusal(), expired: identifier };
  return { ok: true, license, identifier, standing };
}

const expiredRefusal = () => refusal('LICENSE_EXPIRED', 'This license has expired.');

/** A refusal spec 2.5 records as a rejected attempt: the identifier, and why it was refused. */
export interface AttemptToRecord {
  identifier: NormalisedIdentifier;
  reason: RejectionReason;
}

/** The outcome of checking an activate request against a license (spec 4.1 and 3.2). */
export type ActivationDecision =
  /** `exempt`: it matches an exempt pattern of the license, and takes an exempt slot. */
  | { ok: true; outcome: 'claim'; identifier: NormalisedIdentifier; exempt: boolean }
  | { ok: true; outcome: 'already-active'; identifier: string }
  | (Refused & { recordAttempt: AttemptToRecord | null });

/**
 * The errors of spec 4.1 in their order (`checkLicenseUse`, then ACTIVATION_LIMIT_REACHED), and
 * the lifecycle of 3.2. Refusals for an expired license, by date or by status, and for a full
 * one are recorded as rejected attempts (2.5), with that reason.
 */
export function decideActivation(
  license: LicenseState | null,
  product: LicensedProduct | null,
  request: { identifier: string; product_id: number | null },
  now: Date,
): ActivationDecision {
  const use = checkLicenseUse(license, product, request, now);
  if (!use.ok) {
    const expired = use.expired && { identifier: use.expired, reason: 'expired' as const };
    return { ok: false, refusal: use.refusal, recordAttempt: expired };
  }
  const { identifier } = use;
  const full = { identifier, reason: 'limit_reached' as const };
  const existing = findActivation(use.license.activations, identifier.key);
  if (existing) return { ok: true, outcome: 'already-active', identifier: existing.identifier };
  // `restrict` past its expiry and grace: identifiers already activated keep working, none is added.
  if (use.standing.use === 'existing-only') {
    const attempt = { identifier, reason: 'expired' as const };
    return { ok: false, refusal: expiredRefusal(), recordAttempt: attempt };
  }
  // Exempt identifiers (docs/api-decisions.md): a match takes an exempt slot, not one of the limit.
  const exempt = isExemptIdentifier({
    patterns: use.license.exempt_identifiers,
    identifier: identifier.identifier,
    activationType: use.license.activation_type,
  });
  if (exempt && use.license.exempt_used >= use.license.exempt_limit) {
    return { ok: false, refusal: exemptSlotsFull(use.license), recordAttempt: full };
  }
  if (!exempt && isFull(use.license)) {
    return { ok: false, refusal: limitReached(use.license), recordAttempt: full };
  }
  if (isRecordFull(use.license)) {
    return { ok: false, refusal: recordFull(use.license), recordAttempt: full };
  }
  return { ok: true, outcome: 'claim', identifier, exempt };
}

// ---- Spec 4.2: validate ----

/** The outcome of a validate request (spec 4.2). */
export type ValidationDecision =
  /** Rule 1: the answer for an unknown key; nothing is touched. */
  | { ok: true; outcome: 'unknown-key' }
  | {
      ok: true;
      outcome: 'report';
      /** Rule 1: an active license past its expiry date reports `expired`. */
      status: LicenseStatus;
      /**
       * Rule 1: only an active, unexpired license is valid (on `revoke`,
       * lifecycle/expiry-rules.ts).
       */
      valid: boolean;
      /** How it stands against its expiry under its plan's terms. */
      standing: ExpiryStanding;
      /** True when no identifier was sent, else whether it is activated. */
      identifierActivated: boolean;
      /** Rule 3: last_check_at, last_check_ip and check_count are updated. */
      countsAsCheck: boolean;
    }
  | Refused;

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
  if (license === null) return { ok: true, outcome: 'unknown-key' };
  if (mismatches(product, request.product_id)) return { ok: false, refusal: productMismatch() };
  const standing = expiryStanding(license, now);
  const identifierActivated =
    request.identifier === null || isIdentifierActivated(license, request.identifier);
  return {
    ok: true,
    outcome: 'report',
    status: standing.status,
    valid: standing.valid,
    standing,
    identifierActivated,
    countsAsCheck: identifierActivated,
  };
}

// ---- Spec 4.3 (completed in docs/api-decisions.md): deactivate ----

export type DeactivationDecision = { ok: true; identifier: NormalisedIdentifier } | Refused;

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
  if (license === null) return { ok: false, refusal: unknownKey() };
  const normalised = normaliseOrRefuse(license.activation_type, request.identifier);
  if (!normalised.ok) return normalised;
  if (mismatches(product, request.product_id)) return { ok: false, refusal: productMismatch() };
  if (!findActivation(license.activations, normalised.identifier.key)) {
    return { ok: false, refusal: activationNotFound() };
  }
  return { ok: true, identifier: normalised.identifier };
}
