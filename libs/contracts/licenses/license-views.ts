import { z } from 'zod';
import { LicenseEntitlement } from '../plans/entitlements.js';
import {
  ActivationType,
  Id,
  ListCursor,
  MAX_BATCH,
  MAX_PAGE,
  MAX_PER_PAGE,
  DEFAULT_PER_PAGE,
  LicenseStatus,
  NonEmptyShortText,
  Timestamp,
} from '../shared.js';
import {
  DEFAULT_LICENSE_SORT,
  DETAIL_ACTIVATIONS,
  MAX_EMAIL_LENGTH,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_LENGTH,
  METADATA_KEY_PATTERN,
  licenseSortFields,
  sortOrders,
} from '../bounds.js';
import { LicenseKey } from './license-key.js';

// ---- Management (admin) operations ----

export const Activation = z.object({
  identifier: z.string(),
  name: z.string().nullable(),
  ip: z.string(),
  activated_at: Timestamp,
  /** The last license file issued for it (checkout); null when none was. */
  last_checkout_at: Timestamp.nullable(),
  /** When it lapses unless renewed; null when it has no lease. */
  lease_expires_at: Timestamp.nullable(),
  /** It matched one of the plan's exempt patterns: it takes no slot (a staging site, say). */
  exempt: z.boolean(),
});
export type Activation = z.infer<typeof Activation>;

/**
 * Why an activation was refused and recorded (spec 2.5): the limit was reached (every slot, or
 * every exempt slot, in use), or the license has expired; or a second trial was asked for an
 * identifier, recorded against its trial license (docs/api-decisions.md, "Trials").
 */
export const rejectionReasons = ['limit_reached', 'expired', 'trial_already_used'] as const;
export const RejectionReason = z.enum(rejectionReasons);
export type RejectionReason = z.infer<typeof RejectionReason>;

export const RejectedAttempt = z.object({
  identifier: z.string(),
  /** The name sent with the last try; null when none was. */
  name: z.string().nullable(),
  /** Why the last try was refused; null for rows recorded before the reason was kept. */
  reason: RejectionReason.nullable(),
  /** Who made the last try: client software (`api`) or an admin's Add (`admin`). */
  source: z.enum(['api', 'admin']).nullable(),
  tries: z.number().int().positive(),
  last_attempt_at: Timestamp,
});
export type RejectedAttempt = z.infer<typeof RejectedAttempt>;

// ---- Customers and metadata: admin only (spec 2.2 keeps the owner from clients) ----

/**
 * A customer's e-mail address as sent: the license service checks and normalises it
 * (libs/identifier `checkEmailAddress`: lower-cased, its domain in ASCII form), so the same
 * address found in any spelling is one customer.
 */
export const CustomerEmail = NonEmptyShortText.refine(
  (value) => value.trim().length <= MAX_EMAIL_LENGTH,
  { message: `must be at most ${MAX_EMAIL_LENGTH} characters` },
).meta({
  description:
    `An e-mail address, at most ${MAX_EMAIL_LENGTH} characters; stored trimmed and lower-cased, ` +
    'its domain in ASCII form (Jane@Bücher.de is jane@xn--bcher-kva.de).',
});

/** Who a license was sold to (spec 2.2: an owner, shown to admins only). */
export const Customer = z.strictObject({
  email: CustomerEmail,
  name: NonEmptyShortText.nullable().default(null),
});
export type Customer = z.infer<typeof Customer>;

/** A license's customer as stored: the e-mail address normalised. */
export const CustomerView = z.object({ email: z.string(), name: z.string().nullable() });
export type CustomerView = z.infer<typeof CustomerView>;

export const MetadataKey = z.string().regex(METADATA_KEY_PATTERN, {
  message: 'must be an ASCII letter followed by up to 39 letters, digits, _ or -',
});

/**
 * Text an admin keeps on a license (an order id, a CRM reference), found by the license search
 * by value. Replaced whole when sent.
 */
