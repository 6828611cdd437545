import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection } from 'mongodb';
import { isDuplicateKey } from '../../../libs/database/index.js';
import type { LicenseDocument } from '../models.js';
import { activationBytes, licenseRecord } from '../licenses/mongo-license-documents.js';
import type { StoredImport, WantedImport } from './import-rules.js';
import type { ImportStore } from './import-store.js';

/** What an import sets of a license: its terms, source, activations and their counts. */
function importedFields({ license, activations }: WantedImport) {
  return {
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
    activations,
    activations_used: activations.filter((a) => !a.exempt).length,
    exempt_used: activations.filter((a) => a.exempt).length,
    activations_bytes: activations.reduce((sum, a) => sum + activationBytes(a), 0),
    imported_from: license.imported_from,
  };
}

/**
 * The import store on the licenses collection: each license one document with its activations,
 * written in unordered batches that the unique index on the key keeps to one license per key.
 */
export class MongoImportStore implements ImportStore {
  constructor(private readonly licenses: Collection<LicenseDocument>) {}

  async findForImport(licenseKeys: readonly string[]): Promise<Map<string, StoredImport>> {
    const found = new Map<string, StoredImport>();
    if (licenseKeys.length === 0) return found;
    const docs = await this.licenses
      .find(
        { license_key: { $in: [...licenseKeys] } },
        { projection: { recent_checks: 0, usage_keys: 0 } },
      )
      .toArray();
    for (const doc of docs) {
      found.set(doc.license_key, {
        license: licenseRecord(doc),
        activations: (doc.activations ?? []).map((a) => ({
          identifier_key: a.identifier_key,
          exempt: a.exempt ?? false,
        })),
      });
    }
    return found;
  }

  async createImported({
    licenses,
    now,
  }: {
    licenses: WantedImport[];
    now: Date;
  }): Promise<{ taken: string[] }> {
    const docs = licenses.map((wanted) => ({
      license_key: wanted.license.license_key,
      ...importedFields(wanted),
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      recent_checks: [],
      pending_plan_id: null,
      ...(wanted.license.customer ? { customer: wanted.license.customer } : {}),
      metadata: [],
      created_at: now,
      updated_at: now,
    }));
    try {
      await this.licenses.insertMany(docs as unknown as LicenseDocument[], { ordered: false });
      return { taken: [] };
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError)) throw error;
      const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
      if (errors.length === 0 || !errors.every((e) => isDuplicateKey(e))) throw error;
      return { taken: errors.map((e) => docs[e.index]!.license_key) };
    }
  }

  async replaceImported({ licenses, now }: { licenses: WantedImport[]; now: Date }) {
    const operations: AnyBulkWriteOperation<LicenseDocument>[] = licenses.map((wanted) => ({
      updateOne: {
        filter: { license_key: wanted.license.license_key },
        update: wanted.license.customer
          ? {
              $set: {
                ...importedFields(wanted),
                customer: wanted.license.customer,
                updated_at: now,
              },
            }
          : { $set: { ...importedFields(wanted), updated_at: now }, $unset: { customer: '' } },
      },
    }));
    await this.licenses.bulkWrite(operations, { ordered: false });
  }
}
