import { z } from 'zod';
import {
  ActivationType,
  ClientIp,
  Id,
  ListCursor,
  MAX_BATCH,
  MAX_PAGE,
  MAX_PER_PAGE,
  DEFAULT_PER_PAGE,
  LicenseStatus,
  MAX_FIELD_LENGTH,
  NonEmptyShortText,
  ShortText,
  Timestamp,
} from './shared.js';
import {
  DEFAULT_EXEMPT_LIMIT,
  DEFAULT_LICENSE_SORT,
  DETAIL_ACTIVATIONS,
  LICENSE_KEY_PATTERN,
  MAX_BULK_LICENSES,
  MAX_EMAIL_LENGTH,
  MAX_EXTEND_DAYS,
  MAX_LEASE_SECONDS,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_LENGTH,
  METADATA_KEY_PATTERN,
  licenseSortFields,
  sortOrders,
} from './bounds.js';
import { errorCodes, type ErrorCode } from './errors.js';
import { ExemptIdentifiers, ExemptLimit } from './exempt-identifiers.js';

// ---- Plans (spec 2.1) ----

/**
 * A plan's lease (docs/api-decisions.md, "Leases"): an activation lapses this many seconds after
 * it was made or last renewed (activate or validate with its identifier); null, no lease.
 */
export const LeaseSeconds = z
  .number()
  .int()
  .positive()
  .max(MAX_LEASE_SECONDS)
  .nullable()
  .meta({
    description:
      'Seconds an activation lives unless renewed by an activate or a validate with its ' +
      `identifier; null: activations never lapse. At most ${MAX_LEASE_SECONDS} (a year).`,
  });

export const Plan = z.object({
  id: Id,
  name: z.string(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  lease_seconds: LeaseSeconds,
  exempt_identifiers: z.array(z.string()),
  exempt_limit: z.number().int().nonnegative(),
  created_at: Timestamp,
});
export type Plan = z.infer<typeof Plan>;

export const CreatePlanRequest = z.strictObject({
  id: Id.optional(),
  name: NonEmptyShortText,
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative().max(1_000_000),
  lease_seconds: LeaseSeconds.default(null),
  exempt_identifiers: ExemptIdentifiers.default([]),
  exempt_limit: ExemptLimit.default(DEFAULT_EXEMPT_LIMIT),
});
export type CreatePlanRequest = z.infer<typeof CreatePlanRequest>;

/**
 * What an admin may change of a plan: its name and its lease and exemption settings. Licenses
 * take the settings when issued on the plan or moved to it (spec 3.3), not before.
 */
export const UpdatePlanRequest = z.strictObject({
  id: Id,
  name: NonEmptyShortText.optional(),
  lease_seconds: LeaseSeconds.optional(),
  exempt_identifiers: ExemptIdentifiers.optional(),
  exempt_limit: ExemptLimit.optional(),
});
export type UpdatePlanRequest = z.infer<typeof UpdatePlanRequest>;

export const PlanRef = z.strictObject({ id: Id });
export const PlanList = z.object({ plans: z.array(Plan) });

// ---- Public license operations (spec 4.1 to 4.3) ----

/** The license key as sent by a client; unknown keys are answered, not rejected, here. */
const LicenseKey = NonEmptyShortText;

export const ActivateRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  product_id: Id.nullable(),
  name: ShortText.nullable(),
  ip: ClientIp,
});
export type ActivateRequest = z.infer<typeof ActivateRequest>;

export const ValidateRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: ShortText.nullable(),
  product_id: Id.nullable(),
  ip: ClientIp,
});
export type ValidateRequest = z.infer<typeof ValidateRequest>;

export const DeactivateRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  product_id: Id.nullable(),
});
export type DeactivateRequest = z.infer<typeof DeactivateRequest>;

