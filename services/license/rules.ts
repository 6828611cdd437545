import {
  activationTypes,
  refusal,
  refused,
  type ActivationType,
  type ExpiryTerms,
  type LicenseStatus,
  type Refusal,
  type Refused,
} from '../../libs/contracts/index.js';
import { MAX_ACTIVATION_BYTES, MAX_ACTIVATION_ENTRY_BYTES } from './records.js';
import {
  checkEmailAddress,
  checkIdentifier,
  identifierKey,
  normaliseIdentifier,
} from '../../libs/identifier/index.js';
import type { CustomerRecord } from './records.js';

/** What the rules need to know about a license; the stored record has more. */
export interface LicenseState {
  status: LicenseStatus;
  expires_at: Date | null;
  activation_type: ActivationType;
  activation_limit: number;
  activations_used: number;
  /** Patterns of identifiers that take no slot, and how many such activations it may hold. */
  exempt_identifiers: readonly string[];
  exempt_limit: number;
  exempt_used: number;
  /** What its activations take of its stored record (records.ts MAX_ACTIVATION_BYTES). */
  activations_bytes: number;
  /**
   * The license's activations that the decision is about: those under the keys of the identifier
   * in question (activations/activation-store.ts `findWithActivations`), not every activation of
   * the license.
   */
  activations: ReadonlyArray<{ identifier: string; identifier_key: string }>;
  /**
   * Its plan's expiry terms (lifecycle/expiry-rules.ts), read live; absent: the spec's own rules.
   */
  expiry?: ExpiryTerms;
}

/** The product a license was bought for: a single product, or a bundle of products. */
export interface LicensedProduct {
  id: number;
  title: string;
  bundle_items: readonly number[];
  /** The plan its trials are issued on (docs/api-decisions.md, "Trials"); absent or null: none. */
  trial_plan_id?: number | null;
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

/** Spec 3.2 and 3.3: no slot is free (a limit lowered below the slots in use stays full). */
export function isFull(
  license: Pick<LicenseState, 'activation_limit' | 'activations_used'>,
): boolean {
  return license.activation_limit !== 0 && license.activations_used >= license.activation_limit;
}

/**
 * Its activations fill its stored record (records.ts MAX_ACTIVATION_BYTES): however high its limit,
 * or unlimited, the license takes no more.
 */
export function isRecordFull(license: Pick<LicenseState, 'activations_bytes'>): boolean {
  return license.activations_bytes > MAX_ACTIVATION_BYTES - MAX_ACTIVATION_ENTRY_BYTES;
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
): { ok: true; identifier: NormalisedIdentifier } | Refused {
  const checked = checkIdentifier(type, raw);
  if ('problem' in checked) return refused('INVALID_REQUEST', checked.problem);
  const identifier = { identifier: checked.identifier, key: identifierKey(checked.identifier) };
  return { ok: true, identifier };
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
  const normalised = normaliseOrRefuse(license.activation_type, raw);
  return (
    normalised.ok && findActivation(license.activations, normalised.identifier.key) !== undefined
  );
}

// ---- The refusals the rules make ----

export function unknownKey(): Refusal {
  return refusal('LICENSE_INVALID', 'This license key is not valid.');
}

/** An admin's call on a license key that is not known. */
export const unknownLicense = () => refusal('NOT_FOUND', 'There is no license with this key.');
export const unknownPlan = (id: number) => refusal('NOT_FOUND', `Plan ${id} does not exist.`);

export function productMismatch(): Refusal {
  return refusal('PRODUCT_MISMATCH', 'This license key does not cover this product.');
}

export function limitReached(
  license: Pick<LicenseState, 'activation_limit' | 'activations_used'>,
): Refusal {
  return refusal('ACTIVATION_LIMIT_REACHED', 'All activation slots of this license are in use.', {
    activation_limit: license.activation_limit,
    activations_used: license.activations_used,
  });
}

/** As full a license as one can be: refused as a full one is, with the reason. */
export function recordFull(
  license: Pick<LicenseState, 'activation_limit' | 'activations_used'>,
): Refusal {
  return refusal(
    'ACTIVATION_LIMIT_REACHED',
    'This license holds as many activations as one license can keep; deactivate some first.',
    { activation_limit: license.activation_limit, activations_used: license.activations_used },
  );
}

/** Exempt identifiers: the exempt activations a license may hold are all in use. */
export function exemptSlotsFull(
  license: Pick<LicenseState, 'activation_limit' | 'activations_used' | 'exempt_limit'>,
): Refusal {
  return refusal(
    'ACTIVATION_LIMIT_REACHED',
    `All ${license.exempt_limit} exempt activation slots of this license (staging and local ` +
      'sites, which take no slot of the limit) are in use.',
    { activation_limit: license.activation_limit, activations_used: license.activations_used },
  );
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

// ---- Plans ----

/**
 * A plan's name as names are compared (docs/api-decisions.md, "Plan names"): compatibility forms
 * folded (NFKC), white space trimmed and each run of it one space, letters lower-cased; so
 * `Single site`, ` single  SITE` and `Single\u00a0site` are one name.
 */
export function planNameKey(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * Plan names are unique (docs/api-decisions.md, "Plan names"): a name the plan `holder` already
 * has is refused with ALREADY_EXISTS, naming that plan.
 */
export function planNameTaken(holder: { id: number; name: string }): Refusal {
  return refusal('ALREADY_EXISTS', `Plan ${holder.id} is already named "${holder.name}".`, {
    plan_id: holder.id,
  });
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
 * with white space, so neither does the prefix), an activated identifier, normalised, the
 * customer's e-mail address, normalised, or a metadata value or a store's order or subscription
 * id (docs/stores.md), as sent or trimmed.
 */
export function searchText(text: string): {
  keyPrefix: string | null;
  identifierKeys: string[];
  customerEmail: string | null;
  exactTexts: string[];
} {
  const trimmed = text.trim();
  const email = checkEmailAddress(text);
  return {
    keyPrefix: trimmed === '' ? null : trimmed,
    identifierKeys: identifierSearchKeys(text),
    customerEmail: 'email' in email ? email.email : null,
    exactTexts: [...new Set([text, trimmed])].filter((value) => value !== ''),
  };
}

// ---- Customers (docs/api-decisions.md, "Customers and metadata") ----

/**
 * A license's customer as stored: the e-mail address normalised (libs/identifier
 * `checkEmailAddress`), or refused naming the field when it cannot be one.
 */
export function storedCustomer(customer: {
  email: string;
  name: string | null;
}): { ok: true; customer: CustomerRecord } | Refused {
  const checked = checkEmailAddress(customer.email);
  if ('problem' in checked) return refused('INVALID_REQUEST', `customer.email: ${checked.problem}`);
  return { ok: true, customer: { email: checked.email, name: customer.name } };
}