export const Metadata = z
  .preprocess(
    // Typed as what a client sends; checked as anything (the record below refuses the rest).
    (value: Record<string, string>, context) => {
      // A record drops a `__proto__` key silently; sent as a key, it is refused like any other.
      if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
        context.addIssue({
          code: 'custom',
          message: 'must not have the key __proto__',
          input: value,
        });
      }
      return value;
    },
    z.record(MetadataKey, NonEmptyShortText),
  )
  .refine((metadata) => Object.keys(metadata).length <= MAX_METADATA_KEYS, {
    message: `must have at most ${MAX_METADATA_KEYS} keys`,
  })
  .meta({
    description:
      `Up to ${MAX_METADATA_KEYS} entries: keys of 1 to 40 ASCII letters, digits, _ and - ` +
      `starting with a letter; values of 1 to ${MAX_METADATA_VALUE_LENGTH} characters. ` +
      'Replaced whole when sent ({} clears it).',
  });
export type Metadata = z.infer<typeof Metadata>;

/** Every field of spec 2.2, plus the record's links, activations and rejected attempts. */
/**
 * The ids of the store sale a license was made for (docs/stores.md): the store connection, and
 * the store's order and subscription (null when the sale had none). Shown to admins only.
 */
export const LicenseStoreRefs = z.object({
  /** The store connection (its id in the stores service's API). */
  connection_id: Id,
  order_id: NonEmptyShortText.nullable(),
  subscription_id: NonEmptyShortText.nullable(),
  customer_id: NonEmptyShortText.nullable(),
});
export type LicenseStoreRefs = z.infer<typeof LicenseStoreRefs>;

/** Where imported licenses come from (licenses/license-imports.ts). */
export const ImportSource = z.enum(['edd', 'keygen', 'lemonsqueezy', 'csv']);
export type ImportSource = z.infer<typeof ImportSource>;

/**
 * Where an imported license came from: the source and the source's own id of it. Shown to admins
 * only, and found by the admin search (`q`).
 */
export const ImportedFrom = z.object({ source: ImportSource, source_id: NonEmptyShortText });
export type ImportedFrom = z.infer<typeof ImportedFrom>;