/** Spec 4.1 success payload; deactivate answers with the same shape (docs/api-decisions.md). */
export const ActivationResult = z.object({
  status: LicenseStatus,
  license_key: z.string(),
  product: z.string(),
  plan: z.string(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  activations_used: z.number().int().nonnegative(),
  expires_at: Timestamp.nullable(),
  identifier: z.string(),
  /**
   * When this activation lapses unless renewed (activate or validate with its identifier): the
   * plan's lease. Null when the plan has no lease, and in deactivate's answer.
   */
  lease_expires_at: Timestamp.nullable(),
});
export type ActivationResult = z.infer<typeof ActivationResult>;

/** Spec 4.2 success payload. */
export const ValidationResult = z.object({
  valid: z.boolean(),
  status: z.union([LicenseStatus, z.literal('invalid')]),
  license_key: z.string(),
  product: z.string().nullable(),
  plan: z.string().nullable(),
  activation_type: ActivationType.nullable(),
  activation_limit: z.number().int().nonnegative(),
  activations_used: z.number().int().nonnegative(),
  expires_at: Timestamp.nullable(),
  identifier_activated: z.boolean(),
  /**
   * When the activation of the identifier sent lapses unless renewed; this validation renewed
   * it. Null when the plan has no lease, no identifier was sent or it is not activated.
   */
  lease_expires_at: Timestamp.nullable(),
});
export type ValidationResult = z.infer<typeof ValidationResult>;

/**
 * A license file for an activated identifier (docs/api-decisions.md, "License files"): refused
 * as activate refuses (spec 4.1 order), then ACTIVATION_NOT_FOUND. `ttl_seconds` is the lease
 * asked for, already bounded by the gateway (LICENSE_FILE_MAX_TTL_SECONDS).
 */
export const CheckoutRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  product_id: Id,
  ttl_seconds: z.number().int().positive(),
});
export type CheckoutRequest = z.infer<typeof CheckoutRequest>;

/**
 * The license's state as validate reports it (spec 4.2), without the identifier question or its
 * activation's lease: a license file has a lease of its own.
 */
export const LicenseFileState = ValidationResult.omit({
  identifier_activated: true,
  lease_expires_at: true,
});

/** What a license file holds, for the gateway to sign: whole seconds, lease included. */
export const Checkout = z.object({
  license: LicenseFileState,
  /** The identifier as stored (normalised, spec 2.4). */
  identifier: z.string(),
  product_id: Id,
  issued_at: Timestamp,
  /** The lease: the earlier of `issued_at` + the time to live asked and the license's expiry. */
  expires_at: Timestamp,
});
export type Checkout = z.infer<typeof Checkout>;

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
 * every exempt slot, in use), or the license has expired.
 */
export const rejectionReasons = ['limit_reached', 'expired'] as const;
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
  activations: z.array(Activation).meta({
    description:
      `The first ${DETAIL_ACTIVATIONS} activations, oldest first; \`activations_used\` says how ` +
      'many there are, and `GET /licenses/{key}/activations` pages through all of them.',
  }),
  rejected_attempts: z.array(RejectedAttempt),
});
export type LicenseDetail = z.infer<typeof LicenseDetail>;

/** A license in a list (admin search): the fields of spec 2.2 without its activations. */
export const LicenseSummary = LicenseDetail.omit({ activations: true, rejected_attempts: true });
export type LicenseSummary = z.infer<typeof LicenseSummary>;

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

/**
 * Spec 3.3: a plan change, applied `now` (limit and type reset to the new plan's) or at the next
 * checkout `renewal` (stored as pending until then). A change that would leave more activations
 * than the new limit, or change the activation type, is made only with `confirm` true
 * (docs/api-decisions.md, "Plan changes"); without it, CONFIRMATION_REQUIRED says what it would do.
 */
export const ChangePlanRequest = z.strictObject({
  license_key: LicenseKey,
  plan_id: Id,
  when: z.enum(['now', 'renewal']),
  confirm: z
    .boolean()
    .default(false)
    .meta({
      description:
        'Make the change even when it leaves more activations than the new limit or changes ' +
        'the activation type; without it such a change is refused with CONFIRMATION_REQUIRED, ' +
        'which says what it would do.',
    }),
});
export type ChangePlanRequest = z.infer<typeof ChangePlanRequest>;

/**
 * What a plan change would do, carried by its CONFIRMATION_REQUIRED refusal beside
 * `activation_limit` (the license's limit now) and `activations_used` (all of which stay).
 */
export const PlanChangeFacts = z.object({
  plan_id: Id,
  /** The new plan's name. */
  plan: z.string(),
  activation_type: ActivationType,
  new_activation_type: ActivationType,
  type_changes: z.boolean(),
  new_activation_limit: z.number().int().nonnegative(),
  /** The activations the new limit leaves over it; 0 for an unlimited plan. */
  activations_over_limit: z.number().int().nonnegative(),
});

export type PlanChangeFacts = z.infer<typeof PlanChangeFacts>;

/** A plan name already taken: the plan that has it (ALREADY_EXISTS). */
export const PlanNameTaken = z.object({ plan_id: Id.optional() });

