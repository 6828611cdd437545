import type { IndexDefinition, IndexOptions } from 'mongoose';

/**
 * The indexes of the licenses collection. Every query on it is served by one of them:
 * admin/mongo-license-read-model.ts `licenseSearchFilter` builds admin searches whose every branch
 * starts with the first field of one, and every order of the list (`licenseListOrders`) is one's
 * own (test/unit/license-search-filter.test.ts checks both).
 */
export const licenseIndexes: ReadonlyArray<{ fields: IndexDefinition; options?: IndexOptions }> = [
  // Lookups by key; an anchored, case-sensitive key prefix (admin search) is a range of it.
  { fields: { license_key: 1 }, options: { unique: true } },
  // The scheduled expiry task, and searches by reported status.
  { fields: { status: 1, expires_at: 1 } },
  // The lease task: licenses holding a lapsed activation (multikey: one entry per activation).
  { fields: { 'activations.lease_expires_at': 1 } },
  // Searches, newest first (the tie broken by _id, later issued first).
  { fields: { created_at: -1, _id: -1 } },
  { fields: { product_id: 1, created_at: -1, _id: -1 } },
  { fields: { plan_id: 1, created_at: -1, _id: -1 } },
  // Searches by activated identifier (multikey: one entry per activation).
  { fields: { 'activations.identifier_key': 1 } },
  // Searches by a customer's (normalised) e-mail address, and the list ordered by it.
  { fields: { 'customer.email': 1, _id: 1 } },
  // Searches by a metadata value under any key (multikey: one entry per metadata entry).
  { fields: { 'metadata.value': 1 } },
  // The list ordered by expiry.
  { fields: { expires_at: 1, _id: 1 } },
  // A store sale has one license (docs/stores.md): unique per connection and subscription id,
  // and per connection and order id, kept as one key each (store-licenses/mongo-store-licenses.ts
  // `saleKeys`), present only on the licenses that have one (sparse: most licenses have none).
  ...(['subscription_key', 'order_key'] as const).map((key) => ({
    fields: { [`store.${key}`]: 1 } as IndexDefinition,
    options: { unique: true, sparse: true },
  })),
  // Searches by a store's order or subscription id (sparse: most licenses have none).
  { fields: { 'store.order_id': 1 }, options: { sparse: true } },
  { fields: { 'store.subscription_id': 1 }, options: { sparse: true } },
  // Searches by the id an imported license has in its source (sparse: most licenses have none).
  { fields: { 'imported_from.source_id': 1 }, options: { sparse: true } },
];
