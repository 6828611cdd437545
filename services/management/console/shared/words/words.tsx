/**
 * The console's words for the API's values and refusals; those the portal shows too are in
 * libs/web/ui/words.ts.
 */
import type {
  ActivationType,
  DownloadAccess,
  LicenseStatus,
  LicenseSummary,
} from '../../../../../libs/contracts/index.js';
import { ApiError } from '../../../../../libs/web/ui/api.js';
import { EXEMPT_MARK, STATUS_WORDS, leaseWords } from '../../../../../libs/web/ui/words.js';
import { MAX_EXEMPT_IDENTIFIERS } from '../../../../../libs/contracts/bounds.js';

export const ACTIVATION_TYPE_WORDS: Record<ActivationType, string> = {
  domain: 'Domain (websites)',
  device: 'Device (computers, phones)',
  seat: 'Seat (users, by e-mail)',
  instance: 'Instance (servers, containers)',
};

/** Spec 2.7: Download API Access, as the admin sets it. */
export const DOWNLOAD_ACCESS_WORDS: Record<DownloadAccess, string> = {
  license_key: 'License key',
  activated_identifier: 'License key + activated identifier',
  account: 'Account only',
  public: 'Public (no key)',
};

/** What is wrong with an activation limit that cannot be sent (fields.tsx `isLimit`). */
export const LIMIT_PROBLEM = 'The limit must be a whole number of 0 or more (0 means unlimited).';

/** Why a license cannot be renewed, and what to do instead. */
export function notRenewable(status: 'revoked' | 'cancelled'): string {
  return `This license is ${status}: it cannot be renewed. Issue a new license instead.`;
}

/** Why no activation can be added to a license now, and what to do; null when one can. */
export function noAddWords(
  license: Pick<LicenseSummary, 'status' | 'expires_at'>,
  now: number,
): string | null {
  switch (license.status) {
    case 'revoked':
    case 'cancelled':
      return `This license is ${license.status}: no activation can be added to it.`;
    case 'suspended':
    case 'expired':
      return (
        `This license is ${license.status}: no activation can be added until its status is ` +
        'Active again (Limit, status and expiry, or Renew).'
      );
    case 'active':
      return license.expires_at !== null && Date.parse(license.expires_at) <= now
        ? 'This license has expired: no activation can be added until it is renewed or its ' +
            'expiry date is moved.'
        : null;
  }
}

export function limitWords(limit: number): string {
  return limit === 0 ? 'Unlimited' : String(limit);
}

/** The activations in use, and of how many. */
export function usage(license: Pick<LicenseSummary, 'activation_limit' | 'activations_used'>) {
  return license.activation_limit === 0
    ? `${license.activations_used} (unlimited)`
    : `${license.activations_used} of ${license.activation_limit}`;
}

export function StatusBadge({ status }: { status: LicenseStatus }) {
  return <span class={`badge status-${status}`}>{STATUS_WORDS[status]}</span>;
}

// ---- Leases and exempt identifiers (docs/api-decisions.md, "Leases", "Exempt identifiers") ----

/** A plan's lease in a table cell. */
export function leaseWordsOrNone(seconds: number | null): string {
  return seconds === null ? 'No lease' : leaseWords(seconds);
}

/** A license's lease, as its facts say it. */
export function licenseLeaseWords(seconds: number | null): string {
  return seconds === null
    ? 'No lease: activations never lapse'
    : `Activations lapse after ${leaseWords(seconds)} unless renewed (an activate, or a ` +
        'validate with their identifier, renews one)';
}

/** A license's exempt slots: those in use, and of how many. */
export function exemptSlotWords(license: Pick<LicenseSummary, 'exempt_used' | 'exempt_limit'>) {
  const used = `${license.exempt_used} of ${license.exempt_limit} exempt slots used`;
  return license.exempt_limit === 0 ? `${used} (a limit of 0: none is exempt)` : used;
}

/**
 * What a count still holds of lapsed activations: the license keeps them until its next use
 * removes them, but they count for nothing.
 */
export function lapsedNote(count: number): string {
  return count === 0 ? '' : ` (${count} lapsed: not counted, removed at the license's next use)`;
}

/** A plan's exempt limit in a table cell. */
export function exemptLimitWords(limit: number): string {
  return limit === 0 ? 'none exempt (limit 0)' : `up to ${limit} per license`;
}

/** What the plan form says of each setting, and when licenses take them. */
export const PLAN_WORDS = {
  lease:
    'Each activation lapses this long after it is made or last renewed by an activate or a ' +
    'validate with its identifier, and its slot is freed. Empty: no lease, activations never ' +
    'lapse.',
  exemptIdentifiers:
    'Staging and local sites whose activations take no slot, matched against the identifier ' +
    'as stored: *.test (any name ending in .test), staging.* (any name starting with staging.), ' +
    'an exact name (localhost); on seat plans, *@example.com (any address at that domain). One ' +
    `* at most, standing for whole labels; up to ${MAX_EXEMPT_IDENTIFIERS} patterns.`,
  trialDays:
    'How long a trial issued on this plan lasts, 1 to 365 days. A product offers trials once ' +
    'it names this plan as its trial plan. Empty: the plan issues no trials.',
  exemptLimit:
    'How many exempt activations one license may hold; 0: none is exempt. Past it, an exempt ' +
    'identifier is refused as on a full license.',
  takenWhen:
    'Licenses take the lease and exempt settings when issued on this plan or moved to it; ' +
    'licenses already on it keep theirs.',
  fixed: 'The activation type and limit of a plan stay as created.',
};

/** The lease of an activation that is still running, before the time it ends. */
export const RENEWS_WHILE_IN_USE = 'renews while in use; lapses at';

/** Its lease ran out: it counts for nothing, and is removed on the license's next use. */
export function LapsedBadge() {
  return <span class="badge lapsed">lapsed, not counted</span>;
}

/** It matched one of the plan's exempt patterns: it takes no slot. */
export function ExemptBadge() {
  return <span class="badge exempt">exempt ({EXEMPT_MARK})</span>;
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * A refusal in words for the admin reading it, with the numbers it carries: the limit refusals
 * say how many activations are in use and what would be allowed (spec 3.3, 4.1); a plan name
 * taken says which plan has it.
 */
export function explain(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.code === 'ALREADY_EXISTS' && typeof error.details.plan_id === 'number') {
    return error.saying(
      `${error.serverMessage} Plan names are compared without letter case and extra spaces: ` +
        'choose another name.',
    );
  }
  const limit = error.details.activation_limit;
  const used = error.details.activations_used;
  if (typeof limit !== 'number' || typeof used !== 'number') return error;
  if (error.code === 'ACTIVATION_LIMIT_TOO_LOW') {
    return error.saying(
      `A limit of ${limit} is below the ${plural(used, 'activation')} in use. Remove ` +
        `${plural(used - limit, 'activation')} first, or set a limit of at least ${used} ` +
        '(0 means unlimited).',
    );
  }
  if (error.code === 'ACTIVATION_LIMIT_REACHED') {
    return error.saying(
      `${used} of ${limit} activations are in use. Remove one, or raise the limit first.`,
    );
  }
  return error;
}
