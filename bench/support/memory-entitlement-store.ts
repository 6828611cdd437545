import type { EntitlementStore } from '../../services/license/entitlements/entitlement-store.js';
import type {
  EntitlementRecord,
  LicenseEntitlementRecord,
} from '../../services/license/records.js';
import { deepCopy as copy } from './deep-copy.js';
import { roundTrip, type MemoryLicenseTable } from './memory-license-table.js';

const byCode = (a: { code: string }, b: { code: string }) => (a.code < b.code ? -1 : 1);

/** The entitlement store in memory, with the MongoDB store's semantics (unique codes and grants). */
export class MemoryEntitlementStore implements EntitlementStore {
  private readonly definitions = new Map<string, EntitlementRecord>();
  /** Keyed by license key and code, as the unique index of the MongoDB store. */
  private readonly grants = new Map<string, LicenseEntitlementRecord>();

  constructor(
    private readonly counter: { writes: number },
    /** The licenses' table, where a grant marks its license (records.ts `has_own_entitlements`). */
    private readonly table: MemoryLicenseTable,
  ) {}

  async create({
    entitlement,
    now,
  }: Parameters<EntitlementStore['create']>[0]): ReturnType<EntitlementStore['create']> {
    await roundTrip();
    if (this.definitions.has(entitlement.code)) return { outcome: 'code-taken' };
    const created = { ...copy(entitlement), created_at: copy(now) };
    this.definitions.set(created.code, created);
    this.counter.writes++;
    return { outcome: 'created', entitlement: copy(created) };
  }

  async find(code: string): Promise<EntitlementRecord | null> {
    await roundTrip();
    return copy(this.definitions.get(code) ?? null);
  }

  async list(): Promise<EntitlementRecord[]> {
    await roundTrip();
    return [...this.definitions.values()].sort(byCode).map(copy);
  }

  async defined(codes: readonly string[]): Promise<string[]> {
    await roundTrip();
    return codes.filter((code) => this.definitions.has(code));
  }

  async rename({ code, name }: { code: string; name: string }): Promise<EntitlementRecord | null> {
    await roundTrip();
    const found = this.definitions.get(code);
    if (!found) return null;
    found.name = name;
    this.counter.writes++;
    return copy(found);
  }

  async remove(code: string): Promise<EntitlementRecord | null> {
    await roundTrip();
    const found = this.definitions.get(code);
    if (!found) return null;
    this.definitions.delete(code);
    this.counter.writes++;
    return copy(found);
  }

  async licensesWith(code: string): Promise<number> {
    await roundTrip();
    return [...this.grants.values()].filter((grant) => grant.code === code).length;
  }

  async grant({
    licenseKey,
    code,
    expiresAt,
    now,
  }: Parameters<EntitlementStore['grant']>[0]): Promise<LicenseEntitlementRecord> {
    await roundTrip();
    const license = this.table.byKey.get(licenseKey);
    if (license) license.has_own_entitlements = true;
    const grant = {
      license_key: licenseKey,
      code,
      expires_at: copy(expiresAt),
      granted_at: copy(now),
    };
    this.grants.set(`${licenseKey}\u0000${code}`, grant);
    this.counter.writes++;
    return copy(grant);
  }

  async revoke({ licenseKey, code }: { licenseKey: string; code: string }): Promise<boolean> {
    await roundTrip();
    const removed = this.grants.delete(`${licenseKey}\u0000${code}`);
    if (removed) this.counter.writes++;
    return removed;
  }

  async forLicense(licenseKey: string): Promise<LicenseEntitlementRecord[]> {
    await roundTrip();
    return [...this.grants.values()]
      .filter((grant) => grant.license_key === licenseKey)
      .sort(byCode)
      .map(copy);
  }
}
