import type { Collection } from 'mongodb';
import type { Connection } from 'mongoose';
import { isDuplicateKey } from '../../../libs/database/index.js';
import type { EntitlementStore } from './entitlement-store.js';
import type { EntitlementRecord, LicenseEntitlementRecord } from '../records.js';

/** An entitlement as stored: its code is its id. */
interface EntitlementDocument {
  _id: string;
  name: string;
  created_at: Date;
}

type LicenseEntitlementDocument = LicenseEntitlementRecord;

const entitlementRecord = (doc: EntitlementDocument): EntitlementRecord => ({
  code: doc._id,
  name: doc.name,
  created_at: doc.created_at,
});

const grantRecord = (doc: LicenseEntitlementDocument): LicenseEntitlementRecord => ({
  license_key: doc.license_key,
  code: doc.code,
  expires_at: doc.expires_at ?? null,
  granted_at: doc.granted_at,
});

/**
 * The entitlements (`entitlements`, by code) and those licenses carry (`license_entitlements`,
 * one document per license and code under a unique index, read by key and counted by code).
 */
export async function openEntitlementStore(db: Connection): Promise<EntitlementStore> {
  const definitions = db.collection<EntitlementDocument>('entitlements');
  const grants = db.collection<LicenseEntitlementDocument>('license_entitlements');
  await grants.createIndexes([
    { key: { license_key: 1, code: 1 }, unique: true },
    { key: { code: 1 } },
  ]);
  const licenses = db.collection<{ license_key: string; has_own_entitlements?: true }>('licenses');
  return new MongoEntitlementStore(definitions, grants, licenses);
}

export class MongoEntitlementStore implements EntitlementStore {
  constructor(
    private readonly definitions: Collection<EntitlementDocument>,
    private readonly grants: Collection<LicenseEntitlementDocument>,
    private readonly licenses: Collection<{ license_key: string; has_own_entitlements?: true }>,
  ) {}

  async create({
    entitlement,
    now,
  }: {
    entitlement: Omit<EntitlementRecord, 'created_at'>;
    now: Date;
  }): Promise<{ outcome: 'created'; entitlement: EntitlementRecord } | { outcome: 'code-taken' }> {
    const doc = { _id: entitlement.code, name: entitlement.name, created_at: now };
    try {
      await this.definitions.insertOne(doc);
    } catch (error) {
      if (isDuplicateKey(error)) return { outcome: 'code-taken' };
      throw error;
    }
    return { outcome: 'created', entitlement: entitlementRecord(doc) };
  }

  async find(code: string): Promise<EntitlementRecord | null> {
    const doc = await this.definitions.findOne({ _id: code });
    return doc && entitlementRecord(doc);
  }

  async list(): Promise<EntitlementRecord[]> {
    return (await this.definitions.find().sort({ _id: 1 }).toArray()).map(entitlementRecord);
  }

  async defined(codes: readonly string[]): Promise<string[]> {
    if (codes.length === 0) return [];
    const found = await this.definitions
      .find({ _id: { $in: [...codes] } }, { projection: { _id: 1 } })
      .toArray();
    return found.map((doc) => doc._id);
  }

  async rename({ code, name }: { code: string; name: string }): Promise<EntitlementRecord | null> {
    const doc = await this.definitions.findOneAndUpdate(
      { _id: code },
      { $set: { name } },
      { returnDocument: 'after' },
    );
    return doc && entitlementRecord(doc);
  }

  async remove(code: string): Promise<EntitlementRecord | null> {
    const doc = await this.definitions.findOneAndDelete({ _id: code });
    return doc && entitlementRecord(doc);
  }

  async licensesWith(code: string): Promise<number> {
    return this.grants.countDocuments({ code });
  }

  async grant({
    licenseKey,
    code,
    expiresAt,
    now,
  }: {
    licenseKey: string;
    code: string;
    expiresAt: Date | null;
    now: Date;
  }): Promise<LicenseEntitlementRecord> {
    // The license is marked first: an answer that reads the mark finds the grant once it exists.
    await this.licenses.updateOne(
      { license_key: licenseKey },
      { $set: { has_own_entitlements: true } },
    );
    const doc = await this.grants.findOneAndUpdate(
      { license_key: licenseKey, code },
      { $set: { expires_at: expiresAt, granted_at: now } },
      { upsert: true, returnDocument: 'after', projection: { _id: 0 } },
    );
    return grantRecord(doc!);
  }

  async revoke({ licenseKey, code }: { licenseKey: string; code: string }): Promise<boolean> {
    const { deletedCount } = await this.grants.deleteOne({ license_key: licenseKey, code });
    return deletedCount > 0;
  }

  async forLicense(licenseKey: string): Promise<LicenseEntitlementRecord[]> {
    const docs = await this.grants
      .find({ license_key: licenseKey }, { projection: { _id: 0 } })
      .sort({ code: 1 })
      .toArray();
    return docs.map(grantRecord);
  }
}
