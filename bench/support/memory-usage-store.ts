import type { StoredUsage } from '../../services/license/usage/usage-rules.js';
import {
  RECENT_USAGE_KEYS,
  usageKeyDigest,
  type UsageStore,
} from '../../services/license/usage/usage-store.js';
import { deepCopy as copy } from './deep-copy.js';
import { roundTrip, type MemoryLicenseTable } from './memory-license-table.js';

interface MemoryCounter {
  uses: number;
  period_start: Date | null;
  keys: string[];
  notice_period: Date | null;
}

const same = (a: Date | null, b: Date) => a?.getTime() === b.getTime();

/**
 * The usage counters in memory (services/license/usage/usage-store.ts), on the licenses of the
 * table, each conditional write checked and applied in one synchronous step, as the MongoDB
 * store's.
 */
export class MemoryUsageStore implements UsageStore {
  private readonly counters = new Map<string, MemoryCounter>();

  constructor(
    private readonly table: MemoryLicenseTable,
    private readonly counter: { writes: number },
  ) {}

  private counterOf(licenseKey: string): MemoryCounter | null {
    if (!this.table.byKey.has(licenseKey)) return null;
    let found = this.counters.get(licenseKey);
    if (!found) {
      found = { uses: 0, period_start: null, keys: [], notice_period: null };
      this.counters.set(licenseKey, found);
    }
    return found;
  }

  async findUsage({
    licenseKey,
    idempotencyKey,
  }: Parameters<UsageStore['findUsage']>[0]): Promise<(StoredUsage & { seen: boolean }) | null> {
    await roundTrip();
    const found = this.counterOf(licenseKey);
    if (!found) return null;
    return {
      uses: found.uses,
      period_start: copy(found.period_start),
      seen: idempotencyKey !== null && found.keys.includes(usageKeyDigest(idempotencyKey)),
    };
  }

  async addUses({
    licenseKey,
    idempotencyKey,
    increment,
    maxUses,
    periodStart,
  }: Parameters<UsageStore['addUses']>[0]): Promise<number | null> {
    await roundTrip();
    const found = this.counterOf(licenseKey);
    const digest = usageKeyDigest(idempotencyKey);
    if (!found || found.keys.includes(digest)) return null;
    if (same(found.period_start, periodStart)) {
      if (found.uses + increment > maxUses) return null;
      found.uses += increment;
    } else {
      if (increment > maxUses) return null;
      found.uses = increment;
      found.period_start = copy(periodStart);
    }
    found.keys = [...found.keys, digest].slice(-RECENT_USAGE_KEYS);
    this.counter.writes++;
    return found.uses;
  }

  async claimLimitNotice({
    licenseKey,
    periodStart,
  }: Parameters<UsageStore['claimLimitNotice']>[0]): Promise<boolean> {
    await roundTrip();
    const found = this.counterOf(licenseKey);
    if (!found || same(found.notice_period, periodStart)) return false;
    found.notice_period = copy(periodStart);
    this.counter.writes++;
    return true;
  }

  async resetUses({
    licenseKey,
    periodStart,
  }: Parameters<UsageStore['resetUses']>[0]): Promise<boolean> {
    await roundTrip();
    const found = this.counterOf(licenseKey);
    if (!found) return false;
    Object.assign(found, { uses: 0, period_start: copy(periodStart), notice_period: null });
    this.counter.writes++;
    return true;
  }
}
