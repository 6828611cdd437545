/**
 * The console's words for the API's values and refusals; those the portal shows too are in
 * libs/web/ui/words.ts.
 */
import type {
  ActivationType,
  DownloadAccess,
  LicenseStatus,
  LicenseSummary,
} from '../../../libs/contracts/index.js';
import { ApiError } from '../../../libs/web/ui/api.js';
import { STATUS_WORDS } from '../../../libs/web/ui/words.js';

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
 * A refusal in words, with the numbers it carries: the limit refusals say how many activations
 * are in use and what would be allowed (spec 3.3, 4.1).
 */
export function explain(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const limit = error.details.activation_limit;
  const used = error.details.activations_used;
  if (typeof limit !== 'number' || typeof used !== 'number') return error;
  if (error.code === 'ACTIVATION_LIMIT_TOO_LOW') {
    return new ApiError(
      error.status,
      error.code,
      `A limit of ${limit} is below the ${plural(used, 'activation')} in use. Remove ` +
        `${plural(used - limit, 'activation')} first, or set a limit of at least ${used} ` +
        '(0 means unlimited).',
      error.details,
    );
  }
  if (error.code === 'ACTIVATION_LIMIT_REACHED') {
    return new ApiError(
      error.status,
      error.code,
      `${used} of ${limit} activations are in use. Remove one, or raise the limit first.`,
      error.details,
    );
  }
  return error;
}
