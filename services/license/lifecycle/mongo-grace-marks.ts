import type { Collection } from 'mongodb';
import type { LicenseDocument } from '../models.js';
import { WITHOUT_ACTIVATIONS, licenseRecord } from '../licenses/mongo-license-documents.js';
import type { LicenseRecord } from '../records.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * licenses/license-store.ts `startGrace` on MongoDB (expiry strategies, docs/api-decisions.md): the
 * licenses in their grace are read, and each not yet marked for its expiry date is marked by one
 * conditional update, so of runs at once one marks it.
 */
export async function startGrace(
  licenses: Collection<LicenseDocument>,
  {
    now,
    limit,
    graceDays,
  }: {
    now: Date;
    limit: number;
    graceDays: ReadonlyMap<number, number>;
  },
): Promise<LicenseRecord[]> {
  if (graceDays.size === 0) return [];
  const inGrace = [...graceDays].map(([plan_id, days]) => ({
    plan_id,
    expires_at: { $lte: now, $gt: new Date(now.getTime() - days * DAY_MS) },
  }));
  // `grace_started_for`: the expiry whose grace was announced (absent: none yet); the licenses
  // in their grace are read (no field-to-field comparison in the query), the unmarked marked.
  const docs = licenses.find(
    { status: 'active', $or: inGrace },
    { projection: WITHOUT_ACTIVATIONS },
  );
  const marked: LicenseRecord[] = [];
  for await (const doc of docs) {
    if (marked.length >= limit) break;
    if (doc.grace_started_for?.getTime() === doc.expires_at?.getTime()) continue;
    const { modifiedCount } = await licenses.updateOne(
      {
        license_key: doc.license_key,
        status: 'active',
        expires_at: doc.expires_at,
        grace_started_for: { $ne: doc.expires_at },
      },
      { $set: { grace_started_for: doc.expires_at } },
    );
    if (modifiedCount === 1) marked.push(licenseRecord(doc));
  }
  return marked;
}
