import type {
  ActivationType,
  ExpiryTerms,
  ImportSource,
  LicenseStatus,
  RejectionReason,
  TaskName,
  UsesReset,
} from '../../libs/contracts/index.js';

/**
 * What the license service's stores keep, in the spec's words: plans (2.1), licenses with their
 * activations (2.2, 2.3), rejected activation attempts (2.5) and the runs of the scheduled tasks
 * (stores.ts says how the stores keep them).
 */

/** Who made an activation: a client's activate, or an admin's Add (spec 3.2). */
export type ActivationSource = 'api' | 'admin';

/**
 * A plan's expiry terms (`expiry_strategy`, `grace_days`, `renewal_basis`) are read live by the
 * license rules (lifecycle/expiry-rules.ts), never copied into its licenses.
 */
export interface PlanRecord extends ExpiryTerms {
  id: number;
  name: string;
  activation_type: ActivationType;
  activation_limit: number;
  /** Seconds an activation lives unless renewed; null: no lease (docs/api-decisions.md). */
  lease_seconds: number | null;
  /**
   * Patterns of identifiers that take no slot, stored normalised
   * (libs/contracts/plans/exempt-identifiers.ts).
   */
  exempt_identifiers: string[];
  /** How many exempt activations a license may hold. */
  exempt_limit: number;
  /** Uses a license may record per period; null: the plan counts no usage (usage-rules.ts). */
  max_uses: number | null;
  uses_reset: UsesReset;
  /** Days a trial issued on it lasts; null: it issues none (docs/api-decisions.md, "Trials"). */
  trial_days: number | null;
  /** The codes of the entitlements every license on it has while on it. */
  entitlements: string[];
  created_at: Date;
}

/**
 * What creating a plan stores: a plan created without a trial length issues no trials.
 */
export type NewPlan = Omit<PlanRecord, 'id' | 'created_at' | 'trial_days'> &
  Partial<Pick<PlanRecord, 'trial_days'>>;

/**
 * How much of a license's stored record its activations may take (docs/architecture.md,
 * "Activations"): MongoDB keeps a record to 16 MiB, and the license's other fields and the
 * updates' room need the rest. Some 80,000 activations of a short domain name, at least 14,000 of
 * the longest identifiers and names the spec allows.
 */
export const MAX_ACTIVATION_BYTES = 12 * 1024 * 1024;

/**
 * More than an activation can take of the record (255 UTF-16 units of up to 3 UTF-8 bytes each in
 * its identifier and its name, its key up to twice that once lower-cased, a 45-character IP, its
 * dates and field names): the rules refuse a claim, before any write, once the activations are
 * within this of MAX_ACTIVATION_BYTES.
 */
export const MAX_ACTIVATION_ENTRY_BYTES = 4096;

export interface ActivationRecord {
  /** Normalised identifier as stored and shown (spec 2.3). */
  identifier: string;
  /** Lower-cased identifier: identifiers match case-insensitively (spec 2.4). */
  identifier_key: string;
  name: string | null;
  /** Empty for an activation added in admin (spec 2.3). */
  ip: string;
  activated_at: Date;
  /** When the last license file was issued for it (checkout); null when none was. */
  last_checkout_at: Date | null;
  /**
   * When it lapses unless renewed (its license's `lease_seconds` after it was made or last
   * renewed); null when it has no lease. A lapsed activation is gone for every rule at once.
   */
  lease_expires_at: Date | null;
  /** It matched an exempt pattern of its license when made: it takes no slot. */
  exempt: boolean;
}

