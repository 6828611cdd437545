import type { Collection } from 'mongodb';
import type { LicenseSortField, ListCursor } from '../../../libs/contracts/index.js';
import { afterCursor, cursorAt, sortOf, type StoredOrder } from '../../../libs/database/index.js';
import type {
  ActivationPage,
  LicenseBatch,
  LicenseFigures,
  LicenseFilters,
  LicenseOrder,
  LicenseReadModel,
  LicenseScan,
} from './license-read-model.js';
import type { LicenseDocument } from '../models.js';
import {
  WITHOUT_ACTIVATIONS,
  activationRecord,
  licenseRecord,
  reportedStatusFilter,
  type LicenseFilter,
} from '../licenses/mongo-license-documents.js';
import type { ActivationRecord, LicenseRecord } from '../records.js';

/**
 * The stored order of each order of the license list (libs/database `StoredOrder`): each has an
 * index in licenses/license-indexes.ts `licenseIndexes` on exactly its fields, or them reversed (a
 * test checks).
 */
export const licenseListOrders: Record<LicenseSortField, Omit<StoredOrder, 'descending'>> = {
  created_at: { path: 'created_at', unique: false },
  expires_at: { path: 'expires_at', unique: false },
  license_key: { path: 'license_key', unique: true },
  customer_email: { path: 'customer.email', unique: false },
};

export function storedLicenseOrder({ field, descending }: LicenseOrder): StoredOrder {
  return { ...licenseListOrders[field], descending };
}

/** A cursor's value as stored: the dates of the list's date fields are dates. */
function storedSortValue(
  field: LicenseSortField,
  value: ListCursor['value'],
): Date | string | null {
  if (value === null) return null;
  const text = String(value);
  return field === 'created_at' || field === 'expires_at' ? new Date(text) : text;
}

