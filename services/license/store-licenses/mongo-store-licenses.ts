import type { Collection } from 'mongodb';
import { isDuplicateKey } from '../../../libs/database/index.js';
import type { StoreSale } from '../licenses/license-store.js';
import type { LicenseDocument } from '../models.js';
import { WITHOUT_ACTIVATIONS, licenseRecord } from '../licenses/mongo-license-documents.js';
import type { LicenseRecord, StoreRefsRecord } from '../records.js';

/** The ids a sale's license is found by, in the order they are looked up, with their keys. */
const SALE_IDS = ['subscription_id', 'order_id'] as const;
const KEY_OF = { subscription_id: 'subscription_key', order_id: 'order_key' } as const;

const saleKey = (connectionId: number, value: string) => `${connectionId}:${value}`;

/**
 * The keys a sale's license is kept unique by: the connection and the id, one field each, set
 * only when the id is, under a unique sparse index (licenses/license-indexes.ts). One field, not a
 * compound index with a partial filter, so that licenses without a sale are simply not indexed.
 */
export function saleKeys(store: StoreRefsRecord): {
  subscription_key?: string;
  order_key?: string;
} {
  return {
    ...(store.subscription_id === null
      ? {}
      : { subscription_key: saleKey(store.connection_id, store.subscription_id) }),
    ...(store.order_id === null ? {} : { order_key: saleKey(store.connection_id, store.order_id) }),
  };
}

/**
 * licenses/license-store.ts `findByStore` on MongoDB: one read per id given, each served by the
 * unique index on the connection and that id (licenses/license-indexes.ts `licenseIndexes`).
 */
export async function findByStore(
  licenses: Collection<LicenseDocument>,
  sale: StoreSale,
): Promise<LicenseRecord | null> {
  for (const id of SALE_IDS) {
    const value = sale[id];
    if (value === null) continue;
    const doc = await licenses.findOne(
      { [`store.${KEY_OF[id]}`]: saleKey(sale.connection_id, value) },
      { projection: WITHOUT_ACTIVATIONS },
    );
    if (doc) return licenseRecord(doc);
  }
  return null;
}

/**
 * The ids of the sale its license lacks, set: each only while the license still has none, and
 * left out when another license of the connection has it (the unique index refuses it).
 */
export async function addStoreRefs(
  licenses: Collection<LicenseDocument>,
  found: LicenseRecord,
  refs: StoreRefsRecord,
): Promise<LicenseRecord> {
  const missing = (['subscription_id', 'order_id', 'customer_id'] as const).filter(
    (id) => refs[id] !== null && found.store?.[id] === null,
  );
  if (missing.length === 0) return found;
  let after = found;
  for (const id of missing) {
    try {
      const doc = await licenses.findOneAndUpdate(
        { license_key: found.license_key, [`store.${id}`]: null },
        {
          $set: {
            [`store.${id}`]: refs[id],
            ...(id === 'customer_id'
              ? {}
              : { [`store.${KEY_OF[id]}`]: saleKey(found.store!.connection_id, refs[id]!) }),
          },
        },
        { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
      );
      if (doc) after = licenseRecord(doc);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  return after;
}
