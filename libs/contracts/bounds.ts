/**
 * Bounds of the licensing API, in a module of their own without zod: the schemas of this folder
 * use them, and so do the web pages, which would otherwise bundle zod to learn a few numbers.
 */

/**
 * A license key an admin gives (libs/contracts/licenses/license-changes.ts, `GivenLicenseKey`): ASCII letters,
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
 * The most uses a plan may allow in a period, and the most one call may add (licenses/usage.ts).
 */
export const MAX_USES_LIMIT = 1_000_000_000;
export const MAX_USAGE_INCREMENT = 1_000_000;

/**
 * The domain event types a webhook endpoint may ask for (libs/contracts/events/domain-events.ts gives each
 * its data): here, so the console lists them without bundling zod.
 */
export const domainEventTypes = [
  'license.created',
  'license.updated',
  'license.expired',
  'license.grace_started',
  'license.renewed',
  'license.plan_changed',
  'activation.created',
  'activation.deleted',
  'activation.rejected',
  'download.served',
  'download.refused',
  'version.published',
  'version.rollout_changed',
  'usage.limit_reached',
  'trial.started',
  'trial.converted',
] as const;

/** The events of an endpoint that stands for all of them, those added later too. */
export const ALL_EVENTS = '*';

/**
 * Who or what made a change the audit log keeps: an admin through the management API, a store's
 * event applied by the stores service, or the stores service's grace sweep suspending a license
 * past due (docs/stores.md). Here, so the console's filter lists them without bundling zod.
 */
export const auditSourceKinds = ['admin', 'store_event', 'store_grace'] as const;

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

// ---- Customers and metadata of licenses (docs/api-decisions.md, "Customers and metadata") ----

/** The longest customer e-mail address (RFC 5321's 256-octet path, less its angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

/** The most metadata entries a license carries. */
export const MAX_METADATA_KEYS = 50;

/**
 * A metadata key: an ASCII letter, then up to 39 ASCII letters, digits, `_` or `-`
 * (`order_id`, `crm-id`). Keys name fields in the stored record and in CSV headers, so nothing
 * in them needs escaping, and `__proto__` cannot be one.
 */
export const METADATA_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

/** The longest metadata value, in characters, as every stored text field (spec 8). */
export const MAX_METADATA_VALUE_LENGTH = 255;

// ---- Lists an admin works with (docs/api-decisions.md, "Lists: order, pages, exports") ----

/**
 * The orders a list may be read in: a field, ascending, or descending with `-` before it. Each
 * has an index behind it (the stores' models list them), and ties are broken by the record's id.
 */
export type SortOf<Field extends string> = Field | `-${Field}`;

export function sortOrders<Field extends string>(
  fields: readonly Field[],
): [SortOf<Field>, ...SortOf<Field>[]] {
  const orders = fields.flatMap((field): SortOf<Field>[] => [field, `-${field}`]);
  return orders as [SortOf<Field>, ...SortOf<Field>[]];
}

/** A sort as a field and a direction: `-expires_at` is expires_at, descending. */
export function orderOf<Field extends string>(
  sort: SortOf<Field>,
): { field: Field; descending: boolean } {
  return sort.startsWith('-')
    ? { field: sort.slice(1) as Field, descending: true }
    : { field: sort as Field, descending: false };
}

/** What the license list sorts by: issued, expiry, key, customer e-mail. */
export const licenseSortFields = [
  'created_at',
  'expires_at',
  'license_key',
  'customer_email',
] as const;
export type LicenseSortField = (typeof licenseSortFields)[number];
export const DEFAULT_LICENSE_SORT: SortOf<LicenseSortField> = '-created_at';

/** What the download log sorts by: time, key. */
export const downloadLogSortFields = ['at', 'license_key'] as const;
export type DownloadLogSortField = (typeof downloadLogSortFields)[number];
export const DEFAULT_DOWNLOAD_LOG_SORT: SortOf<DownloadLogSortField> = '-at';

/** The most licenses one bulk change names. */
export const MAX_BULK_LICENSES = 100;

/** The most days a bulk change extends an expiry by (ten years). */
export const MAX_EXTEND_DAYS = 3660;

/** An entitlement's code (libs/contracts/plans/entitlements.ts): lowercase, no comma, 1 to 64 characters. */
export const ENTITLEMENT_CODE_PATTERN = /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/;
export const MAX_ENTITLEMENT_CODE_LENGTH = 64;

/** The most entitlements a plan grants, and a validate asks about. */
export const MAX_PLAN_ENTITLEMENTS = 32;

/**
 * The Joomla versions a product's Joomla stream names when its seller declared none
 * (`joomla.target_platform` null; docs/updaters/joomla.md): Joomla 5 alone, the narrowest claim
 * that still reaches the sites of today's supported line. Joomla 6 is named only once the seller
 * says the extension runs there, so Joomla 5's pre-update check never reports it ready untested.
 */
export const DEFAULT_JOOMLA_TARGET_PLATFORM = '5\\.';
