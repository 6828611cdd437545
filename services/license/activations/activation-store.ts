import type { IdentifierKeys } from '../rules.js';
import type { ActivationRecord, LicenseRecord } from '../records.js';

/** A license's status and expiry as a decision read them, which a write checks are unchanged. */
export type UsableAsRead = Pick<LicenseRecord, 'status' | 'expires_at'>;

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

/**
 * How many counted checks' ids a license keeps: a redelivered request arrives within seconds
 * (its message expires with its caller's timeout), so only the last few checks of a license can
 * be delivered again, and the ids stay a small part of its record.
 */
export const RECENT_CHECKS = 16;

/**
 * The license store's share that reads and writes a license's activations, as the rules decide
 * on them (spec 3.2, 4.2 rule 3, license files, leases): claims, releases, lease renewals and
 * lapses, checkouts and counted checks. Each write is one atomic conditional update of the
 * license with its activations, so concurrent calls never break a rule between read and write.
 */
export interface ActivationStore {
  /**
   * The license with this key and its activations under any of `identifierKeys` (an
   * identifier's keys under the activation types it is valid for: services/license/rules.ts
   * `identifierKeysByType`), read together: the rules pick the one of the license's type.
   */
  findWithActivations(lookup: {
    licenseKey: string;
    identifierKeys: readonly string[];
  }): Promise<{ license: LicenseRecord; activations: ActivationRecord[] } | null>;

  /**
   * Spec 3.2: takes a slot in one atomic conditional update. It happens only while the license
   * is active and unexpired at `now`, the identifier is not activated on it (a lapsed activation
   * of it is replaced), fewer slots are used than its limit (or the limit is 0) or, for an exempt
   * activation, fewer exempt ones than its `exempt_limit`, and its activations fit in its record
   * (MAX_ACTIVATION_BYTES), so concurrent claims never exceed the limit. The license and the activation after the claim,
   * or null when any condition no longer holds. With `asRead`, "active and unexpired" is instead
   * "its status and expiry still as read": a plan's expiry strategy decided on them
   * (lifecycle/expiry-rules.ts).
   */
  claimSlot(claim: {
    licenseKey: string;
    activation: NewActivation;
    now: Date;
    asRead?: UsableAsRead;
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
   * it was written: false when any of these does not hold (or the license is unknown). With
   * `asRead`, as `claimSlot`'s.
   */
  recordCheckout(checkout: {
    licenseKey: string;
    identifier: string;
    at: Date;
    leaseSeconds: number | null;
    leaseExpiresAt: Date | null;
    asRead?: UsableAsRead;
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
}
