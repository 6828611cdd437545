import type { StoredImport, WantedImport } from '../../services/license/imports/import-rules.js';
import type { ImportStore } from '../../services/license/imports/import-store.js';
import { activationBytes } from '../../services/license/licenses/mongo-license-documents.js';
import type { LicenseRecord } from '../../services/license/records.js';
import { deepCopy as copy } from './deep-copy.js';
import { roundTrip, type MemoryLicenseTable } from './memory-license-table.js';

/** What an import sets of a license, as the MongoDB import store sets it. */
function imported(
  { license, activations }: WantedImport,
  kept: Pick<
    LicenseRecord,
    'last_check_at' | 'last_check_ip' | 'check_count' | 'created_at' | 'pending_plan_id'
  > &
    Pick<LicenseRecord, 'metadata' | 'store'>,
): LicenseRecord {
  return {
    ...copy(license),
    last_check_at: copy(kept.last_check_at),
    last_check_ip: kept.last_check_ip,
    check_count: kept.check_count,
    created_at: copy(kept.created_at),
    pending_plan_id: kept.pending_plan_id,
    metadata: { ...kept.metadata },
    store: copy(kept.store),
    customer: copy(license.customer ?? null),
    activations_used: activations.filter((a) => !a.exempt).length,
    exempt_used: activations.filter((a) => a.exempt).length,
    activations_bytes: activations.reduce((sum, a) => sum + activationBytes(a), 0),
  };
}

/**
 * The import store in memory (services/license/imports/mongo-import-store.ts), on the table the
 * license store and read model share: each license written with its activations in one step.
 */
export class MemoryImportStore implements ImportStore {
  constructor(
    private readonly table: MemoryLicenseTable,
    private readonly counter: { writes: number },
  ) {}

  async findForImport(licenseKeys: readonly string[]): Promise<Map<string, StoredImport>> {
    await roundTrip();
    const found = new Map<string, StoredImport>();
    for (const key of licenseKeys) {
      const license = this.table.byKey.get(key);
      if (!license) continue;
      const activations = (this.table.activationsOf.get(key) ?? []).map((a) => ({
        identifier_key: a.identifier_key,
        exempt: a.exempt,
      }));
      found.set(key, { license: copy(license), activations });
    }
    return found;
  }

  async createImported({ licenses, now }: { licenses: WantedImport[]; now: Date }) {
    await roundTrip();
    const taken: string[] = [];
    for (const wanted of licenses) {
      const key = wanted.license.license_key;
      if (this.table.byKey.has(key)) {
        taken.push(key);
        continue;
      }
      const kept = {
        last_check_at: null,
        last_check_ip: null,
        check_count: 0,
        created_at: now,
        pending_plan_id: null,
        metadata: {},
        store: null,
      };
      this.table.byKey.set(key, imported(wanted, kept));
      this.table.activationsOf.set(key, copy(wanted.activations));
      this.table.issueOrder.set(key, this.table.issueOrder.size);
      this.counter.writes++;
    }
    return { taken };
  }

  async replaceImported({ licenses }: { licenses: WantedImport[]; now: Date }) {
    await roundTrip();
    for (const wanted of licenses) {
      const key = wanted.license.license_key;
      const stored = this.table.byKey.get(key);
      if (!stored) continue;
      const replaced = imported(wanted, stored);
      if (stored.has_own_entitlements) replaced.has_own_entitlements = true;
      this.table.byKey.set(key, replaced);
      this.table.activationsOf.set(key, copy(wanted.activations));
      this.counter.writes++;
    }
  }
}
