import { identifierKey } from '../../libs/identifier/index.js';
import { internalError } from '../../libs/contracts/index.js';
import {
  RECENT_CHECKS,
  type ActivationStore,
  type LapsedRelease,
  type MatchingCheck,
  type NewActivation,
  type UsableAsRead,
} from '../../services/license/activations/activation-store.js';
import { activationBytes } from '../../services/license/licenses/mongo-license-documents.js';
import {
  MAX_ACTIVATION_BYTES,
  type ActivationRecord,
  type LicenseRecord,
} from '../../services/license/records.js';
import { deepCopy as copy } from './deep-copy.js';
import { liveAt, roundTrip, unexpiredAt, type MemoryLicenseTable } from './memory-license-table.js';

/**
 * As services/license/activations/mongo-activation-store.ts `usableFilter`: as read, or active and
 * unexpired at `now`.
 */
function usable(license: LicenseRecord, asRead: UsableAsRead | undefined, now: Date): boolean {
  if (!asRead) return license.status === 'active' && unexpiredAt(license, now);
  return (
    license.status === asRead.status &&
    license.expires_at?.getTime() === asRead.expires_at?.getTime()
  );
}

/**
 * The in-memory license store's share for activations (services/license/activations/activation-store.ts):
 * every conditional write checked and applied in one synchronous step, with no `await` between
 * the check and the write, as a single-document update in MongoDB.
 */
export class MemoryActivationStore implements ActivationStore {
  constructor(
    protected readonly table: MemoryLicenseTable,
    protected readonly counter: { writes: number },
  ) {}

  async findByKey(licenseKey: string): Promise<LicenseRecord | null> {
    await roundTrip();
    const license = this.table.byKey.get(licenseKey);
    return license ? copy(license) : null;
  }

  async findWithActivations({
    licenseKey,
    identifierKeys,
  }: {
    licenseKey: string;
    identifierKeys: readonly string[];
  }): Promise<{ license: LicenseRecord; activations: ActivationRecord[] } | null> {
    await roundTrip();
    const license = this.table.byKey.get(licenseKey);
    if (!license) return null;
    const activations = (this.table.activationsOf.get(licenseKey) ?? []).filter((a) =>
      identifierKeys.includes(a.identifier_key),
    );
    return { license: copy(license), activations: activations.map(copy) };
  }

  /** Test setup: activations recorded as they are, slots counted, no rule checked. */
  seedActivations(licenseKey: string, activations: readonly NewActivation[]): void {
    const license = this.table.byKey.get(licenseKey);
    if (!license) throw new Error(`No license ${licenseKey}.`);
    const list = this.table.activationsOf.get(licenseKey) ?? [];
    for (const activation of activations) {
      list.push({
        ...copy(activation),
        identifier_key: identifierKey(activation.identifier),
        last_checkout_at: null,
      });
    }
    this.table.activationsOf.set(licenseKey, list);
    license.activations_used = list.filter((a) => !a.exempt).length;
    license.exempt_used = list.filter((a) => a.exempt).length;
    license.activations_bytes = list.reduce((sum, a) => sum + activationBytes(a), 0);
  }

  /** Test setup: the record as full as `bytes` says, as if activations took that much of it. */
  fillRecord(licenseKey: string, bytes: number): void {
    const license = this.table.byKey.get(licenseKey);
    if (!license) throw new Error(`No license ${licenseKey}.`);
    license.activations_bytes = bytes;
  }

  async claimSlot({
    licenseKey,
    activation,
    now,
    asRead,
  }: {
    licenseKey: string;
    activation: NewActivation;
    now: Date;
    asRead?: UsableAsRead;
  }): Promise<{ license: LicenseRecord; activation: ActivationRecord } | null> {
    await roundTrip();
    // From here to the return: one synchronous check-and-write, like the conditional update.
    const license = this.table.byKey.get(licenseKey);
    const list = this.table.activationsOf.get(licenseKey);
    const key = identifierKey(activation.identifier);
    const recorded: ActivationRecord = {
      ...copy(activation),
      identifier_key: key,
      last_checkout_at: null,
    };
    const bytes = activationBytes(recorded);
    const slotFree = activation.exempt
      ? license !== undefined && license.exempt_used < license.exempt_limit
      : license !== undefined &&
        (license.activation_limit === 0 || license.activations_used < license.activation_limit);
    if (
      !license ||
      !list ||
      !usable(license, asRead, now) ||
      list.some((a) => a.identifier_key === key) ||
      license.activations_bytes > MAX_ACTIVATION_BYTES - bytes ||
      !slotFree
    ) {
      return null;
    }
    list.push(recorded);
    if (activation.exempt) license.exempt_used++;
    else license.activations_used++;
    license.activations_bytes += bytes;
    this.counter.writes++;
    return { license: copy(license), activation: copy(recorded) };
  }

