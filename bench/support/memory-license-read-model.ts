import type { LicenseSortField } from '../../libs/contracts/index.js';
import type {
  ActivationPage,
  LicenseBatch,
  LicenseFigures,
  LicenseFilters,
  LicenseOrder,
  LicenseReadModel,
  LicenseScan,
} from '../../services/license/admin/license-read-model.js';
import type { ActivationRecord, LicenseRecord } from '../../services/license/records.js';
import { deepCopy as copy } from './deep-copy.js';
import { hasReportedStatus, roundTrip, type MemoryLicenseTable } from './memory-license-table.js';
import { batchAfter, sortedBy, type Place } from './memory-lists.js';

/** Mirrors services/license/admin/mongo-license-read-model.ts `licenseSearchFilter`. */
function matchesFilters(
  license: LicenseRecord,
  activations: readonly ActivationRecord[],
  filters: LicenseFilters,
  now: Date,
): boolean {
  if (filters.productId !== null && license.product_id !== filters.productId) return false;
  if (filters.planId !== null && license.plan_id !== filters.planId) return false;
  if (filters.status !== null && !hasReportedStatus(license, filters.status, now)) return false;
  if (filters.text === null) return true;
  const { keyPrefix, identifierKeys, customerEmail, exactTexts } = filters.text;
  return (
    (keyPrefix !== null && license.license_key.startsWith(keyPrefix)) ||
    activations.some((a) => identifierKeys.includes(a.identifier_key)) ||
    (customerEmail !== null && license.customer?.email === customerEmail) ||
    Object.values(license.metadata).some((value) => exactTexts.includes(value)) ||
    [
      license.store?.order_id,
      license.store?.subscription_id,
      license.imported_from?.source_id,
    ].some((id) => id != null && exactTexts.includes(id))
  );
}

/**
 * A license's sort value in an order of the list, as
 * services/license/admin/mongo-license-read-model.ts `licenseListOrders` reads it.
 */
function sortValue(license: LicenseRecord, field: LicenseSortField): Date | string | null {
  switch (field) {
    case 'created_at':
      return license.created_at;
    case 'expires_at':
      return license.expires_at;
    case 'license_key':
      return license.license_key;
    case 'customer_email':
      return license.customer?.email ?? null;
  }
}

/**
 * The in-memory license read model (services/license/admin/license-read-model.ts), on the licenses the
 * in-memory license store writes.
 */
export class MemoryLicenseReadModel implements LicenseReadModel {
  constructor(private readonly table: MemoryLicenseTable) {}

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
    await roundTrip();
    const all = (this.table.activationsOf.get(licenseKey) ?? []).filter(
      (a) => identifierKeys === null || identifierKeys.includes(a.identifier_key),
    );
    const start = (page - 1) * perPage;
    return { activations: all.slice(start, start + perPage).map(copy), total: all.length };
  }

  /** The licenses matching the filters, in `order`; ties by the order they were issued in. */
  private listed(filters: LicenseFilters, now: Date, order: LicenseOrder): LicenseRecord[] {
    const found = [...this.table.byKey.values()].filter((license) =>
      matchesFilters(
        license,
        this.table.activationsOf.get(license.license_key) ?? [],
        filters,
        now,
      ),
    );
    return sortedBy(found, (license) => this.placeOf(license, order.field), order.descending);
  }

  /** Where a license stands in an order: its sort value, and its issue order as its id. */
  private placeOf(license: LicenseRecord, field: LicenseSortField): Place {
    const issued = this.table.issueOrder.get(license.license_key) ?? 0;
    return { value: sortValue(license, field), id: issued.toString(16).padStart(24, '0') };
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
    await roundTrip();
    const found = this.listed(filters, now, order);
    const start = (page - 1) * perPage;
    return { licenses: found.slice(start, start + perPage).map(copy), total: found.length };
  }

  async scan({ filters, now, order, after, limit }: LicenseScan): Promise<LicenseBatch> {
    await roundTrip();
    const { records, next } = batchAfter({
      sorted: this.listed(filters, now, order),
      place: (license) => this.placeOf(license, order.field),
      after,
      dates: order.field === 'created_at' || order.field === 'expires_at',
      descending: order.descending,
      limit,
    });
    return { licenses: records.map(copy), next };
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
    await roundTrip();
    const active = [...this.table.byKey.values()].filter(
      (license) =>
        (productId === null || license.product_id === productId) &&
        hasReportedStatus(license, 'active', now),
    );
    return {
      active: active.length,
      activationsInUse: active.reduce((sum, license) => sum + license.activations_used, 0),
      expiring: active.filter(
        ({ expires_at }) =>
          expires_at !== null &&
          expires_at.getTime() > now.getTime() &&
          expires_at.getTime() <= expiringBy.getTime(),
      ).length,
    };
  }
}
