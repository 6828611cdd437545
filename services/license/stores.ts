import type {
  ActivationType,
  LicenseSortField,
  LicenseStatus,
  ListCursor,
  RejectionReason,
  TaskName,
} from '../../libs/contracts/index.js';
import type { CustomerRecord, IdentifierKeys } from './rules.js';

export { MAX_ACTIVATION_BYTES, MAX_ACTIVATION_ENTRY_BYTES } from './rules.js';
export type { CustomerRecord, IdentifierKeys };

/** Who made an activation: a client's activate, or an admin's Add (spec 3.2). */
export type ActivationSource = 'api' | 'admin';

/**
 * The license service's persistence, in the spec's words: plans (2.1), licenses with their
 * activations (2.2, 2.3) and rejected activation attempts (2.5). Identifiers reach a store
 * normalised (2.4); the store matches them case-insensitively through their key. Every record a
 * store returns is a copy: changing it changes nothing stored.
 *
 * A method given more than one value takes them as one object, named in camelCase (a record's
 * own fields keep their stored names). The time of what a store writes comes from its caller
 * (`now`, `at`), whose clock also decides the rules: the stores never read a clock.
 */

export interface PlanRecord {
  id: number;
  name: string;
  activation_type: ActivationType;
  activation_limit: number;
  /** Seconds an activation lives unless renewed; null: no lease (docs/api-decisions.md). */
  lease_seconds: number | null;
  /** Patterns of identifiers that take no slot, stored normalised (exempt-identifiers.ts). */
  exempt_identifiers: string[];
  /** How many exempt activations a license may hold. */
  exempt_limit: number;
  created_at: Date;
}

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
   * What its activations take of its stored record (mongo-stores.ts `activationBytes`): a
   * license's activations are kept with it, so they are bounded by MAX_ACTIVATION_BYTES.
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
 * What issuing a license stores; it starts without activations, checks or pending plan change,
 * and without customer or metadata unless given.
 */
export type NewLicense = Omit<
  LicenseRecord,
  | 'activations_used'
  | 'exempt_used'
  | 'activations_bytes'
  | 'last_check_at'
  | 'last_check_ip'
  | 'check_count'
  | 'created_at'
  | 'pending_plan_id'
  | 'customer'
  | 'metadata'
> &
  Partial<Pick<LicenseRecord, 'customer' | 'metadata'>>;

/**
 * An activation to claim a slot for: the store derives its key from the identifier; no license
 * file has been issued for it yet.
 */
export type NewActivation = Omit<ActivationRecord, 'identifier_key' | 'last_checkout_at'>;

/** An activation that lapsed and was removed (its lease ran out), with its license after. */
export interface LapsedRelease {
  license: LicenseRecord;
  released: ActivationRecord[];
}

/** What an admin may change on a license (spec 3.3), and its customer and metadata. */
export type LicenseChanges = Partial<
  Pick<LicenseRecord, 'status' | 'expires_at' | 'activation_limit' | 'customer' | 'metadata'>
>;

/**
 * Spec 3.3: what a license takes from a plan applied to it: the plan, its limit and its type,
 * and its lease and exemption settings with them.
 */
export type PlanTerms = Pick<
  PlanRecord,
  | 'id'
  | 'activation_type'
  | 'activation_limit'
  | 'lease_seconds'
  | 'exempt_identifiers'
  | 'exempt_limit'
>;

/** What an admin may change of a plan. */
export type PlanChanges = Partial<
  Pick<PlanRecord, 'name' | 'lease_seconds' | 'exempt_identifiers' | 'exempt_limit'>
>;

/** Spec 3.3: what a renewal writes (rules.ts `decideRenewal` decides it). */
export interface LicenseRenewal {
  status: LicenseStatus;
  expires_at: Date;
  /** Left as it is when undefined; null clears it. */
  next_payment_at?: Date | null;
  /** Checkout: the plan the license takes, limit and type reset, pending change cleared. */
  plan?: PlanTerms;
}

/**
 * What a renewal was decided on: it is written only while the license is still so. The expiry
 * is part of it so that the expiry it replaces is known exactly (`license.renewed`).
 */
export type RenewalBasis = Pick<
  LicenseRecord,
  'status' | 'plan_id' | 'pending_plan_id' | 'expires_at'
>;

