import { z } from 'zod';
import { Id } from '../shared.js';
import { StoreProvider } from './store-connections.js';

// ---- The license changes the stores service makes, as the audit log keeps them ----

/** A store connection as an audit entry names it: its id, and its name and store at the time. */
export const StoreConnectionSource = z.object({
  id: Id,
  name: z.string(),
  provider: StoreProvider,
});
export type StoreConnectionSource = z.infer<typeof StoreConnectionSource>;

/** A received store event as an audit entry names it (`GET /admin/v1/store-events/{id}`). */
export const StoreEventSource = z.object({
  /** The received event's id in the stores service. */
  id: Id,
  /** The store's id of the event (Stripe `evt_…`, Paddle `event_id`, …). */
  event_id: z.string(),
  /** The store's own name of the event (`invoice.paid`, `subscription_updated`, …). */
  type: z.string(),
  /** What it was read as (docs/stores.md, the table): `subscription_paid`, `refunded`, … */
  kind: z.string(),
});
export type StoreEventSource = z.infer<typeof StoreEventSource>;

/**
 * The change a store made, named by the operation id of the admin route that makes the same
 * change, so the audit log's action filter finds an admin's and a store's alike.
 */
export const storeLicenseActions = [
  'createLicense',
  'renewLicense',
  'updateLicense',
  'changePlan',
] as const;
export const StoreLicenseAction = z.enum(storeLicenseActions);
export type StoreLicenseAction = z.infer<typeof StoreLicenseAction>;

/** A license's fields, as the license service answered them. */
const LicenseFields = z.record(z.string(), z.unknown());

/**
 * One license change: the license's fields before (null for a license created) and after, as the
 * license service answered them; the audit log keeps those that moved. The license key travels
 * whole, as in every license event; the audit log keeps its fingerprint alone.
 */
export const StoreLicenseChange = z.object({
  action: StoreLicenseAction,
  license_key: z.string(),
  before: LicenseFields.nullable(),
  after: LicenseFields,
});
export type StoreLicenseChange = z.infer<typeof StoreLicenseChange>;

/**
 * The data of `store.licenses_changed`: the changes one store event made (`store_event`), or the
 * grace sweep's suspension of a license past due (`store_event` null), in the order made.
 */
export const StoreLicensesChanged = z.object({
  connection: StoreConnectionSource,
  store_event: StoreEventSource.nullable(),
  changes: z.array(StoreLicenseChange).min(1),
});
export type StoreLicensesChanged = z.infer<typeof StoreLicensesChanged>;