/**
 * Spec 3.3: a renewal. `checkout` (the Renew button) resets limit and type to the plan's, a
 * pending plan change applied first; `gateway` (automatic renewal) leaves them unchanged. Both
 * set the new expiry and next payment date (docs/api-decisions.md: statuses).
 */
export const RenewLicenseRequest = z.strictObject({
  license_key: LicenseKey,
  expires_at: Timestamp,
  source: z.enum(['checkout', 'gateway']),
  next_payment_at: Timestamp.nullable().optional(),
});
export type RenewLicenseRequest = z.infer<typeof RenewLicenseRequest>;

/** The scheduled tasks (spec 2.5 and 3.1, "Reminders & Expiration"), by their API names. */
export const taskNames = [
  'license-expiry',
  'rejected-attempt-pruning',
  'activation-lease-release',
] as const;
export const TaskName = z.enum(taskNames);
export type TaskName = z.infer<typeof TaskName>;

export const RunTaskRequest = z.strictObject({ name: TaskName });

/** One run of a scheduled task: when, and how many records it changed. */
export const TaskRun = z.object({
  name: TaskName,
  ran_at: Timestamp,
  affected: z.number().int().nonnegative(),
});
export type TaskRun = z.infer<typeof TaskRun>;

export const ScheduledTask = z.object({
  name: TaskName,
  /** As configured: `1 minute`, `1 hour`. */
  interval: z.string(),
  last_run: z
    .object({
      ran_at: Timestamp,
      /** `scheduled`, or `on-demand` (run by an admin). */
      trigger: z.enum(['scheduled', 'on-demand']),
      /** Records changed; null when the run failed. */
      affected: z.number().int().nonnegative().nullable(),
      /** Why the run failed; null when it succeeded. */
      error: z.string().nullable(),
    })
    .nullable(),
  /** When a license-service replica will run it next; null when no replica schedules it. */
  next_run_at: Timestamp.nullable(),
});
export type ScheduledTask = z.infer<typeof ScheduledTask>;
export const ScheduledTaskList = z.object({ tasks: z.array(ScheduledTask) });

/**
 * The customer portal's view of a license (spec 1, 2.3): read-only, for its holder. No IP
 * addresses of activations, no rejected attempts, no check fields.
 */
export const PortalLicense = z.object({
  license_key: z.string(),
  status: LicenseStatus,
  product: z.string(),
  plan: z.string(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  activations_used: z.number().int().nonnegative(),
  expires_at: Timestamp.nullable(),
  auto_renew: z.boolean(),
  next_payment_at: Timestamp.nullable(),
  /** The products the key can be used with: the bundle's products, or the one product. */
  products: z.array(z.object({ id: Id, title: z.string() })),
  activations: z.array(Activation.omit({ ip: true, last_checkout_at: true })),
  /** Whether its activations lapse unless in use (the portal says they renew while in use). */
  lease_seconds: z.number().int().positive().nullable(),
});
export type PortalLicense = z.infer<typeof PortalLicense>;

/**
 * A key an admin gives a new license (docs/api-decisions.md, "License keys an admin gives"): the
 * characters of generated keys (hex digits, so ASCII letters and digits) and `-` and `_`, 1 to
 * 255 of them.
 * Keys travel in URL paths, form fields and log lines; nothing in this alphabet needs escaping,
 * hides (white space, control characters) or looks like a path segment (`.`, `..`). Only a new
 * key is held to it: keys are looked up as any text up to 255 characters, so keys stored before
 * stay readable.
 */
export const GivenLicenseKey = z
  .string()
  .regex(LICENSE_KEY_PATTERN, {
    message: `must be 1 to ${MAX_FIELD_LENGTH} characters, each a letter A-Z or a-z, a digit, - or _`,
  })
  .meta({
    description:
      `The key to issue, 1 to ${MAX_FIELD_LENGTH} characters, each an ASCII letter (A-Z, a-z), ` +
      'a digit, `-` or `_`; generated when not sent (32 lowercase hex characters).',
  });

export const CreateLicenseRequest = z.strictObject({
  license_key: GivenLicenseKey.optional(),
  product_id: Id,
  plan_id: Id,
  status: LicenseStatus.default('active'),
  expires_at: Timestamp.nullable().default(null),
  auto_renew: z.boolean().default(false),
  next_payment_at: Timestamp.nullable().default(null),
  customer: Customer.nullable().default(null),
  metadata: Metadata.default({}),
});
export type CreateLicenseRequest = z.infer<typeof CreateLicenseRequest>;

export const LicenseRef = z.strictObject({ license_key: LicenseKey });

/**
 * An admin's change of a license (spec 3.3): any of its fields. `extend_expiry_days` moves the
 * expiry it has by that many days (a bulk change's extension), instead of `expires_at`.
 */
export const UpdateLicenseRequest = z.strictObject({
  license_key: LicenseKey,
  status: LicenseStatus.optional(),
  expires_at: Timestamp.nullable().optional(),
  activation_limit: z.number().int().nonnegative().max(1_000_000).optional(),
  customer: Customer.nullable().optional(),
  metadata: Metadata.optional(),
  extend_expiry_days: z.number().int().positive().max(MAX_EXTEND_DAYS).optional(),
});
export type UpdateLicenseRequest = z.infer<typeof UpdateLicenseRequest>;

// ---- Bulk changes (management API) ----

const BulkKeys = z
  .array(LicenseKey)
  .min(1)
  .max(MAX_BULK_LICENSES)
  .refine((keys) => new Set(keys).size === keys.length, { message: 'must not repeat a key' })
  .meta({ description: `1 to ${MAX_BULK_LICENSES} license keys, each once.` });

/**
 * One change made to each license named, as the single change makes it (PATCH
 * /licenses/{key}): a status; an expiry moved by a number of days; or an expiry date (null:
 * never expires).
 */
export const BulkLicenseChangeRequest = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('set_status'),
    license_keys: BulkKeys,
    status: LicenseStatus,
  }),
  z.strictObject({
    action: z.literal('extend_expiry'),
    license_keys: BulkKeys,
    days: z.number().int().positive().max(MAX_EXTEND_DAYS),
  }),
  z.strictObject({
    action: z.literal('set_expiry'),
    license_keys: BulkKeys,
    expires_at: Timestamp.nullable(),
  }),
]);
export type BulkLicenseChangeRequest = z.infer<typeof BulkLicenseChangeRequest>;

