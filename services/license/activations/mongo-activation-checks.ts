import type { Collection } from 'mongodb';
import { activationTypes } from '../../../libs/contracts/index.js';
import { identifierKey } from '../../../libs/identifier/index.js';
import { RECENT_CHECKS, type ActivationStore, type MatchingCheck } from './activation-store.js';
import type { LicenseDocument } from '../models.js';
import {
  beforeDeadline,
  countOptions,
  licenseRecord,
  liveActivation,
  usableFilter,
  type LicenseFilter,
} from '../licenses/mongo-license-documents.js';
import type { LicenseRecord } from '../records.js';

/** What a checkout records (activation-store.ts `recordCheckout`). */
export type RecordedCheckout = Parameters<ActivationStore['recordCheckout']>[0];

/** activation-store.ts `recordCheckout` on MongoDB. */
export async function recordCheckout(
  licenses: Collection<LicenseDocument>,
  { licenseKey, identifier, at, leaseSeconds, leaseExpiresAt, asRead }: RecordedCheckout,
): Promise<boolean> {
  // `$` is the activation the filter matched: one document, one update, as a claim is.
  const { matchedCount } = await licenses.updateOne(
    {
      license_key: licenseKey,
      ...usableFilter(asRead, at),
      lease_seconds: leaseSeconds,
      activations: { $elemMatch: liveActivation(identifierKey(identifier), at) },
    },
    {
      $set: {
        'activations.$.last_checkout_at': at,
        ...(leaseExpiresAt === null ? {} : { 'activations.$.lease_expires_at': leaseExpiresAt }),
        updated_at: at,
      },
    },
  );
  return matchedCount === 1;
}

/** activation-store.ts `touchCheckIfMatching` on MongoDB: one conditional update per check. */
export async function touchCheckIfMatching(
  licenses: Collection<LicenseDocument>,
  { licenseKey, productId, identifierKeys, at, ip, checkId, deadline }: MatchingCheck,
): Promise<LicenseRecord | null> {
  // An identifier valid under no activation type is activated on no license.
  if (identifierKeys !== null && Object.keys(identifierKeys).length === 0) return null;
  const filter: LicenseFilter = { license_key: licenseKey, recent_checks: { $ne: checkId } };
  if (productId !== null) filter.product_id = productId;
  if (identifierKeys !== null) {
    filter.$or = activationTypes.flatMap((type) => {
      const key = identifierKeys[type];
      return key === undefined
        ? []
        : [{ activation_type: type, activations: { $elemMatch: liveActivation(key, at) } }];
    });
  }
  const doc = await beforeDeadline(deadline, (signal) =>
    licenses.findOneAndUpdate(
      filter,
      {
        $set: { last_check_at: at, last_check_ip: ip, updated_at: at },
        $inc: { check_count: 1 },
        $push: { recent_checks: { $each: [checkId], $slice: -RECENT_CHECKS } },
      },
      countOptions(signal),
    ),
  );
  return doc && licenseRecord(doc);
}
