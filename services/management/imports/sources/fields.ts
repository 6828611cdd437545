import type { ImportSource, RefusedRecord } from '../imported-license.js';

/**
 * The checks every reader makes of a source's fields. Each answers the value, or a reason in
 * plain words that the reader turns into a refused record (and reading goes on).
 */

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

export const good = <T>(value: T): Checked<T> => ({ ok: true, value });
export const bad = (reason: string): Checked<never> => ({ ok: false, reason });

/** A record the reader could not take, with the reason the report shows. */
export function refusal(
  source: ImportSource,
  line: number,
  sourceId: string | null,
  reason: string,
): RefusedRecord {
  return { refused: true, source, line, source_id: sourceId, reason };
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A date as sellers write it: `2025-12-31` (midnight UTC at its start), or a date and time
 * with `T` or a space, seconds optional, and a zone (`Z`, `+02:00`); a time without a zone is
 * UTC. The calendar is checked too, so 2023-02-30 is refused rather than rolled into March.
 */
export function isoDate(field: string, text: string): Checked<string> {
  const match = DATE_TIME.exec(text);
  if (match === null) return bad(`${field} is not a date: ${text}`);
  const [, y = '', mo = '', d = '', h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] =
    match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  const real =
    calendar.getUTCMonth() === month - 1 &&
    calendar.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60;
  const offset = zone === 'Z' ? 'Z' : zone.replace(/^([+-]\d{2}):?(\d{2})$/, '$1:$2');
  const time = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${fraction.slice(0, 4)}${offset}`);
  if (!real || Number.isNaN(time)) return bad(`${field} is not a date: ${text}`);
  return good(new Date(time).toISOString());
}

/** Unix seconds (EDD's expiration), as an ISO 8601 UTC timestamp. */
export function unixSeconds(field: string, text: string): Checked<string> {
  if (!/^\d{1,11}$/.test(text)) return bad(`${field} is not a time in unix seconds: ${text}`);
  return good(new Date(Number(text) * 1000).toISOString());
}

/** An activation limit: a whole number, 0 for unlimited; empty says none of its own. */
export function limit(field: string, text: string): Checked<number | null> {
  if (text === '') return good(null);
  if (/^-\d+$/.test(text)) return bad(`${field} is negative: ${text}`);
  if (!/^\d{1,9}$/.test(text)) return bad(`${field} is not a whole number: ${text}`);
  return good(Number(text));
}

/** The reason a license's own limit cannot hold its activations, or null when it can. */
export function limitBelowActivations(
  activationLimit: number | null,
  activations: readonly { exempt: boolean }[],
): string | null {
  if (activationLimit === null || activationLimit === 0) return null;
  const used = activations.filter((activation) => !activation.exempt).length;
  return used > activationLimit
    ? `activation_limit ${activationLimit} is below its ${used} activations`
    : null;
}

/** Empty text as null; anything else as it is, untrimmed. */
export const orNull = (text: string | undefined): string | null =>
  text === undefined || text === '' ? null : text;