  async releaseSlot({
    licenseKey,
    activation,
  }: {
    licenseKey: string;
    activation: ActivationRecord;
    now: Date;
  }): Promise<{ license: LicenseRecord; released: ActivationRecord } | null> {
    await roundTrip();
    // This very activation, as read, like the conditional update.
    const license = this.table.byKey.get(licenseKey);
    const list = this.table.activationsOf.get(licenseKey);
    const at =
      list?.findIndex(
        (a) =>
          a.identifier_key === activation.identifier_key &&
          a.identifier === activation.identifier &&
          a.activated_at.getTime() === activation.activated_at.getTime(),
      ) ?? -1;
    if (!license || !list || at === -1) return null;
    const [released] = list.splice(at, 1);
    this.freeSlot(license, released!);
    this.counter.writes++;
    return { license: copy(license), released: copy(released!) };
  }

  protected freeSlot(license: LicenseRecord, activation: ActivationRecord): void {
    if (activation.exempt) license.exempt_used--;
    else license.activations_used--;
    license.activations_bytes -= activationBytes(activation);
  }

  async renewLease({
    licenseKey,
    identifierKey: key,
    now,
    until,
  }: {
    licenseKey: string;
    identifierKey: string;
    now: Date;
    until: Date;
  }): Promise<boolean> {
    await roundTrip();
    const activation = this.table.activationsOf
      .get(licenseKey)
      ?.find((a) => a.identifier_key === key && liveAt(a, now));
    if (!activation) return false;
    activation.lease_expires_at = copy(until);
    this.counter.writes++;
    return true;
  }

  async releaseLapsed({
    licenseKey,
    now,
  }: {
    licenseKey: string;
    now: Date;
  }): Promise<LapsedRelease | null> {
    await roundTrip();
    const license = this.table.byKey.get(licenseKey);
    const list = this.table.activationsOf.get(licenseKey);
    if (!license || !list) return null;
    const lapsed = list.filter((a) => !liveAt(a, now)).map(copy);
    const released: ActivationRecord[] = [];
    for (const activation of lapsed) {
      await roundTrip();
      // Each removed in its own step, only while still lapsed, like the conditional update.
      const at = list.findIndex(
        (a) => a.identifier_key === activation.identifier_key && !liveAt(a, now),
      );
      if (at === -1) continue;
      const [removed] = list.splice(at, 1);
      this.freeSlot(license, removed!);
      this.counter.writes++;
      released.push(copy(removed!));
    }
    return { license: copy(license), released };
  }

  async withLapsedActivations({ now, limit }: { now: Date; limit: number }): Promise<string[]> {
    await roundTrip();
    return [...this.table.activationsOf]
      .filter(([, list]) => list.some((a) => !liveAt(a, now)))
      .map(([key]) => key)
      .slice(0, limit);
  }

  async recordCheckout({
    licenseKey,
    identifier,
    at,
    leaseSeconds,
    leaseExpiresAt,
    asRead,
  }: {
    licenseKey: string;
    identifier: string;
    at: Date;
    leaseSeconds: number | null;
    leaseExpiresAt: Date | null;
    asRead?: UsableAsRead;
  }): Promise<boolean> {
    await roundTrip();
    const license = this.table.byKey.get(licenseKey);
    if (!license || !usable(license, asRead, at)) return false;
    if (license.lease_seconds !== leaseSeconds) return false;
    const key = identifierKey(identifier);
    const activation = this.table.activationsOf
      .get(licenseKey)
      ?.find((a) => a.identifier_key === key && liveAt(a, at));
    if (!activation) return false;
    activation.last_checkout_at = copy(at);
    if (leaseExpiresAt !== null) activation.lease_expires_at = copy(leaseExpiresAt);
    this.counter.writes++;
    return true;
  }

  async touchCheckIfMatching({
    licenseKey,
    productId,
    identifierKeys,
    at,
    ip,
    checkId,
    deadline,
  }: MatchingCheck): Promise<LicenseRecord | null> {
    await roundTrip();
    // The write reaches the database only now: past the deadline, it is not sent.
    if (Date.now() >= deadline) {
      throw internalError('The caller stopped waiting for this write; it was given up.');
    }
    const license = this.table.byKey.get(licenseKey);
    if (!license || (productId !== null && license.product_id !== productId)) return null;
    const recent = this.table.recentChecks.get(licenseKey) ?? [];
    if (recent.includes(checkId)) return null;
    if (identifierKeys !== null) {
      const key = identifierKeys[license.activation_type];
      const activations = this.table.activationsOf.get(licenseKey) ?? [];
      if (
        key === undefined ||
        !activations.some((a) => a.identifier_key === key && liveAt(a, at))
      ) {
        return null;
      }
    }
    license.last_check_at = copy(at);
    license.last_check_ip = ip;
    license.check_count++;
    this.table.recentChecks.set(licenseKey, [...recent, checkId].slice(-RECENT_CHECKS));
    this.counter.writes++;
    return copy(license);
  }
}
