import type {
  LicenseChanges,
  LicenseRenewal,
  LicenseStore,
  LicenseUpdate,
  NewLicense,
  PlanTerms,
  RenewalBasis,
  StoreIssue,
  StoreSale,
} from '../../services/license/licenses/license-store.js';
import type {
  ActivationRecord,
  LicenseRecord,
  StoreRefsRecord,
} from '../../services/license/records.js';
import { deepCopy as copy } from './deep-copy.js';
import { MemoryActivationStore } from './memory-activation-store.js';
import { roundTrip } from './memory-license-table.js';
import { addStoreRefsIn, storeLicenseIn } from './memory-store-licenses.js';

/** Spec 3.3: a plan applied to a license sets its plan, limit and type. */
function applyPlan(license: LicenseRecord, activations: ActivationRecord[], plan: PlanTerms): void {
  license.plan_id = plan.id;
  license.activation_type = plan.activation_type;
  license.activation_limit = plan.activation_limit;
  license.lease_seconds = plan.lease_seconds;
  license.exempt_identifiers = [...plan.exempt_identifiers];
  license.exempt_limit = plan.exempt_limit;
  license.pending_plan_id = null;
  // A plan without a lease leaves no activation that lapses.
  if (plan.lease_seconds === null) {
    for (const activation of activations) activation.lease_expires_at = null;
  }
}

/**
 * The in-memory license store (services/license/licenses/license-store.ts): a license issued, changed,
 * moved to a plan, renewed and expired, and its activations (MemoryActivationStore).
 */
export class MemoryLicenseStore extends MemoryActivationStore implements LicenseStore {
  async issue({
    license,
    now,
  }: {
    license: NewLicense;
    now: Date;
  }): Promise<{ outcome: 'issued'; license: LicenseRecord } | { outcome: 'key-taken' }> {
    await roundTrip();
    return this.insert(license, now);
  }

  /** The issue itself, in one step: nothing else runs between its check and its write. */
  private insert(
    license: NewLicense,
    now: Date,
  ): { outcome: 'issued'; license: LicenseRecord } | { outcome: 'key-taken' } {
    if (this.table.byKey.has(license.license_key)) return { outcome: 'key-taken' };
    const issued: LicenseRecord = {
      ...copy(license),
      customer: copy(license.customer ?? null),
      store: copy(license.store ?? null),
      metadata: { ...license.metadata },
      activations_used: 0,
      exempt_used: 0,
      activations_bytes: 0,
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      created_at: copy(now),
      pending_plan_id: null,
    };
    this.table.byKey.set(issued.license_key, issued);
    this.table.activationsOf.set(issued.license_key, []);
    this.table.issueOrder.set(issued.license_key, this.table.issueOrder.size);
    this.counter.writes++;
    return { outcome: 'issued', license: copy(issued) };
  }

  async findByStore(sale: StoreSale): Promise<LicenseRecord | null> {
    await roundTrip();
    return copy(storeLicenseIn(this.table, sale));
  }

  async issueForStore({
    license,
    now,
  }: {
    license: NewLicense & { store: StoreRefsRecord };
    now: Date;
  }): Promise<StoreIssue> {
    await roundTrip();
    // Found and issued in one step, as the MongoDB store's unique indexes make it one.
    const found = storeLicenseIn(this.table, license.store);
    if (!found) return this.insert(license, now);
    addStoreRefsIn(this.table, found, license.store);
    return { outcome: 'existing', license: copy(found) };
  }

  async update({
    licenseKey,
    changes,
    expected,
  }: {
    licenseKey: string;
    changes: LicenseChanges;
    now: Date;
    expected?: Pick<LicenseRecord, 'expires_at'>;
  }): Promise<LicenseUpdate> {
    await roundTrip();
    const license = this.table.byKey.get(licenseKey);
    if (!license) return { outcome: 'unknown-license' };
    if (expected && license.expires_at?.getTime() !== expected.expires_at?.getTime()) {
      return { outcome: 'changed-meanwhile' };
    }
    const limit = changes.activation_limit;
    if (limit !== undefined && limit !== 0 && license.activations_used > limit) {
      return {
        outcome: 'limit-below-activations',
        activation_limit: limit,
        activations_used: license.activations_used,
      };
    }
    const previous = copy(license);
    if (changes.status !== undefined) license.status = changes.status;
    if (changes.expires_at !== undefined) license.expires_at = copy(changes.expires_at);
    if (limit !== undefined) license.activation_limit = limit;
    if (changes.customer !== undefined) license.customer = copy(changes.customer);
    if (changes.metadata !== undefined) license.metadata = { ...changes.metadata };
    if (changes.auto_renew !== undefined) license.auto_renew = changes.auto_renew;
    if (changes.next_payment_at !== undefined) {
      license.next_payment_at = copy(changes.next_payment_at);
    }
    this.counter.writes++;
    return { outcome: 'updated', license: copy(license), previous };
  }