export interface LicenseRecord {
  license_key: string;
  product_id: number;
  plan_id: number;
  status: LicenseStatus;
  expires_at: Date | null;
  auto_renew: boolean;
  next_payment_at: Date | null;
  activation_type: ActivationType;
  activation_limit: number;
  /** Taken from the plan with the limit and the type (spec 3.3): see PlanRecord. */
  lease_seconds: number | null;
  exempt_identifiers: string[];
  exempt_limit: number;
  /**
   * The slots in use (spec 4.1's `activations_used`): its activations, counted as they are
   * claimed and released, so that neither the rules nor the answers need to read them all.
   */
  activations_used: number;
  /** Its exempt activations, which take no slot, counted as the others are. */
  exempt_used: number;
  /**
   * What its activations take of its stored record (licenses/mongo-license-documents.ts
   * `activationBytes`): a license's activations are kept with it, so they are bounded by
   * MAX_ACTIVATION_BYTES.
   */
  activations_bytes: number;
  last_check_at: Date | null;
  last_check_ip: string | null;
  check_count: number;
  created_at: Date;
  /** Spec 3.3: a plan change to be applied by the next checkout renewal; null when none. */
  pending_plan_id: number | null;
  /** Who it was sold to (spec 2.2's owner, never shown to clients); null when not recorded. */
  customer: CustomerRecord | null;
  /** An admin's text by key (an order id), in the order given; never shown to clients. */
  metadata: Record<string, string>;
  /** The store sale it was made for (docs/stores.md); null for any other license. */
  store: StoreRefsRecord | null;
  /**
   * Set once the license is given an entitlement of its own (entitlement-store.ts `grant`), and
   * kept: the answers read its own entitlements only then, so most licenses cost no read for them.
   */
  has_own_entitlements?: true;
  /**
   * Where it was imported from (imports/import-rules.ts); absent on a license made here. Its
   * source id is found by the admin search.
   */
  imported_from?: ImportedFromRecord;
}

/** An imported license's source and the source's own id of it. */
export interface ImportedFromRecord {
  source: ImportSource;
  source_id: string;
}

/** A license's customer: the e-mail address normalised (libs/identifier `checkEmailAddress`). */
export interface CustomerRecord {
  email: string;
  name: string | null;
}

/**
 * A store sale's ids: the connection it came through, and the store's order, subscription and
 * customer ids (null when the sale has none). A sale has one license: unique per connection and
 * order id, and per connection and subscription id (licenses/license-indexes.ts `licenseIndexes`).
 */
export interface StoreRefsRecord {
  connection_id: number;
  order_id: string | null;
  subscription_id: string | null;
  customer_id: string | null;
}

/** Spec 2.5: one row per identifier and license, with a count of tries. */
export interface RejectedAttemptRecord {
  license_key: string;
  identifier: string;
  identifier_key: string;
  /** Of the last try: the name sent, why it was refused, and who tried (null in older rows). */
  name: string | null;
  reason: RejectionReason | null;
  source: ActivationSource | null;
  tries: number;
  last_attempt_at: Date;
}

/**
 * A trial (docs/api-decisions.md, "Trials"): one per product and identifier, ever, kept so by a
 * unique index on the product and the identifier's trial key.
 */
export interface TrialRecord {
  product_id: number;
  /** Normalised for the trial plan's activation type (spec 2.4). */
  identifier: string;
  /** Lower-cased: identifiers match case-insensitively (spec 2.4). */
  identifier_key: string;
  /** The product and the identifier as the one-trial rule compares them (`trialKey`), unique. */
  trial_key: string;
  /** The trial license, issued after the trial is recorded. */
  license_key: string;
  plan_id: number;
  started_at: Date;
  expires_at: Date;
  /** When a paid license activated on the identifier ended it, and that license's key. */
  converted_at: Date | null;
  converted_license_key: string | null;
  /** The call that started it: a request delivered again goes on issuing it. */
  call_id: string;
}

/** The last run of a scheduled task (spec 2.5, 3.1), on a schedule or asked for by an admin. */
export interface TaskRunRecord {
  name: TaskName;
  ran_at: Date;
  trigger: 'scheduled' | 'on-demand';
  /** Records changed; null when the run failed. */
  affected: number | null;
  /** Why the run failed; null when it succeeded. */
  error: string | null;
}

/** An entitlement an admin defined (docs/api-decisions.md, "Entitlements"), by its unique code. */
export interface EntitlementRecord {
  code: string;
  name: string;
  created_at: Date;
}

/** An entitlement a license carries beyond its plan's, one per license and code. */
export interface LicenseEntitlementRecord {
  license_key: string;
  code: string;
  /** Null: it never expires. */
  expires_at: Date | null;
  granted_at: Date;
}
