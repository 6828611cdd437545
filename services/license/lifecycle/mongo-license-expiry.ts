import { ObjectId, type Collection } from 'mongodb';
import type { LicenseDocument } from '../models.js';
import { WITHOUT_ACTIVATIONS, licenseRecord } from '../licenses/mongo-license-documents.js';
import type { LicenseRecord } from '../records.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * licenses/license-store.ts `pastDue` on MongoDB: the active licenses past their expiry and grace.
 */
export async function pastDue(
  licenses: Collection<LicenseDocument>,
  {
    now,
    limit,
    graceDays = new Map(),
  }: {
    now: Date;
    limit: number;
    graceDays?: ReadonlyMap<number, number>;
  },
): Promise<LicenseRecord[]> {
  // A plan with grace days: its licenses are due once their grace has ended too.
  const graced = [...graceDays].map(([plan_id, days]) => ({
    plan_id,
    expires_at: { $lte: new Date(now.getTime() - days * DAY_MS) },
  }));
  const docs = await licenses
    .find(
      {
        status: 'active',
        expires_at: { $ne: null, $lte: now },
        ...(graced.length === 0
          ? {}
          : { $or: [{ plan_id: { $nin: [...graceDays.keys()] } }, ...graced] }),
      },
      { projection: WITHOUT_ACTIVATIONS },
    )
    .limit(limit)
    .toArray();
  return docs.map(licenseRecord);
}

/**
 * licenses/license-store.ts `expirePastDue` on MongoDB (spec 3.1): one bulk write of conditional
 * updates, each leaving a license renewed meanwhile alone.
 */
export async function expirePastDue(
  collection: Collection<LicenseDocument>,
  { licenses, now }: { licenses: LicenseRecord[]; now: Date },
): Promise<LicenseRecord[]> {
  const due = licenses.filter((l) => l.expires_at !== null && l.expires_at <= now);
  if (due.length === 0) return [];
  // Marks what this write changed, for when another write changed some of them first.
  const batch = new ObjectId();
  const { modifiedCount } = await collection.bulkWrite(
    due.map(({ license_key, expires_at }) => ({
      updateOne: {
        // The rule as read: a license renewed meanwhile is left alone.
        filter: { license_key, status: 'active' as const, expires_at },
        update: { $set: { status: 'expired' as const, updated_at: now, expiry_batch: batch } },
      },
    })),
    { ordered: false },
  );
  let expired = due;
  if (modifiedCount < due.length) {
    const written = await collection
      .find(
        { license_key: { $in: due.map((l) => l.license_key) }, expiry_batch: batch },
        { projection: { license_key: 1 } },
      )
      .toArray();
    const keys = new Set(written.map((doc) => doc.license_key));
    expired = due.filter((license) => keys.has(license.license_key));
  }
  return expired.map((license) => ({ ...license, status: 'expired' }));
}
