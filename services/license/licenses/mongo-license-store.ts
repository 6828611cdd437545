import { setOf, isDuplicateKey } from '../../../libs/database/index.js';
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
} from './license-store.js';
import type { LicenseDocument } from '../models.js';
import { MongoActivationStore } from '../activations/mongo-activation-store.js';
import { startGrace as markGraceStarted } from '../lifecycle/mongo-grace-marks.js';
import { expirePastDue, pastDue } from '../lifecycle/mongo-license-expiry.js';
import {
  LEASED,
  WITHOUT_ACTIVATIONS,
  licenseRecord,
  metadataEntries,
  type LicenseFilter,
} from './mongo-license-documents.js';
import type { LicenseRecord, StoreRefsRecord } from '../records.js';
import { addStoreRefs, findByStore, saleKeys } from '../store-licenses/mongo-store-licenses.js';

/**
 * The license store: a license issued, changed, moved to a plan, renewed and expired, with its
 * activations' claims, releases, leases and checks (MongoActivationStore), on the licenses
 * collection through the driver, as they are.
 */
export class MongoLicenseStore extends MongoActivationStore implements LicenseStore {
  async issue({
    license,
    now,
  }: {
    license: NewLicense;
    now: Date;
  }): Promise<{ outcome: 'issued'; license: LicenseRecord } | { outcome: 'key-taken' }> {
    // In the schema's field order, with its defaults, as mongoose would have stored it.
    const doc: Omit<LicenseDocument, '_id'> = {
      license_key: license.license_key,
      product_id: license.product_id,
      plan_id: license.plan_id,
      status: license.status,
      expires_at: license.expires_at,
      auto_renew: license.auto_renew,
      next_payment_at: license.next_payment_at,
      activation_type: license.activation_type,
      activation_limit: license.activation_limit,
      lease_seconds: license.lease_seconds,
      exempt_identifiers: license.exempt_identifiers,
      exempt_limit: license.exempt_limit,
      activations: [],
      activations_used: 0,
      exempt_used: 0,
      activations_bytes: 0,
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      recent_checks: [],
      pending_plan_id: null,
      ...(license.customer ? { customer: license.customer } : {}),
      ...(license.store ? { store: { ...license.store, ...saleKeys(license.store) } } : {}),
      metadata: metadataEntries(license.metadata ?? {}),
      created_at: now,
      updated_at: now,
    };
    try {
      const { insertedId } = await this.licenses.insertOne(doc as LicenseDocument);
      return { outcome: 'issued', license: licenseRecord({ ...doc, _id: insertedId }) };
    } catch (error) {
      if (isDuplicateKey(error)) return { outcome: 'key-taken' };
      throw error;
    }
  }

  findByStore(sale: StoreSale): Promise<LicenseRecord | null> {
    return findByStore(this.licenses, sale);
  }

  async issueForStore({
    license,
    now,
  }: {
    license: NewLicense & { store: StoreRefsRecord };
    now: Date;
  }): Promise<StoreIssue> {
    const found = await findByStore(this.licenses, license.store);
    if (found)
      return {
        outcome: 'existing',
        license: await addStoreRefs(this.licenses, found, license.store),
      };
    const issued = await this.issue({ license, now });
    if (issued.outcome === 'issued') return issued;
    // Refused as a duplicate: another call made the sale's license meanwhile (the store's unique
    // indexes), or, rarely, the key is taken.
    const made = await findByStore(this.licenses, license.store);
    if (!made) return issued;
    return { outcome: 'existing', license: await addStoreRefs(this.licenses, made, license.store) };
  }

  /** Spec 3.3 with leases: a plan without one leaves no activation that lapses. */
  private async clearLeases(licenseKey: string): Promise<void> {
    const found = await this.withActivationsWhere(licenseKey, LEASED);
    for (const activation of found?.activations ?? []) {
      await this.licenses.updateOne(
        {
          license_key: licenseKey,
          lease_seconds: null,
          'activations.identifier_key': activation.identifier_key,
        },
        { $set: { 'activations.$.lease_expires_at': null } },
      );
    }
  }

