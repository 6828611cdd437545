/**
 * The API's bounds that the console's forms and pages use, repeated from libs/contracts: the
 * contracts are zod schemas, which importing them would bundle into the page.
 * test/unit/console-words.test.ts checks that the two agree.
 */

/** How many activations a license's detail holds (DETAIL_ACTIVATIONS). */
export const DETAIL_ACTIVATIONS = 100;
/** The longest lease a plan may give (MAX_LEASE_SECONDS): a year. */
export const MAX_LEASE_SECONDS = 366 * 24 * 3600;
/** The most exempt patterns a plan holds (MAX_EXEMPT_IDENTIFIERS). */
export const MAX_EXEMPT_IDENTIFIERS = 20;
/** A plan's exempt limit when none is given (DEFAULT_EXEMPT_LIMIT). */
export const DEFAULT_EXEMPT_LIMIT = 3;
/** The largest exempt limit (ExemptLimit). */
export const MAX_EXEMPT_LIMIT = 1_000_000;
