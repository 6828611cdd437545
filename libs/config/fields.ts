/** The kinds of value the settings take: URLs, whole numbers, intervals, retry schedules. */
import { z } from 'zod';

/** A URL with one of these schemes, or unset (empty counts as unset). */
export function optionalUrl(...schemes: [string, ...string[]]) {
  const scheme = new RegExp(`^(${schemes.join('|')})$`);
  return z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .url({
          protocol: scheme,
          error: `must be a URL starting ${schemes.map((s) => `${s}://`).join(' or ')}`,
        })
        .optional(),
    )
    .optional();
}
export const httpUrl = optionalUrl('http', 'https');

/**
 * An HTTP(S) service's address alone, or unset: a scheme, a host and a port, with no path, query
 * or credentials, as a client library that is told a host and port takes it.
 */
export const originUrl = httpUrl.refine((value) => {
  // Not a URL at all is said by the check before, which zod runs this one after all the same.
  if (value === undefined || !URL.canParse(value)) return true;
  const url = new URL(value);
  return url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
}, 'must be a scheme, a host and a port alone (like http://127.0.0.1:12111): no path or query');

/** A whole number from `min` (to `max`), said so when it is not. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  const expected =
    max === Number.MAX_SAFE_INTEGER
      ? `must be a whole number of at least ${min}`
      : `must be a whole number from ${min} to ${max}`;
  return z.coerce
    .number({ error: expected })
    .int({ error: expected })
    .min(min, { error: expected })
    .max(max, { error: expected });
}
export const port = wholeNumber(0, 65535);
/** An interval of the scheduled tasks, as Agenda reads it: `30 seconds`, `1 minute`, `6 hours`. */
export const interval = z
  .string()
  .trim()
  .regex(/^[1-9][0-9]* (second|minute|hour|day)s?$/, 'must be like "30 seconds" or "1 hour"');
export const positiveMs = wholeNumber(1);

const WAIT_UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The default retry schedule of webhook deliveries: eight attempts over about 28 hours. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
/** Waits as `5s,5m,30m,2h` (seconds, minutes, hours, days), read as milliseconds. */
export const retrySchedule = z
  .string()
  .trim()
  .regex(
    /^[1-9][0-9]*[smhd](,[1-9][0-9]*[smhd]){0,19}$/,
    'must be up to 20 waits like "5s,5m,30m,2h" (s, m, h or d)',
  )
  .transform((v) =>
    v.split(',').map((wait) => Number(wait.slice(0, -1)) * WAIT_UNIT_MS[wait.slice(-1) as 's']),
  );

const emailAddress = z.email();
/** `sales@shop.example`, or a name and an address: `Plugin Shop <sales@shop.example>`. */
const MAILBOX = /^(?:[^<>"\p{Cc}]*<([^<>\s]+)>|([^<>\s]+))$/u;
/** A mail sender (From), or unset (empty). */
export const mailbox = z
  .string()
  .trim()
  .refine((value) => {
    if (value === '') return true;
    const match = MAILBOX.exec(value);
    return match !== null && emailAddress.safeParse(match[1] ?? match[2]).success;
  }, 'must be an e-mail address, or a name and one as "Plugin Shop <sales@shop.example>"')
  .default('');
