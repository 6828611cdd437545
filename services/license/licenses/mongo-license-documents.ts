import { BSON, type Abortable, type Filter, type FindOneAndUpdateOptions } from 'mongodb';
import {
  DEFAULT_EXEMPT_LIMIT,
  internalError,
  type LicenseStatus,
} from '../../../libs/contracts/index.js';
import type { LicenseDocument, MetadataEntry } from '../models.js';
import type { UsableAsRead } from '../activations/activation-store.js';
import type { ActivationRecord, LicenseRecord } from '../records.js';

/**
 * The licenses collection's documents as the license store and read model read and write them:
 * records made from them, the parts of their filters both use, and what an activation takes of
 * its license's record.
 */

/**
 * What an activation takes of its license's record at most: its BSON size as an element of the
 * activations array, with every date it may later be given already set, so that what is counted
 * when it is claimed still holds once it is changed.
 */
export function activationBytes(
  activation: Omit<ActivationRecord, 'last_checkout_at' | 'lease_expires_at' | 'exempt'>,
): number {
  const element = {
    ...activation,
    last_checkout_at: new Date(0),
    lease_expires_at: new Date(0),
    exempt: false,
  };
  // An array element is its type byte, its index as a key (at most 9 digits) and the document.
  return BSON.calculateObjectSize(element) + 11;
}

/** The activation of an identifier key that has not lapsed at `now` (no lease, or a later end). */
export const liveActivation = (key: string, now: Date) => ({
  identifier_key: key,
  lease_expires_at: { $not: { $lte: now } },
});

/** An activation with a lease, as an aggregation condition on `$$this`. */
export const LEASED = { $ne: [{ $ifNull: ['$$this.lease_expires_at', null] }, null] };

/**
 * Every field of a license but its activations and the ids of its last checks and uses: what the
 * hot paths read and answer with.
 */
export const WITHOUT_ACTIVATIONS = { activations: 0, recent_checks: 0, usage_keys: 0 } as const;

export function activationRecord(a: ActivationRecord): ActivationRecord {
  return {
    identifier: a.identifier,
    identifier_key: a.identifier_key,
    name: a.name ?? null,
    ip: a.ip ?? '',
    activated_at: a.activated_at,
    // Activations stored before license files, leases or exemptions existed have no such field.
    last_checkout_at: a.last_checkout_at ?? null,
    lease_expires_at: a.lease_expires_at ?? null,
    exempt: a.exempt ?? false,
  };
}

export function licenseRecord(doc: LicenseDocument): LicenseRecord {
  return {
    license_key: doc.license_key,
    product_id: doc.product_id,
    plan_id: doc.plan_id,
    status: doc.status,
    expires_at: doc.expires_at ?? null,
    auto_renew: doc.auto_renew,
    next_payment_at: doc.next_payment_at ?? null,
    activation_type: doc.activation_type,
    activation_limit: doc.activation_limit,
    // Licenses stored before leases and exemptions existed have no such fields.
    lease_seconds: doc.lease_seconds ?? null,
    exempt_identifiers: doc.exempt_identifiers ?? [],
    exempt_limit: doc.exempt_limit ?? DEFAULT_EXEMPT_LIMIT,
    activations_used: doc.activations_used ?? 0,
    exempt_used: doc.exempt_used ?? 0,
    activations_bytes: doc.activations_bytes ?? 0,
    last_check_at: doc.last_check_at ?? null,
    last_check_ip: doc.last_check_ip ?? null,
    check_count: doc.check_count,
    created_at: doc.created_at,
    // Licenses stored before plan changes existed have no such field.
    pending_plan_id: doc.pending_plan_id ?? null,
    // Nor, before customers and metadata, these.
    customer: doc.customer ? { email: doc.customer.email, name: doc.customer.name ?? null } : null,
    metadata: Object.fromEntries((doc.metadata ?? []).map(({ key, value }) => [key, value])),
    // Nor, before store sales, this.
    store: doc.store
      ? {
          connection_id: doc.store.connection_id,
          order_id: doc.store.order_id ?? null,
          subscription_id: doc.store.subscription_id ?? null,
          customer_id: doc.store.customer_id ?? null,
        }
      : null,
    ...(doc.has_own_entitlements === true && { has_own_entitlements: true }),
    ...(doc.imported_from && {
      imported_from: { source: doc.imported_from.source, source_id: doc.imported_from.source_id },
    }),
  };
}

/**
 * Metadata as stored: its entries in the order given (services/license/models.ts `MetadataEntry`).
 */
export function metadataEntries(metadata: Record<string, string>): MetadataEntry[] {
  return Object.entries(metadata).map(([key, value]) => ({ key, value }));
}

export type LicenseFilter = Filter<LicenseDocument>;

/** Spec 3.1: the licenses whose reported status is `status`, through the status index. */
export function reportedStatusFilter(status: LicenseStatus, now: Date): LicenseFilter {
  switch (status) {
    case 'active':
      return { status: 'active', $or: [{ expires_at: null }, { expires_at: { $gt: now } }] };
    case 'expired':
      // An active license past its date reports `expired` before the scheduled task marks it.
      return {
        $or: [{ status: 'expired' }, { status: 'active', expires_at: { $ne: null, $lte: now } }],
      };
    default:
      return { status };
  }
}

/**
 * The update that removes an activation and frees what it held, in one: its slot (an exempt
 * one, or one of the limit) and its room in the record.
 */
export const removal = (activation: ActivationRecord, now: Date) => ({
  $pull: { activations: { identifier_key: activation.identifier_key } },
  $inc: {
    [activation.exempt ? 'exempt_used' : 'activations_used']: -1,
    activations_bytes: -activationBytes(activation),
  },
  $set: { updated_at: now },
});

/**
 * The options of validate's count. The driver gives up an operation whose signal aborts while it
 * waits for a server or a connection; its types offer `signal` on reads and commands only, so it
 * travels in a variable, which the options type of the write accepts
 * (test/integration/rpc-deadlines.test.ts checks that it is honoured).
 */
export function countOptions(
  signal: AbortSignal,
): FindOneAndUpdateOptions & Abortable & { includeResultMetadata: false } {
  return {
    returnDocument: 'after',
    projection: WITHOUT_ACTIVATIONS,
    includeResultMetadata: false,
    signal,
  };
}

/**
 * Runs `write` with a signal that aborts at `deadline` (epoch milliseconds): a write still
 * waiting for a connection then is never sent (one already sent may still take effect), and the
 * caller is told INTERNAL_ERROR, as `CallContext.beforeWrite` tells it. A deadline already past
 * starts no write at all: the driver listens for the signal's abort while it waits for a
 * connection, and a signal aborted before it waits never fires.
 */
export async function beforeDeadline<T>(
  deadline: number,
  write: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const left = deadline - Date.now();
  if (left <= 0) throw givenUp();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), left);
  try {
    return await write(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) throw givenUp();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

const givenUp = () => internalError('The caller stopped waiting for this write; it was given up.');

/**
 * Where a claim or a checkout may write: the license still as its decision read it (`asRead`),
 * or, without one, active and unexpired at `now` (spec 4.1).
 */
export function usableFilter(asRead: UsableAsRead | undefined, now: Date) {
  return asRead
    ? { status: asRead.status, expires_at: asRead.expires_at }
    : { status: 'active' as const, $or: [{ expires_at: null }, { expires_at: { $gt: now } }] };
}