/** What an admin search filters on (all given filters hold). */
export interface LicenseFilters {
  productId: number | null;
  planId: number | null;
  /** The reported status (spec 3.1): an active license past its expiry date is `expired`. */
  status: LicenseStatus | null;
  /**
   * A license matches when its key starts with `keyPrefix` (case-sensitive), one of its
   * activations has one of `identifierKeys` (rules.ts `identifierSearchKeys`), its customer's
   * address is `customerEmail` (normalised), or one of its metadata values is one of
   * `metadataValues` (exactly).
   */
  text: {
    keyPrefix: string | null;
    identifierKeys: string[];
    customerEmail: string | null;
    metadataValues: string[];
  } | null;
}

/** The order of an admin's license list: a field, then the record's id, both one way. */
export interface LicenseOrder {
  field: LicenseSortField;
  descending: boolean;
}

/** The order admin lists had before they could be sorted: newest first. */
export const NEWEST_FIRST: LicenseOrder = { field: 'created_at', descending: true };

/** A page of a license's activations, in the order they were made, and how many match in all. */
export interface ActivationPage {
  activations: ActivationRecord[];
  total: number;
}

export type LicenseUpdate =
  /** The license after the change, and as it was just before it (in the same atomic update). */
  | { outcome: 'updated'; license: LicenseRecord; previous: LicenseRecord }
  | { outcome: 'unknown-license' }
  /** Its expiry is no longer the one the change was decided on; nothing was changed. */
  | { outcome: 'changed-meanwhile' }
  /** Spec 3.3: the limit asked for is below the activations in use; nothing was changed. */
  | { outcome: 'limit-below-activations'; activation_limit: number; activations_used: number };

/**
 * A store method that makes more than one write calls this immediately before each of them, so
 * a caller can stop it between two (the RPC deadline, libs/contracts/rpc.ts `CallContext`).
 */
export type BeforeEachWrite = () => void;

/**
 * A check to count (spec 4.2 rule 3), when and from where, on the license with this key if it
 * is a license of this product with this identifier activated.
 */
export interface MatchingCheck {
  licenseKey: string;
  at: Date;
  ip: string;
  /** Null: any product. */
  productId: number | null;
  /** Null: no identifier sent. */
  identifierKeys: IdentifierKeys | null;
  /**
   * The call this check answers (libs/contracts/rpc.ts `CallContext.callId`): RabbitMQ delivers
   * a request again when the replica handling it died, so a check already counted under this id
   * is not counted again. A license keeps the ids of its last RECENT_CHECKS counted checks.
   */
  checkId: string;
  /**
   * When the caller stops waiting, in epoch milliseconds: a count that has not been sent to the
   * database by then (one waiting for a connection to a stalled database) is never sent, and the
   * store throws INTERNAL_ERROR, as `CallContext.beforeWrite` does.
   */
  deadline: number;
}

/** One batch of a license list read in order (`scan`): after the cursor, at most `limit`. */
export interface LicenseScan {
  filters: LicenseFilters;
  now: Date;
  order: LicenseOrder;
  after: ListCursor | null;
  limit: number;
}

/** A batch of licenses, and the cursor of the next one (null: the list is done). */
export interface LicenseBatch {
  licenses: LicenseRecord[];
  next: ListCursor | null;
}

/**
 * How many counted checks' ids a license keeps: a redelivered request arrives within seconds
 * (its message expires with its caller's timeout), so only the last few checks of a license can
 * be delivered again, and the ids stay a small part of its record.
 */
export const RECENT_CHECKS = 16;

export interface LicenseStore {
  findByKey(licenseKey: string): Promise<LicenseRecord | null>;

  /**
   * The license with this key and its activations under any of `identifierKeys` (an
   * identifier's keys under the activation types it is valid for: rules.ts
   * `identifierKeysByType`), read together: the rules pick the one of the license's type.
   */
  findWithActivations(lookup: {
    licenseKey: string;
    identifierKeys: readonly string[];
  }): Promise<{ license: LicenseRecord; activations: ActivationRecord[] } | null>;

  /**
   * A page of the license's activations, oldest first; with `identifierKeys`, only those under
   * one of them. Pages count from 1.
   */
  listActivations(list: {
    licenseKey: string;
    identifierKeys: readonly string[] | null;
    page: number;
    perPage: number;
  }): Promise<ActivationPage>;

  /** Spec 2.1: a license key is unique; a taken one issues nothing. Issued at `now`. */
  issue(issue: {
    license: NewLicense;
    now: Date;
  }): Promise<{ outcome: 'issued'; license: LicenseRecord } | { outcome: 'key-taken' }>;

