import type { Collection } from 'mongodb';
import type { LicenseDocument } from '../models.js';
import type { LicenseFilter } from '../licenses/mongo-license-documents.js';
import { RECENT_USAGE_KEYS, usageKeyDigest, type UsageStore } from './usage-store.js';
import type { StoredUsage } from './usage-rules.js';

/**
 * The usage counters on the licenses collection (usage-store.ts): fields of each license's
 * record, `uses` in the period that started at `uses_period_start`, the digests of its recent
 * idempotency keys in `usage_keys`, and the period whose limit notice was sent in
 * `usage_notice_period`. Licenses stored before have none of them.
 */
export class MongoUsageStore implements UsageStore {
  constructor(private readonly licenses: Collection<LicenseDocument>) {}

  async findUsage({
    licenseKey,
    idempotencyKey,
  }: Parameters<UsageStore['findUsage']>[0]): Promise<(StoredUsage & { seen: boolean }) | null> {
    const digest = idempotencyKey === null ? null : usageKeyDigest(idempotencyKey);
    const [doc] = await this.licenses
      .aggregate<{ uses?: number; uses_period_start?: Date | null; seen: boolean }>([
        { $match: { license_key: licenseKey } },
        {
          $project: {
            _id: 0,
            uses: 1,
            uses_period_start: 1,
            seen: { $in: [digest, { $ifNull: ['$usage_keys', []] }] },
          },
        },
      ])
      .toArray();
    if (!doc) return null;
    return { uses: doc.uses ?? 0, period_start: doc.uses_period_start ?? null, seen: doc.seen };
  }

  async addUses({
    licenseKey,
    idempotencyKey,
    increment,
    maxUses,
    periodStart,
    now,
  }: Parameters<UsageStore['addUses']>[0]): Promise<number | null> {
    const digest = usageKeyDigest(idempotencyKey);
    const unseen: LicenseFilter = { license_key: licenseKey, usage_keys: { $ne: digest } };
    const remember = { usage_keys: { $each: [digest], $slice: -RECENT_USAGE_KEYS } };
    const options = {
      returnDocument: 'after',
      projection: { uses: 1 },
      includeResultMetadata: false,
    } as const;
    // The period's counter, while the total stays within the cap.
    const added = await this.licenses.findOneAndUpdate(
      { ...unseen, uses_period_start: periodStart, uses: { $lte: maxUses - increment } },
      { $inc: { uses: increment }, $push: remember, $set: { updated_at: now } },
      options,
    );
    if (added) return added.uses ?? increment;
    if (increment > maxUses) return null;
    // A counter of an earlier period, or none: it starts again, unless another call did first.
    const started = await this.licenses.findOneAndUpdate(
      { ...unseen, uses_period_start: { $ne: periodStart } },
      {
        $set: { uses: increment, uses_period_start: periodStart, updated_at: now },
        $push: remember,
      },
      options,
    );
    return started ? (started.uses ?? increment) : null;
  }

  async claimLimitNotice({
    licenseKey,
    periodStart,
  }: Parameters<UsageStore['claimLimitNotice']>[0]): Promise<boolean> {
    const { modifiedCount } = await this.licenses.updateOne(
      { license_key: licenseKey, usage_notice_period: { $ne: periodStart } },
      { $set: { usage_notice_period: periodStart } },
    );
    return modifiedCount === 1;
  }

  async resetUses({
    licenseKey,
    periodStart,
    now,
  }: Parameters<UsageStore['resetUses']>[0]): Promise<boolean> {
    const { matchedCount } = await this.licenses.updateOne(
      { license_key: licenseKey },
      {
        $set: { uses: 0, uses_period_start: periodStart, updated_at: now },
        $unset: { usage_notice_period: '' },
      },
    );
    return matchedCount === 1;
  }
}
