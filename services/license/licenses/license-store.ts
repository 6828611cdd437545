import type { LicenseStatus } from '../../../libs/contracts/index.js';
import type { ActivationStore } from '../activations/activation-store.js';
import type { LicenseRecord, PlanRecord, StoreRefsRecord } from '../records.js';

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
  | 'store'
> &
  Partial<Pick<LicenseRecord, 'customer' | 'metadata' | 'store'>>;

/**
 * What an admin may change on a license (spec 3.3), its customer and metadata, and its
 * automatic renewal and next payment date (docs/stores.md: a store's cancellation).
 */
export type LicenseChanges = Partial<
  Pick<
    LicenseRecord,
    | 'status'
    | 'expires_at'
    | 'activation_limit'
    | 'customer'
    | 'metadata'
    | 'auto_renew'
    | 'next_payment_at'
  >
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

/** Spec 3.3: what a renewal writes (services/license/rules.ts `decideRenewal` decides it). */
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

export type LicenseUpdate =
  /** The license after the change, and as it was just before it (in the same atomic update). */
  | { outcome: 'updated'; license: LicenseRecord; previous: LicenseRecord }
  | { outcome: 'unknown-license' }
  /** Its expiry is no longer the one the change was decided on; nothing was changed. */
  | { outcome: 'changed-meanwhile' }
  /** Spec 3.3: the limit asked for is below the activations in use; nothing was changed. */
  | { outcome: 'limit-below-activations'; activation_limit: number; activations_used: number };

/** A store sale, by the ids a license of it is found by (docs/stores.md). */
export type StoreSale = Pick<StoreRefsRecord, 'connection_id' | 'order_id' | 'subscription_id'>;

export type StoreIssue =
  | { outcome: 'issued'; license: LicenseRecord }
  /** The sale had its license already: it, with the sale's ids it lacked added. */
  | { outcome: 'existing'; license: LicenseRecord }
  | { outcome: 'key-taken' };

/**
 * The licenses of store sales (docs/stores.md): one per sale, found by the store's ids. A sale is
 * its connection with its subscription id, or with its order id; a license has at most one of
 * each, kept unique by the database (license-indexes.ts `licenseIndexes`), so that calls at once for one
 * sale make one license.
 */
export interface StoreLicenseStore {
  /** The license of the sale's subscription, else of its order; null when it has none. */
  findByStore(sale: StoreSale): Promise<LicenseRecord | null>;

  /**
   * Issues the sale's license unless it has one (as `findByStore` finds it); then that one is
   * answered, its order or subscription id (and customer id) set when it had none and no other
   * license of the connection has it. At `now`; a taken key issues nothing.
   */
  issueForStore(issue: {
    license: NewLicense & { store: StoreRefsRecord };
    now: Date;
  }): Promise<StoreIssue>;
}

/**
 * The write store of licenses (spec 2.2, 3.1, 3.2, 3.3): what the handlers and the scheduled
 * tasks read to decide on and then change, each change one atomic conditional update: a license
 * issued, changed, moved to a plan, renewed and expired, and its activations (ActivationStore).
 * The admin's lists, searches, exports and figures read through the LicenseReadModel.
 */
export interface LicenseStore extends ActivationStore, StoreLicenseStore {
  findByKey(licenseKey: string): Promise<LicenseRecord | null>;

  /** Spec 2.1: a license key is unique; a taken one issues nothing. Issued at `now`. */
  issue(issue: {
    license: NewLicense;
    now: Date;
  }): Promise<{ outcome: 'issued'; license: LicenseRecord } | { outcome: 'key-taken' }>;

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
   * Spec 3.1, the expiry task's selection: up to `limit` active licenses whose expiry date is
   * `now` or earlier; for a license of a plan in `graceDays` (plan id to its grace days), whose
   * expiry plus those days is (docs/api-decisions.md, "Expiry strategies").
   */
  pastDue(query: {
    now: Date;
    limit: number;
    graceDays?: ReadonlyMap<number, number>;
  }): Promise<LicenseRecord[]>;

  /**
   * Spec 3.1: the licenses given, as `pastDue` read them at `now`, become `expired` in one write,
   * each only while it is still as read: active, with the expiry date read, `now` or earlier. So a
   * license renewed since is left alone, and of runs at once each license is expired by one. The
   * licenses this write expired, as written.
   */
  expirePastDue(batch: { licenses: LicenseRecord[]; now: Date }): Promise<LicenseRecord[]>;

  /**
   * Expiry strategies: marks, once per expiry date, up to `limit` active licenses of the plans in
   * `graceDays` whose expiry is `now` or earlier and whose grace has not ended, as having entered
   * their grace. Each mark is one conditional update, so of runs at once each license is marked by
   * one, and a renewal (a new expiry) lets it be marked again. The licenses this call marked.
   */
  startGrace(query: {
    now: Date;
    limit: number;
    graceDays: ReadonlyMap<number, number>;
  }): Promise<LicenseRecord[]>;
}