  /**
   * Spec 3.2: takes a slot in one atomic conditional update. It happens only while the license
   * is active and unexpired at `now`, the identifier is not activated on it (a lapsed activation
   * of it is replaced), fewer slots are used than its limit (or the limit is 0) or, for an exempt
   * activation, fewer exempt ones than its `exempt_limit`, and its activations fit in its record
   * (MAX_ACTIVATION_BYTES), so concurrent claims never exceed the limit. The license and the activation after the claim,
   * or null when any condition no longer holds.
   */
  claimSlot(claim: {
    licenseKey: string;
    activation: NewActivation;
    now: Date;
  }): Promise<{ license: LicenseRecord; activation: ActivationRecord } | null>;

  /**
   * Spec 3.2: removes an activation, as read (findWithActivations), and frees its slot,
   * atomically. The license after the removal and the activation removed, or null when it is no
   * longer there (released meanwhile, or the license is unknown).
   */
  releaseSlot(release: {
    licenseKey: string;
    activation: ActivationRecord;
    now: Date;
  }): Promise<{ license: LicenseRecord; released: ActivationRecord } | null>;

  /**
   * Renews the lease of an activation that has not lapsed at `now` (activate or validate with its
   * identifier): it then lapses at `until`. Whether it was renewed.
   */
  renewLease(renewal: {
    licenseKey: string;
    identifierKey: string;
    now: Date;
    until: Date;
  }): Promise<boolean>;

  /**
   * Removes the activations of a license whose lease ran out at `now` or before, each in one
   * atomic update that frees its slot only while it is still lapsed (a renewal meanwhile keeps
   * it), so that concurrent calls remove each once. The license after and what this call removed
   * (nothing when none had lapsed); null for an unknown license.
   */
  releaseLapsed(release: { licenseKey: string; now: Date }): Promise<LapsedRelease | null>;

  /** Keys of licenses with an activation lapsed at `now`, at most `limit` of them. */
  withLapsedActivations(query: { now: Date; limit: number }): Promise<string[]>;

  /**
   * A license file issued for an activation (checkout): sets its `last_checkout_at` to `at` and,
   * when `leaseExpiresAt` is not null, renews its lease to it, if the license is active and
   * unexpired at `at`, its `lease_seconds` is still `leaseSeconds` (the lease the file was decided
   * on) and the identifier (in any letter case) is activated on it and not lapsed at `at`. Whether
   * it was written: false when any of these does not hold (or the license is unknown).
   */
  recordCheckout(checkout: {
    licenseKey: string;
    identifier: string;
    at: Date;
    leaseSeconds: number | null;
    leaseExpiresAt: Date | null;
  }): Promise<boolean>;

  /**
   * Spec 4.2 rule 3 in one round trip: counts a check (sets last_check_at and last_check_ip,
   * increments check_count) on the license with this key if it is a license of `productId` (when
   * not null) and has an activation under the key its activation type gives the identifier (when
   * not null), and has not counted a check under `checkId` yet; the same atomic update keeps
   * `checkId` among the license's last RECENT_CHECKS. The license after the count, or null when
   * it does not match or the check was counted already, and nothing was written.
   */
  touchCheckIfMatching(check: MatchingCheck): Promise<LicenseRecord | null>;

  /**
   * Spec 3.3: changes status, expiry and limit, customer and metadata in one atomic update. A
   * limit other than 0 below the activations in use refuses the whole change; so does an expiry
   * other than `expected.expires_at`, when given (a change decided on the expiry read).
   */
  update(update: {
    licenseKey: string;
    changes: LicenseChanges;
    now: Date;
    expected?: Pick<LicenseRecord, 'expires_at'>;
  }): Promise<LicenseUpdate>;

  /**
   * Spec 3.3, a plan change applied now: the license takes the plan, its limit and its type, in
   * one update; a pending plan change is cleared. The license after it and as it was just before
   * it (in the same atomic update), or null when unknown.
   */
  changePlan(change: {
    licenseKey: string;
    plan: PlanTerms;
    now: Date;
  }): Promise<{ license: LicenseRecord; previous: LicenseRecord } | null>;

  /**
   * Spec 3.3, a plan change at renewal: stored as pending, for the next checkout renewal. The
   * license after it, or null when unknown.
   */
  schedulePlanChange(change: {
    licenseKey: string;
    planId: number;
    now: Date;
  }): Promise<LicenseRecord | null>;

  /**
   * Spec 3.3: writes a renewal in one atomic conditional update, only while the license's status,
   * plan and pending plan change are still those of `basis` (what the renewal was decided on).
   * The license after it, or null when it changed meanwhile (or is unknown).
   */
  renew(renewal: {
    licenseKey: string;
    basis: RenewalBasis;
    renewal: LicenseRenewal;
    now: Date;
  }): Promise<LicenseRecord | null>;