export const LicenseDetail = z.object({
  license_key: z.string(),
  status: LicenseStatus,
  product_id: Id,
  plan_id: Id,
  product: z.string().nullable(),
  plan: z.string().nullable(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  activations_used: z.number().int().nonnegative(),
  /** Taken from its plan when issued or moved to it (spec 3.3), as its limit is. */
  lease_seconds: z.number().int().positive().nullable(),
  exempt_identifiers: z.array(z.string()),
  exempt_limit: z.number().int().nonnegative(),
  /** Its exempt activations, which take no slot. */
  exempt_used: z.number().int().nonnegative(),
  expires_at: Timestamp.nullable(),
  auto_renew: z.boolean(),
  next_payment_at: Timestamp.nullable(),
  last_check_at: Timestamp.nullable(),
  last_check_ip: z.string().nullable(),
  check_count: z.number().int().nonnegative(),
  created_at: Timestamp,
  /** A plan change stored to be applied by the next checkout renewal (spec 3.3). */
  pending_plan: z.object({ id: Id, name: z.string().nullable() }).nullable(),
  /** Who it was sold to; null when not recorded. Never shown to clients (spec 2.2). */
  customer: CustomerView.nullable(),
  /** An admin's notes by key (an order id); never shown to clients. */
  metadata: z.record(z.string(), z.string()),
  /** The store sale it was made for; null for a license not made by a store's event. */
  store: LicenseStoreRefs.nullable(),
  /** The system it was imported from and that system's id of it; null when made here. */
  imported_from: ImportedFrom.nullable(),
  activations: z.array(Activation).meta({
    description:
      `The first ${DETAIL_ACTIVATIONS} activations, oldest first; \`activations_used\` says how ` +
      'many there are, and `GET /licenses/{key}/activations` pages through all of them.',
  }),
  rejected_attempts: z.array(RejectedAttempt),
  /**
   * The entitlements it carries beyond its plan's, each until its `expires_at` (those past it
   * are listed, not live), by code.
   */
  entitlements: z.array(LicenseEntitlement),
});
export type LicenseDetail = z.infer<typeof LicenseDetail>;

/** A license in a list (admin search): the fields of spec 2.2 without its activations. */
export const LicenseSummary = LicenseDetail.omit({
  activations: true,
  rejected_attempts: true,
  entitlements: true,
});
export type LicenseSummary = z.infer<typeof LicenseSummary>;

export const LicenseRef = z.strictObject({ license_key: LicenseKey });

/** The orders of the license list (`-` first: descending); ties are broken by the record's id. */
export const LicenseSort = z.enum(sortOrders(licenseSortFields)).meta({
  description:
    'The order: created_at (issued), expires_at (licenses that never expire first when ' +
    'ascending), license_key or customer_email (licenses without a customer first when ' +
    `ascending); a leading - reverses it. Default ${DEFAULT_LICENSE_SORT}.`,
});
export type LicenseSort = z.infer<typeof LicenseSort>;

/**
 * What an admin's license list holds: `status` is the reported status (an active license past
 * its date is `expired`); `q` is a key prefix, an activated identifier or a customer's e-mail
 * address (each normalised for comparison), or a metadata value.
 */
const LicenseListFilters = z.strictObject({
  product_id: Id.nullable().default(null),
  plan_id: Id.nullable().default(null),
  status: LicenseStatus.nullable().default(null),
  q: NonEmptyShortText.nullable().default(null),
  sort: LicenseSort.default(DEFAULT_LICENSE_SORT),
});

/** Admin search: one page of the list, with the total. */
export const SearchLicensesRequest = LicenseListFilters.extend({
  page: z.number().int().positive().max(MAX_PAGE).default(1),
  per_page: z.number().int().positive().max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});
export type SearchLicensesRequest = z.infer<typeof SearchLicensesRequest>;

/**
 * A license's activations, oldest first, paged; `q` keeps those whose identifier is the one
 * given, normalised for comparison as the license's activation type normalises it (spec 2.4).
 */
export const ListActivationsRequest = z.strictObject({
  license_key: LicenseKey,
  q: NonEmptyShortText.nullable().default(null),
  page: z.number().int().positive().max(MAX_PAGE).default(1),
  per_page: z.number().int().positive().max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});
export type ListActivationsRequest = z.infer<typeof ListActivationsRequest>;

export const ActivationPage = z.object({
  activations: z.array(Activation),
  page: z.number().int().positive(),
  per_page: z.number().int().positive(),
  total: z.number().int().nonnegative(),
});
export type ActivationPage = z.infer<typeof ActivationPage>;

export const LicensePage = z.object({
  licenses: z.array(LicenseSummary),
  page: z.number().int().positive(),
  per_page: z.number().int().positive(),
  total: z.number().int().nonnegative(),
});
export type LicensePage = z.infer<typeof LicensePage>;

/**
 * The license list read in batches (a CSV export): the batch after `after` (null: the first),
 * every batch of one export decided at `as_of`, so a license shown as active on the first stays
 * so on the last.
 */
export const ExportLicensesRequest = LicenseListFilters.extend({
  after: ListCursor.nullable().default(null),
  limit: z.number().int().positive().max(MAX_BATCH),
  as_of: Timestamp,
});
export type ExportLicensesRequest = z.infer<typeof ExportLicensesRequest>;

/** A batch of the list, and where the next one starts (null: this was the last). */
export const LicenseBatch = z.object({
  licenses: z.array(LicenseSummary),
  next: ListCursor.nullable(),
});
export type LicenseBatch = z.infer<typeof LicenseBatch>;