  async update({
    licenseKey,
    changes,
    now,
    expected,
  }: {
    licenseKey: string;
    changes: LicenseChanges;
    now: Date;
    expected?: Pick<LicenseRecord, 'expires_at'>;
  }): Promise<LicenseUpdate> {
    const limit = changes.activation_limit;
    const limitFits: LicenseFilter =
      limit === undefined || limit === 0 ? {} : { activations_used: { $lte: limit } };
    const expiryAsRead: LicenseFilter = expected ? { expires_at: expected.expires_at } : {};
    const { metadata, customer } = changes;
    const set = setOf({
      status: changes.status,
      expires_at: changes.expires_at,
      activation_limit: limit,
      auto_renew: changes.auto_renew,
      next_payment_at: changes.next_payment_at,
    });
    const stored = {
      ...(metadata === undefined ? {} : { metadata: metadataEntries(metadata) }),
      ...(customer ? { customer } : {}),
    };
    // A license without a customer has no `customer` field (services/license/models.ts).
    const unset = customer === null ? { $unset: { customer: '' as const } } : {};
    // The license as it was: the change is exactly `set`, so the license after is it with `set`.
    const before = await this.licenses.findOneAndUpdate(
      { license_key: licenseKey, ...limitFits, ...expiryAsRead },
      { $set: { ...set, ...stored, updated_at: now }, ...unset },
      { returnDocument: 'before', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    if (before) {
      const previous = licenseRecord(before);
      const license = {
        ...previous,
        ...set,
        ...(metadata === undefined ? {} : { metadata }),
        ...(customer === undefined ? {} : { customer }),
      };
      return { outcome: 'updated', license: structuredClone(license), previous };
    }
    if ((limit === undefined || limit === 0) && !expected) return { outcome: 'unknown-license' };
    // The filter did not match: there is no such license, its expiry moved, or the limit did not fit.
    const current = await this.findByKey(licenseKey);
    if (!current) return { outcome: 'unknown-license' };
    if (expected && current.expires_at?.getTime() !== expected.expires_at?.getTime()) {
      return { outcome: 'changed-meanwhile' };
    }
    return {
      outcome: 'limit-below-activations',
      activation_limit: limit ?? 0,
      activations_used: current.activations_used,
    };
  }

  async changePlan({
    licenseKey,
    plan,
    now,
  }: {
    licenseKey: string;
    plan: PlanTerms;
    now: Date;
  }): Promise<{ license: LicenseRecord; previous: LicenseRecord } | null> {
    const set = { ...planFields(plan), pending_plan_id: null };
    // The license as it was: the change is exactly `set`, so the license after is it with `set`.
    const before = await this.licenses.findOneAndUpdate(
      { license_key: licenseKey },
      { $set: { ...set, updated_at: now } },
      { returnDocument: 'before', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    if (!before) return null;
    if (plan.lease_seconds === null) await this.clearLeases(licenseKey);
    const previous = licenseRecord(before);
    return {
      license: { ...previous, ...set, exempt_identifiers: [...set.exempt_identifiers] },
      previous,
    };
  }

  async schedulePlanChange({
    licenseKey,
    planId,
    now,
  }: {
    licenseKey: string;
    planId: number;
    now: Date;
  }): Promise<LicenseRecord | null> {
    const doc = await this.licenses.findOneAndUpdate(
      { license_key: licenseKey },
      { $set: { pending_plan_id: planId, updated_at: now } },
      { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    return doc && licenseRecord(doc);
  }

  async renew({
    licenseKey,
    basis,
    renewal,
    now,
  }: {
    licenseKey: string;
    basis: RenewalBasis;
    renewal: LicenseRenewal;
    now: Date;
  }): Promise<LicenseRecord | null> {
    const { plan, ...dates } = renewal;
    const set = {
      ...setOf(dates),
      ...(plan ? { ...planFields(plan), pending_plan_id: null } : {}),
      updated_at: now,
    };
    // `pending_plan_id: null` also matches a license stored before the field existed.
    const doc = await this.licenses.findOneAndUpdate(
      {
        license_key: licenseKey,
        status: basis.status,
        plan_id: basis.plan_id,
        pending_plan_id: basis.pending_plan_id,
        expires_at: basis.expires_at,
      },
      { $set: set },
      { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    if (doc && plan?.lease_seconds === null) await this.clearLeases(licenseKey);
    return doc && licenseRecord(doc);
  }

  pastDue(query: {
    now: Date;
    limit: number;
    graceDays?: ReadonlyMap<number, number>;
  }): Promise<LicenseRecord[]> {
    return pastDue(this.licenses, query);
  }

  expirePastDue(query: { licenses: LicenseRecord[]; now: Date }): Promise<LicenseRecord[]> {
    return expirePastDue(this.licenses, query);
  }

  startGrace(query: {
    now: Date;
    limit: number;
    graceDays: ReadonlyMap<number, number>;
  }): Promise<LicenseRecord[]> {
    return markGraceStarted(this.licenses, query);
  }
}

/** Spec 3.3: a plan applied to a license sets its plan, limit and type. */
function planFields(plan: PlanTerms) {
  return {
    plan_id: plan.id,
    activation_type: plan.activation_type,
    activation_limit: plan.activation_limit,
    lease_seconds: plan.lease_seconds,
    exempt_identifiers: plan.exempt_identifiers,
    exempt_limit: plan.exempt_limit,
  };
}