  /**
   * Admin search: the licenses matching every filter in `order` (ties broken by the order they
   * were issued in, the same way), one page of them, and how many match in all.
   */
  search(search: {
    filters: LicenseFilters;
    now: Date;
    order: LicenseOrder;
    page: number;
    perPage: number;
  }): Promise<{ licenses: LicenseRecord[]; total: number }>;

  /**
   * The same list a batch at a time: up to `limit` licenses after the cursor `after` (null: from
   * the start), and the cursor of the last one, null once the list has no more. However far
   * into the list, a batch costs what the first does.
   */
  scan(scan: LicenseScan): Promise<LicenseBatch>;

  /**
   * Spec 3.1, the expiry task's selection: up to `limit` active licenses whose expiry date is
   * `now` or earlier.
   */
  pastDue(query: { now: Date; limit: number }): Promise<LicenseRecord[]>;

  /**
   * Spec 3.1: the licenses given, as `pastDue` read them at `now`, become `expired` in one write,
   * each only while it is still as read: active, with the expiry date read, `now` or earlier. So a
   * license renewed since is left alone, and of runs at once each license is expired by one. The
   * licenses this write expired, as written.
   */
  expirePastDue(batch: { licenses: LicenseRecord[]; now: Date }): Promise<LicenseRecord[]>;

  /**
   * What is in use at `now` (the admin overview), of one product's licenses or (null) all of
   * them: the licenses whose reported status is active (spec 3.1), the slots their activations
   * take (`activations_used`), and how many of them expire after `now` and by `expiringBy`.
   */
  currentFigures(query: {
    productId: number | null;
    now: Date;
    expiringBy: Date;
  }): Promise<LicenseFigures>;
}

/** What `LicenseStore.currentFigures` counts. */
export interface LicenseFigures {
  active: number;
  activationsInUse: number;
  expiring: number;
}

/**
 * Plan names are unique (docs/api-decisions.md, "Plan names", compared as rules.ts `planNameKey`
 * compares them), kept so by the write itself: of creations or renames to one name at the same
 * time, one is written, and the others are told the plan that has it.
 */
export interface PlanNameTakenOutcome {
  outcome: 'name-taken';
  holder: PlanRecord;
}

export interface PlanStore {
  /**
   * Under the id an admin chose, or under the next id of the plan sequence (skipping ids admins
   * chose). A chosen id already taken, or a name another plan has, creates nothing. Created at
   * `now`.
   */
  create(creation: {
    plan: Omit<PlanRecord, 'id' | 'created_at'>;
    id?: number;
    now: Date;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<
    { outcome: 'created'; plan: PlanRecord } | { outcome: 'id-taken' } | PlanNameTakenOutcome
  >;

  find(id: number): Promise<PlanRecord | null>;

  /**
   * Changes what an admin may change of a plan. The plan after, or null when unknown; a name that
   * another plan has changes nothing.
   */
  update(update: {
    id: number;
    changes: PlanChanges;
  }): Promise<{ outcome: 'updated'; plan: PlanRecord } | PlanNameTakenOutcome | null>;

  /** Every plan, by id. */
  list(): Promise<PlanRecord[]>;
}

export interface RejectedAttemptStore {
  /**
   * Spec 2.5: creates the row of this license and identifier with one try, or adds a try to it.
   * Two first refusals racing to create the row count as two tries of one row.
   */
  record(attempt: {
    licenseKey: string;
    identifier: string;
    /** The last try's name, reason and source replace those of the ones before. */
    name: string | null;
    reason: RejectionReason;
    source: ActivationSource;
    at: Date;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<void>;

  /** The rows of a license, the latest try first. */
  listForLicense(licenseKey: string): Promise<RejectedAttemptRecord[]>;

  /** Spec 2.5: removes the rows whose last try is at `date` or earlier. */
  pruneUntouchedSince(date: Date): Promise<number>;
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

export interface TaskRunStore {
  /**
   * Keeps a run as its task's last run: one record per task. A run that started before the one
   * already kept is not kept (replicas may finish runs out of order).
   */
  recordRun(run: TaskRunRecord): Promise<void>;

  /** The last run of every task that has run. */
  lastRuns(): Promise<TaskRunRecord[]>;

  /**
   * When the scheduler runs a recurring task next: the `nextRunAt` of the scheduler's own record
   * of the job (services/license/scheduler.ts). Null when no replica schedules it.
   */
  nextScheduledRun(job: { jobName: string }): Promise<Date | null>;
}

export interface LicenseStores {
  licenses: LicenseStore;
  plans: PlanStore;
  rejectedAttempts: RejectedAttemptStore;
  taskRuns: TaskRunStore;
}