/** What became of one license of a bulk change: the license after it, or why it was refused. */
export const BulkLicenseOutcome = z.discriminatedUnion('ok', [
  z.object({ license_key: z.string(), ok: z.literal(true), license: LicenseSummary }),
  z.object({
    license_key: z.string(),
    ok: z.literal(false),
    error: z.object({
      code: z.enum(errorCodes as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
    }),
  }),
]);
export type BulkLicenseOutcome = z.infer<typeof BulkLicenseOutcome>;

/** Every license of a bulk change, in the order named, and how many changed or were refused. */
export const BulkLicenseChangeResult = z.object({
  results: z.array(BulkLicenseOutcome),
  succeeded: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
});
export type BulkLicenseChangeResult = z.infer<typeof BulkLicenseChangeResult>;

export const AddActivationRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
  name: ShortText.nullable().default(null),
});
export type AddActivationRequest = z.infer<typeof AddActivationRequest>;

/** An admin's Add: the license after it, and the activation added (its identifier normalised). */
export const AddedActivation = z.object({ license: LicenseDetail, activation: Activation });
export type AddedActivation = z.infer<typeof AddedActivation>;

export const RemoveActivationRequest = z.strictObject({
  license_key: LicenseKey,
  identifier: NonEmptyShortText,
});
export type RemoveActivationRequest = z.infer<typeof RemoveActivationRequest>;

/**
 * What the update check and the download endpoint need to know about a key for one product
 * (spec 4.4, 4.5). `found` false for an unknown key; `covers` whether the key covers the product
 * (directly or through its bundle); `plan_id` only when it covers the product directly, since a
 * bundle key sees only all-plans files (spec 4.4 rule 5).
 */
export const LicenseCoverageRequest = z.strictObject({
  license_key: LicenseKey,
  product_id: Id,
  identifier: ShortText.nullable(),
});
export type LicenseCoverageRequest = z.infer<typeof LicenseCoverageRequest>;

export const LicenseCoverage = z.object({
  found: z.boolean(),
  covers: z.boolean(),
  /** Reported status: an active license past its expiry date is `expired` (spec 3.1). */
  status: LicenseStatus.nullable(),
  plan_id: Id.nullable(),
  expires_at: Timestamp.nullable(),
  auto_renew: z.boolean(),
  next_payment_at: Timestamp.nullable(),
  /** Whether the identifier sent is activated (normalised as in 2.4); null when none was sent. */
  identifier_activated: z.boolean().nullable(),
});
export type LicenseCoverage = z.infer<typeof LicenseCoverage>;
