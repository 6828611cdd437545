/**
 * The console's words for what happens to a license: a plan in a chooser, what a plan change
 * would do, why an activation was refused, the reason of a refused download. Plain text (no
 * markup), so the unit tests read them as the admin does; words.tsx has the rest.
 */
import type {
  ActivationType,
  DownloadLogEntry,
  LicenseStatus,
  PlanChangeFacts,
  RejectedAttempt,
} from '../../../../../libs/contracts/index.js';

/** An activation type's thing, one and many. */
const THINGS: Record<ActivationType, [string, string]> = {
  domain: ['website', 'websites'],
  device: ['device', 'devices'],
  seat: ['user', 'users'],
  instance: ['instance', 'instances'],
};

const count = (n: number, [one, many]: [string, string]) => `${n} ${n === 1 ? one : many}`;
const activations = (n: number) => count(n, ['activation', 'activations']);

/**
 * A plan in a chooser: its name, activation type and limit, so plans are told apart by what they
 * allow.
 */
export function planChoiceWords(plan: {
  name: string;
  activation_type: ActivationType;
  activation_limit: number;
}): string {
  const limit = plan.activation_limit === 0 ? 'unlimited' : `limit ${plan.activation_limit}`;
  return `${plan.name} (${plan.activation_type}, ${limit})`;
}

/** What a plan change would do, as its CONFIRMATION_REQUIRED refusal said it. */
export type PlanChangeEffects = PlanChangeFacts & {
  activation_limit: number;
  activations_used: number;
};

/** The facts of a CONFIRMATION_REQUIRED refusal, or null when its fields are not all there. */
export function planChangeEffectsOf(details: Record<string, unknown>): PlanChangeEffects | null {
  const numbers = [
    'plan_id',
    'new_activation_limit',
    'activations_over_limit',
    'activation_limit',
    'activations_used',
  ];
  const types = ['activation_type', 'new_activation_type'];
  const whole =
    numbers.every((name) => typeof details[name] === 'number') &&
    types.every((name) => typeof details[name] === 'string' && details[name] in THINGS) &&
    typeof details.plan === 'string' &&
    typeof details.type_changes === 'boolean';
  return whole ? (details as PlanChangeEffects) : null;
}

/**
 * What moving the license to the plan would do, a sentence per consequence: activations left
 * over the new limit (they stay; new ones are refused until enough are removed), and a change of
 * activation type (the identifiers stay as they were taken; new ones are taken as the new type).
 */
export function planChangeConsequences(effects: PlanChangeEffects): string[] {
  const said: string[] = [];
  if (effects.activations_over_limit > 0) {
    const over = effects.activations_over_limit;
    said.push(
      `The license has ${activations(effects.activations_used)} and ${effects.plan} allows ` +
        `${effects.new_activation_limit}. All ${effects.activations_used} stay, ${over} over ` +
        `the limit, and no new activation is accepted until ${over} ` +
        `${over === 1 ? 'is' : 'are'} removed.`,
    );
  }
  if (effects.type_changes) {
    const before = THINGS[effects.activation_type][1];
    const after = THINGS[effects.new_activation_type][1];
    said.push(
      `Its activation type changes from ${effects.activation_type} to ` +
        `${effects.new_activation_type}: what is activated stays as it was taken (as ${before}), ` +
        `and new activations are taken as ${after}.`,
    );
  }
  return said;
}

/** Activations in use beyond the limit (a plan change made so), or nothing. */
export function overLimitNote(license: {
  activation_limit: number;
  activations_used: number;
}): string {
  const over =
    license.activation_limit === 0 ? 0 : license.activations_used - license.activation_limit;
  return over <= 0
    ? ''
    : ` (${over} over the limit: no new activation until ${over} ${over === 1 ? 'is' : 'are'} removed)`;
}

/** Why an activation was refused and recorded (spec 2.5), and by whom it was tried. */
export function rejectionWords(attempt: Pick<RejectedAttempt, 'reason' | 'source'>): string {
  const reason =
    attempt.reason === 'limit_reached'
      ? 'Full: every activation slot was in use'
      : attempt.reason === 'expired'
        ? 'Expired: the license had expired'
        : attempt.reason === 'trial_already_used'
          ? 'A second trial was asked for this identifier'
          : 'Full or expired (recorded before reasons were kept)';
  return attempt.source === 'admin' ? `${reason} (an Add in this console)` : reason;
}

const STATUS_NAMES: Record<LicenseStatus, string> = {
  active: 'active',
  expired: 'expired',
  suspended: 'suspended',
  revoked: 'revoked',
  cancelled: 'cancelled',
};

/**
 * An admin's Add refused because of the license's state, in words of what to do next; null for
 * another refusal (said by the shared words).
 */
export function addRefusalWords(
  code: string,
  license: { status: LicenseStatus; expires_at: string | null },
): string | null {
  if (code === 'LICENSE_INVALID') {
    const status = STATUS_NAMES[license.status];
    if (license.status === 'suspended' || license.status === 'expired') {
      return (
        `This license is ${status}, so no activation can be added. Set its status to Active ` +
        '(Limit, status and expiry), or renew it, first.'
      );
    }
    return (
      `This license is ${status}, so no activation can be added, now or later. Issue a new ` +
      'license instead.'
    );
  }
  if (code === 'LICENSE_EXPIRED') {
    return (
      'This license has expired, so no activation can be added. Renew it or move its expiry ' +
      'date (below) first.'
    );
  }
  return null;
}

/**
 * What each refusal reason of the download log means (spec 4.5, 7; docs/api-decisions.md,
 * downloads): the code a refused client got, in words an admin can act on.
 */
export const REFUSAL_MEANINGS: Record<string, string> = {
  LICENSE_INVALID:
    'No license key was sent, the key is unknown, or the license is suspended, revoked or cancelled.',
  LICENSE_EXPIRED: 'The license has expired.',
  PRODUCT_MISMATCH: 'The key covers neither this product nor a bundle that contains it.',
  ACTIVATION_REQUIRED:
    'The product needs an activated identifier for downloads, and none was sent.',
  ACTIVATION_NOT_FOUND: 'The identifier sent is not activated on the license.',
  DOWNLOAD_NOT_AVAILABLE:
    "The product is set to Account only: files come from the customer's account, not the API.",
  NOT_FOUND: 'There is no such product, or no published version has a file for this caller.',
  RANGE_NOT_SATISFIABLE: 'The requested byte range starts at or after the end of the file.',
  RATE_LIMITED: 'Too many download requests from one IP address in a minute.',
  INVALID_REQUEST: 'The request was malformed (a bad product id or query).',
  INTERNAL_ERROR: 'The server failed while serving the file.',
};

/**
 * A refused download's reason in words: LICENSE_INVALID said for what it was (no key sent, a key
 * no license has, or a license that is suspended, revoked or cancelled) when the entry says so.
 */
export function refusalMeaning(
  entry: Pick<DownloadLogEntry, 'reason' | 'license_key' | 'license_status'>,
): string {
  const reason = entry.reason ?? '';
  if (reason === 'LICENSE_INVALID') {
    if (entry.license_key === null) return 'No license key was sent.';
    if (entry.license_status === 'invalid') return 'No license has this key.';
    if (entry.license_status !== null && entry.license_status !== 'active') {
      return `The license is ${STATUS_NAMES[entry.license_status]}.`;
    }
  }
  return REFUSAL_MEANINGS[reason] ?? 'A reason this console does not know yet.';
}
