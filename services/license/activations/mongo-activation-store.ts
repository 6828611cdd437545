import type { Collection } from 'mongodb';
import { identifierKey } from '../../../libs/identifier/index.js';
import type {
  ActivationStore,
  LapsedRelease,
  MatchingCheck,
  NewActivation,
  UsableAsRead,
} from './activation-store.js';
import {
  recordCheckout,
  touchCheckIfMatching,
  type RecordedCheckout,
} from './mongo-activation-checks.js';
import type { LicenseDocument } from '../models.js';
import {
  LEASED,
  WITHOUT_ACTIVATIONS,
  activationBytes,
  activationRecord,
  licenseRecord,
  liveActivation,
  removal,
  usableFilter,
} from '../licenses/mongo-license-documents.js';
import { MAX_ACTIVATION_BYTES, type ActivationRecord, type LicenseRecord } from '../records.js';

/**
 * Activations are embedded in the license document, so each rule is one single-document update.
 * The store speaks to the collection through the driver: its calls skip mongoose's query building
 * and casting, which the hot paths cannot afford (docs/performance.md), so what they send is
 * already of the schema's types (services/license/models.ts), and they set `created_at` and
 * `updated_at` themselves, from the caller's time. The checks' counts and checkouts are in
 * mongo-activation-checks.ts.
 */
export class MongoActivationStore implements ActivationStore {
  constructor(protected readonly licenses: Collection<LicenseDocument>) {}

  async findByKey(licenseKey: string): Promise<LicenseRecord | null> {
    const doc = await this.licenses.findOne(
      { license_key: licenseKey },
      { projection: WITHOUT_ACTIVATIONS },
    );
    return doc && licenseRecord(doc);
  }

  /**
   * The license with only its activations that meet `cond` (an aggregation expression on
   * `$$this`): the database filters the list, so only those travel. Null for an unknown key.
   */
  protected async withActivationsWhere(
    licenseKey: string,
    cond: object,
  ): Promise<{ license: LicenseRecord; activations: ActivationRecord[] } | null> {
    const [doc] = await this.licenses
      .aggregate<LicenseDocument>([
        { $match: { license_key: licenseKey } },
        { $addFields: { activations: { $filter: { input: '$activations', cond } } } },
      ])
      .toArray();
    return doc
      ? { license: licenseRecord(doc), activations: doc.activations.map(activationRecord) }
      : null;
  }

  async findWithActivations({
    licenseKey,
    identifierKeys,
  }: {
    licenseKey: string;
    identifierKeys: readonly string[];
  }): Promise<{ license: LicenseRecord; activations: ActivationRecord[] } | null> {
    if (identifierKeys.length === 0) {
      const license = await this.findByKey(licenseKey);
      return license && { license, activations: [] };
    }
    return this.withActivationsWhere(licenseKey, {
      $in: ['$$this.identifier_key', [...new Set(identifierKeys)]],
    });
  }

  async claimSlot({
    licenseKey,
    activation,
    now,
    asRead,
  }: {
    licenseKey: string;
    activation: NewActivation;
    now: Date;
    asRead?: UsableAsRead;
  }): Promise<{ license: LicenseRecord; activation: ActivationRecord } | null> {
    const key = identifierKey(activation.identifier);
    // In the schema's field order, as mongoose would have stored it.
    const pushed: ActivationRecord = {
      identifier: activation.identifier,
      identifier_key: key,
      name: activation.name,
      ip: activation.ip,
      activated_at: activation.activated_at,
      last_checkout_at: null,
      lease_expires_at: activation.lease_expires_at,
      exempt: activation.exempt,
    };
    const bytes = activationBytes(pushed);
    // An exempt activation takes one of the exempt slots; any other, one of the limit's.
    const slots = activation.exempt
      ? { $lt: ['$exempt_used', '$exempt_limit'] }
      : {
          $or: [
            { $eq: ['$activation_limit', 0] },
            { $lt: ['$activations_used', '$activation_limit'] },
          ],
        };
    const doc = await this.licenses.findOneAndUpdate(
      {
        license_key: licenseKey,
        ...usableFilter(asRead, now),
        'activations.identifier_key': { $ne: key },
        activations_bytes: { $lte: MAX_ACTIVATION_BYTES - bytes },
        $expr: slots,
      },
      {
        $push: { activations: pushed },
        $inc: {
          [activation.exempt ? 'exempt_used' : 'activations_used']: 1,
          activations_bytes: bytes,
        },
        $set: { updated_at: now },
      },
      { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    return doc && { license: licenseRecord(doc), activation: pushed };
  }

  async releaseSlot({
    licenseKey,
    activation,
    now,
  }: {
    licenseKey: string;
    activation: ActivationRecord;
    now: Date;
  }): Promise<{ license: LicenseRecord; released: ActivationRecord } | null> {
    // This very activation, as read: what its removal gives back of the record is then known.
    const doc = await this.licenses.findOneAndUpdate(
      {
        license_key: licenseKey,
        activations: {
          $elemMatch: {
            identifier_key: activation.identifier_key,
            identifier: activation.identifier,
            activated_at: activation.activated_at,
          },
        },
      },
      removal(activation, now),
      { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
    );
    return doc && { license: licenseRecord(doc), released: activation };
  }

  async renewLease({
    licenseKey,
    identifierKey: key,
    now,
    until,
  }: {
    licenseKey: string;
    identifierKey: string;
    now: Date;
    until: Date;
  }): Promise<boolean> {
    const { matchedCount } = await this.licenses.updateOne(
      { license_key: licenseKey, activations: { $elemMatch: liveActivation(key, now) } },
      { $set: { 'activations.$.lease_expires_at': until } },
    );
    return matchedCount === 1;
  }

  async releaseLapsed({
    licenseKey,
    now,
  }: {
    licenseKey: string;
    now: Date;
  }): Promise<LapsedRelease | null> {
    // The lapsed ones, picked out by the database; then each removed while still lapsed.
    const found = await this.withActivationsWhere(licenseKey, {
      $and: [LEASED, { $lte: ['$$this.lease_expires_at', now] }],
    });
    if (!found) return null;
    const released: ActivationRecord[] = [];
    let after: LicenseDocument | null = null;
    for (const activation of found.activations) {
      const doc = await this.licenses.findOneAndUpdate(
        {
          license_key: licenseKey,
          activations: {
            $elemMatch: {
              identifier_key: activation.identifier_key,
              lease_expires_at: { $lte: now },
            },
          },
        },
        removal(activation, now),
        { returnDocument: 'after', projection: WITHOUT_ACTIVATIONS, includeResultMetadata: false },
      );
      if (doc) {
        released.push(activation);
        after = doc;
      }
    }
    return { license: after ? licenseRecord(after) : found.license, released };
  }

  async withLapsedActivations({ now, limit }: { now: Date; limit: number }): Promise<string[]> {
    const found = await this.licenses
      .find({ 'activations.lease_expires_at': { $lte: now } }, { projection: { license_key: 1 } })
      .limit(limit)
      .toArray();
    return found.map((doc) => doc.license_key);
  }

  recordCheckout(check: RecordedCheckout): Promise<boolean> {
    return recordCheckout(this.licenses, check);
  }

  touchCheckIfMatching(check: MatchingCheck): Promise<LicenseRecord | null> {
    return touchCheckIfMatching(this.licenses, check);
  }
}