/** The sort value of a license as stored, for the cursor after it. */
function sortValueOf(doc: LicenseDocument, field: LicenseSortField): Date | string | null {
  switch (field) {
    case 'created_at':
      return doc.created_at;
    case 'expires_at':
      return doc.expires_at ?? null;
    case 'license_key':
      return doc.license_key;
    case 'customer_email':
      return doc.customer?.email ?? null;
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The MongoDB filter of an admin search, or null when it can match nothing. Every branch of it
 * starts with the first field of an index in licenses/license-indexes.ts `licenseIndexes` (a test
 * checks each combination of filters); one without any filter is served in order by the index of
 * its order.
 */
export function licenseSearchFilter(filters: LicenseFilters, now: Date): LicenseFilter | null {
  const conditions: LicenseFilter[] = [];
  if (filters.productId !== null) conditions.push({ product_id: filters.productId });
  if (filters.planId !== null) conditions.push({ plan_id: filters.planId });
  if (filters.status !== null) conditions.push(reportedStatusFilter(filters.status, now));
  if (filters.text !== null) {
    const { keyPrefix, identifierKeys, customerEmail, exactTexts } = filters.text;
    const alternatives: LicenseFilter[] = [];
    // Anchored and case-sensitive, so it is a range of the unique key index.
    if (keyPrefix !== null) {
      alternatives.push({ license_key: { $regex: `^${escapeRegExp(keyPrefix)}` } });
    }
    if (identifierKeys.length > 0) {
      alternatives.push({ 'activations.identifier_key': { $in: identifierKeys } });
    }
    if (customerEmail !== null) alternatives.push({ 'customer.email': customerEmail });
    if (exactTexts.length > 0) {
      alternatives.push({ 'metadata.value': { $in: exactTexts } });
      // A store sale's order or subscription id (docs/stores.md), each under its own index.
      alternatives.push({ 'store.order_id': { $in: exactTexts } });
      alternatives.push({ 'store.subscription_id': { $in: exactTexts } });
      // The id an imported license has in the system it came from (imports/).
      alternatives.push({ 'imported_from.source_id': { $in: exactTexts } });
    }
    if (alternatives.length === 0) return null;
    conditions.push(alternatives.length === 1 ? alternatives[0]! : { $or: alternatives });
  }
  if (conditions.length === 0) return {};
  return conditions.length === 1 ? conditions[0]! : { $and: conditions };
}

/**
 * The license read model on the licenses collection: the admin's lists, searches, exports and
 * figures, each one query the database answers through an index (licenses/license-indexes.ts
 * `licenseIndexes`).
 */
export class MongoLicenseReadModel implements LicenseReadModel {
  constructor(private readonly licenses: Collection<LicenseDocument>) {}

  async listActivations({
    licenseKey,
    identifierKeys,
    page,
    perPage,
  }: {
    licenseKey: string;
    identifierKeys: readonly string[] | null;
    page: number;
    perPage: number;
  }): Promise<ActivationPage> {
    const listed =
      identifierKeys === null
        ? '$activations'
        : {
            $filter: {
              input: '$activations',
              cond: { $in: ['$$this.identifier_key', [...new Set(identifierKeys)]] },
            },
          };
    // The page is cut by the database: only it travels, however many activations there are.
    const [found] = await this.licenses
      .aggregate<{ total: number; activations: ActivationRecord[] }>([
        { $match: { license_key: licenseKey } },
        { $project: { _id: 0, listed } },
        {
          $project: {
            total: { $size: '$listed' },
            activations: { $slice: ['$listed', (page - 1) * perPage, perPage] },
          },
        },
      ])
      .toArray();
    if (!found) return { activations: [], total: 0 };
    return { activations: found.activations.map(activationRecord), total: found.total };
  }

  async search({
    filters,
    now,
    order,
    page,
    perPage,
  }: {
    filters: LicenseFilters;
    now: Date;
    order: LicenseOrder;
    page: number;
    perPage: number;
  }): Promise<{ licenses: LicenseRecord[]; total: number }> {
    const filter = licenseSearchFilter(filters, now);
    if (filter === null) return { licenses: [], total: 0 };
    const [docs, total] = await Promise.all([
      this.licenses
        .find(filter, { projection: WITHOUT_ACTIVATIONS })
        .sort(sortOf(storedLicenseOrder(order)))
        .skip((page - 1) * perPage)
        .limit(perPage)
        .toArray(),
      this.licenses.countDocuments(filter),
    ]);
    return { licenses: docs.map(licenseRecord), total };
  }

  async scan({ filters, now, order, after, limit }: LicenseScan): Promise<LicenseBatch> {
    const filter = licenseSearchFilter(filters, now);
    if (filter === null) return { licenses: [], next: null };
    const stored = storedLicenseOrder(order);
    const from =
      after === null
        ? filter
        : {
            $and: [
              filter,
              afterCursor(stored, storedSortValue(order.field, after.value), after.id),
            ],
          };
    const docs = await this.licenses
      .find(from as LicenseFilter, { projection: WITHOUT_ACTIVATIONS })
      .sort(sortOf(stored))
      .limit(limit)
      .toArray();
    const last = docs.at(-1);
    return {
      licenses: docs.map(licenseRecord),
      next:
        last && docs.length === limit ? cursorAt(sortValueOf(last, order.field), last._id) : null,
    };
  }

  async currentFigures({
    productId,
    now,
    expiringBy,
  }: {
    productId: number | null;
    now: Date;
    expiringBy: Date;
  }): Promise<LicenseFigures> {
    // One pass over the active licenses, found through the status index (or the product's).
    const [figures] = await this.licenses
      .aggregate<LicenseFigures>([
        {
          $match:
            productId === null
              ? reportedStatusFilter('active', now)
              : { product_id: productId, ...reportedStatusFilter('active', now) },
        },
        {
          $group: {
            _id: null,
            active: { $sum: 1 },
            activationsInUse: { $sum: '$activations_used' },
            // A license without an expiry date (null) is neither after now nor before a date.
            expiring: {
              $sum: {
                $cond: [
                  { $and: [{ $gt: ['$expires_at', now] }, { $lte: ['$expires_at', expiringBy] }] },
                  1,
                  0,
                ],
              },
            },
          },
        },
        { $project: { _id: 0 } },
      ])
      .toArray();
    return figures ?? { active: 0, activationsInUse: 0, expiring: 0 };
  }
}
