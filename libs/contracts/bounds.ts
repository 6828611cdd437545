/**
 * Bounds of the licensing API, in a module of their own without zod: the schemas of this folder
 * use them, and so do the web pages, which would otherwise bundle zod to learn a few numbers.
 */

/**
 * A license key an admin gives (libs/contracts/license.ts, `GivenLicenseKey`): ASCII letters,
 * digits, `-` and `_`, 1 to 255 of them (spec 8's 255 characters).
 */
export const LICENSE_KEY_PATTERN = /^[A-Za-z0-9_-]{1,255}$/;

/** How many activations a license's detail holds; the rest are read a page at a time. */
export const DETAIL_ACTIVATIONS = 100;

/** The longest lease a plan may give its activations: a year. */
export const MAX_LEASE_SECONDS = 366 * 24 * 3600;

/** The most exempt identifier patterns a plan holds. */
export const MAX_EXEMPT_IDENTIFIERS = 20;

/** A plan's exempt limit when none is given. */
export const DEFAULT_EXEMPT_LIMIT = 3;

/** The largest exempt limit a plan may have, as for the activation limit. */
export const MAX_EXEMPT_LIMIT = 1_000_000;

/**
 * The domain event types a webhook endpoint may ask for (libs/contracts/webhooks.ts gives each
 * its data): here, so the console lists them without bundling zod.
 */
export const domainEventTypes = [
  'license.created',
  'license.updated',
  'license.expired',
  'license.renewed',
  'license.plan_changed',
  'activation.created',
  'activation.deleted',
  'activation.rejected',
  'download.served',
  'download.refused',
  'version.published',
] as const;

/** The events of an endpoint that stands for all of them, those added later too. */
export const ALL_EVENTS = '*';

/** At most this many webhook endpoints per system. */
export const MAX_WEBHOOK_ENDPOINTS = 50;

/**
 * The roles of named admins, least first: `viewer` reads everything; `support` also changes
 * licenses and their activations, limits, plans and renewals; `owner` may do everything,
 * managing admins included.
 */
export const adminRoles = ['viewer', 'support', 'owner'] as const;

/** The most tokens one admin holds at once. */
export const MAX_ADMIN_TOKENS = 20;

/** The longest admin name, in characters. */
export const MAX_ADMIN_NAME_LENGTH = 100;

/** The days the admin overview covers, ending today (UTC). */
export const overviewPeriods = [30, 90] as const;