  async changePlan({
    licenseKey,
    plan,
  }: {
    licenseKey: string;
    plan: PlanTerms;
    now: Date;
  }): Promise<{ license: LicenseRecord; previous: LicenseRecord } | null> {
    await roundTrip();
    const license = this.table.byKey.get(licenseKey);
    if (!license) return null;
    const previous = copy(license);
    applyPlan(license, this.table.activationsOf.get(licenseKey) ?? [], plan);
    this.counter.writes++;
    return { license: copy(license), previous };
  }

  async schedulePlanChange({
    licenseKey,
    planId,
  }: {
    licenseKey: string;
    planId: number;
    now: Date;
  }): Promise<LicenseRecord | null> {
    await roundTrip();
    const license = this.table.byKey.get(licenseKey);
    if (!license) return null;
    license.pending_plan_id = planId;
    this.counter.writes++;
    return copy(license);
  }

  async renew({
    licenseKey,
    basis,
    renewal,
  }: {
    licenseKey: string;
    basis: RenewalBasis;
    renewal: LicenseRenewal;
    now: Date;
  }): Promise<LicenseRecord | null> {
    await roundTrip();
    // From here to the return: one synchronous check-and-write, like the conditional update.
    const license = this.table.byKey.get(licenseKey);
    if (
      !license ||
      license.status !== basis.status ||
      license.plan_id !== basis.plan_id ||
      license.pending_plan_id !== basis.pending_plan_id ||
      license.expires_at?.getTime() !== basis.expires_at?.getTime()
    ) {
      return null;
    }
    license.status = renewal.status;
    license.expires_at = copy(renewal.expires_at);
    if (renewal.next_payment_at !== undefined) {
      license.next_payment_at = copy(renewal.next_payment_at);
    }
    if (renewal.plan)
      applyPlan(license, this.table.activationsOf.get(licenseKey) ?? [], renewal.plan);
    this.counter.writes++;
    return copy(license);
  }

  async pastDue({
    now,
    limit,
    graceDays = new Map(),
  }: {
    now: Date;
    limit: number;
    graceDays?: ReadonlyMap<number, number>;
  }): Promise<LicenseRecord[]> {
    await roundTrip();
    const graceMs = (planId: number) => (graceDays.get(planId) ?? 0) * 86_400_000;
    return [...this.table.byKey.values()]
      .filter(
        (license) =>
          license.status === 'active' &&
          license.expires_at !== null &&
          license.expires_at.getTime() + graceMs(license.plan_id) <= now.getTime(),
      )
      .slice(0, limit)
      .map(copy);
  }

  async expirePastDue({
    licenses,
    now,
  }: {
    licenses: LicenseRecord[];
    now: Date;
  }): Promise<LicenseRecord[]> {
    await roundTrip();
    const expired: LicenseRecord[] = [];
    for (const read of licenses) {
      const license = this.table.byKey.get(read.license_key);
      const readExpiry = read.expires_at?.getTime() ?? null;
      if (
        license?.status !== 'active' ||
        readExpiry === null ||
        readExpiry > now.getTime() ||
        license.expires_at?.getTime() !== readExpiry
      ) {
        continue;
      }
      license.status = 'expired';
      expired.push(copy(license));
    }
    // One write, however many licenses it expires.
    if (expired.length > 0) this.counter.writes++;
    return expired;
  }

  /** The expiry whose grace was announced, by license key (mongo: `grace_started_for`). */
  private readonly graceStartedFor = new Map<string, number>();

  async startGrace({
    now,
    limit,
    graceDays,
  }: {
    now: Date;
    limit: number;
    graceDays: ReadonlyMap<number, number>;
  }): Promise<LicenseRecord[]> {
    await roundTrip();
    const marked = [...this.table.byKey.values()]
      .filter((license) => {
        const days = graceDays.get(license.plan_id);
        const expiry = license.expires_at?.getTime();
        return (
          license.status === 'active' &&
          days !== undefined &&
          expiry !== undefined &&
          expiry <= now.getTime() &&
          expiry + days * 86_400_000 > now.getTime() &&
          this.graceStartedFor.get(license.license_key) !== expiry
        );
      })
      .slice(0, limit);
    for (const license of marked) {
      this.graceStartedFor.set(license.license_key, license.expires_at!.getTime());
    }
    return marked.map(copy);
  }
}
