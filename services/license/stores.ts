import type { ActivationType, LicenseStatus } from '../../libs/contracts/index.js';

/**
 * The license service's persistence, in the spec's words: plans (2.1), licenses with their
 * activations (2.2, 2.3) and rejected activation attempts (2.5). Identifiers reach a store
 * normalised (2.4); the store matches them case-insensitively through their key. Every record a
 * store returns is a copy: changing it changes nothing stored.
 */

export interface PlanRecord {
  id: number;
  name: string;
  activation_type: ActivationType;
  activation_limit: number;
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
  activations: ActivationRecord[];
  last_check_at: Date | null;
  last_check_ip: string | null;
  check_count: number;
  created_at: Date;
}

/** Spec 2.5: one row per identifier and license, with a count of tries. */
export interface RejectedAttemptRecord {
  license_key: string;
  identifier: string;
  identifier_key: string;
  tries: number;
  last_attempt_at: Date;
}

/** What issuing a license stores; it starts without activations or checks. */
export type NewLicense = Omit<
  LicenseRecord,
  'activations' | 'last_check_at' | 'last_check_ip' | 'check_count' | 'created_at'
>;

/** An activation to claim a slot for: the store derives its key from the identifier. */
export type NewActivation = Omit<ActivationRecord, 'identifier_key'>;

/** What an admin may change on a license (spec 3.3). */
export type LicenseChanges = Partial<
  Pick<LicenseRecord, 'status' | 'expires_at' | 'activation_limit'>
>;

export type LicenseUpdate =
  | { outcome: 'updated'; license: LicenseRecord }
  | { outcome: 'unknown-license' }
  /** Spec 3.3: the limit asked for is below the activations in use; nothing was changed. */
  | { outcome: 'limit-below-activations'; activation_limit: number; activations_used: number };

/**
 * A store method that makes more than one write calls this immediately before each of them, so
 * a caller can stop it between two (the RPC deadline, libs/contracts/rpc.ts `CallContext`).
 */
export type BeforeEachWrite = () => void;

export interface LicenseStore {
  findByKey(licenseKey: string): Promise<LicenseRecord | null>;

  /** Spec 2.1: a license key is unique; a taken one issues nothing. */
  issue(
    license: NewLicense,
  ): Promise<{ outcome: 'issued'; license: LicenseRecord } | { outcome: 'key-taken' }>;

  /**
   * Spec 3.2: takes a slot in one atomic conditional update. It happens only while the license
   * is active and unexpired at `now`, the identifier is not activated on it, and fewer slots are
   * used than its limit (or the limit is 0), so concurrent claims never exceed the limit. The
   * license after the claim, or null when any condition no longer holds.
   */
  claimSlot(claim: {
    licenseKey: string;
    activation: NewActivation;
    now: Date;
  }): Promise<LicenseRecord | null>;

  /**
   * Spec 3.2: frees the slot of an identifier, atomically. The license after the removal and the
   * activation removed, or null when the identifier is not activated (or the license is unknown).
   */
  releaseSlot(release: {
    licenseKey: string;
    identifier: string;
  }): Promise<{ license: LicenseRecord; released: ActivationRecord } | null>;

  /** Spec 4.2 rule 3: sets last_check_at and last_check_ip, and increments check_count. */
  touchCheck(check: { licenseKey: string; at: Date; ip: string }): Promise<void>;

  /**
   * Spec 3.3: changes status, expiry and limit in one atomic update. A limit other than 0 below
   * the activations in use refuses the whole change.
   */
  update(update: { licenseKey: string; changes: LicenseChanges }): Promise<LicenseUpdate>;

  /** Spec 3.1: every active license whose expiry date is `now` or earlier becomes `expired`. */
  expirePastDue(now: Date): Promise<number>;
}

export interface PlanStore {
  /**
   * Under the id an admin chose, or under the next id of the plan sequence (skipping ids admins
   * chose). A chosen id already taken creates nothing.
   */
  create(creation: {
    plan: Omit<PlanRecord, 'id' | 'created_at'>;
    id?: number;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<{ outcome: 'created'; plan: PlanRecord } | { outcome: 'id-taken' }>;

  find(id: number): Promise<PlanRecord | null>;

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
    at: Date;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<void>;

  /** The rows of a license, the latest try first. */
  listForLicense(licenseKey: string): Promise<RejectedAttemptRecord[]>;

  /** Spec 2.5: removes the rows whose last try is at `date` or earlier. */
  pruneUntouchedSince(date: Date): Promise<number>;
}

export interface LicenseStores {
  licenses: LicenseStore;
  plans: PlanStore;
  rejectedAttempts: RejectedAttemptStore;
}
