import type { StoreSale } from '../../services/license/licenses/license-store.js';
import type { LicenseRecord, StoreRefsRecord } from '../../services/license/records.js';
import type { MemoryLicenseTable } from './memory-license-table.js';

/**
 * The license of a store sale in the in-memory table, found as the MongoDB store finds it
 * (services/license/store-licenses/mongo-store-licenses.ts): by its subscription id, then its order id.
 */
export function storeLicenseIn(table: MemoryLicenseTable, sale: StoreSale): LicenseRecord | null {
  for (const id of ['subscription_id', 'order_id'] as const) {
    const value = sale[id];
    if (value === null) continue;
    for (const license of table.byKey.values()) {
      if (license.store?.connection_id === sale.connection_id && license.store[id] === value) {
        return license;
      }
    }
  }
  return null;
}

/**
 * The ids of the sale its license lacks, set in place, each unless another license of the
 * connection has it (as MongoDB's unique indexes refuse it).
 */
export function addStoreRefsIn(
  table: MemoryLicenseTable,
  license: LicenseRecord,
  refs: StoreRefsRecord,
): void {
  const store = license.store;
  if (!store) return;
  if (refs.customer_id !== null && store.customer_id === null) store.customer_id = refs.customer_id;
  for (const id of ['subscription_id', 'order_id'] as const) {
    const value = refs[id];
    if (value === null || store[id] !== null) continue;
    const taken = [...table.byKey.values()].some(
      (other) => other.store?.connection_id === store.connection_id && other.store[id] === value,
    );
    if (!taken) store[id] = value;
  }
}
