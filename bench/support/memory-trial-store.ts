import type { TrialRecord } from '../../services/license/records.js';
import type { TrialStore } from '../../services/license/trials/trial-store.js';
import { deepCopy as copy } from './deep-copy.js';
import { roundTrip } from './memory-license-table.js';

/**
 * The trials in memory, with the semantics of the MongoDB store: one per trial key (the product
 * and the identifier as compared), as under its unique index, each check and write in one synchronous step.
 */
export class MemoryTrialStore implements TrialStore {
  private readonly rows = new Map<string, TrialRecord>();

  constructor(private readonly counter: { writes: number }) {}

  async record(
    trial: TrialRecord,
  ): Promise<
    { outcome: 'recorded'; trial: TrialRecord } | { outcome: 'taken'; trial: TrialRecord }
  > {
    await roundTrip();
    const held = this.rows.get(trial.trial_key);
    if (held) return { outcome: 'taken', trial: copy(held) };
    this.rows.set(trial.trial_key, copy(trial));
    this.counter.writes++;
    return { outcome: 'recorded', trial: copy(trial) };
  }

  async findOpen({
    productIds,
    identifierKey,
  }: {
    productIds: readonly number[];
    identifierKey: string;
  }): Promise<TrialRecord | null> {
    await roundTrip();
    const found = [...this.rows.values()].find(
      (t) =>
        t.identifier_key === identifierKey &&
        t.converted_at === null &&
        productIds.includes(t.product_id),
    );
    return found ? copy(found) : null;
  }

  async isTrialLicense(licenseKey: string): Promise<boolean> {
    await roundTrip();
    return [...this.rows.values()].some((t) => t.license_key === licenseKey);
  }

  async convert({
    productId,
    identifierKey,
    licenseKey,
    at,
  }: {
    productId: number;
    identifierKey: string;
    licenseKey: string;
    at: Date;
  }): Promise<TrialRecord | null> {
    await roundTrip();
    const trial = [...this.rows.values()].find(
      (t) => t.product_id === productId && t.identifier_key === identifierKey,
    );
    if (!trial || trial.converted_at !== null) return null;
    trial.converted_at = copy(at);
    trial.converted_license_key = licenseKey;
    this.counter.writes++;
    return copy(trial);
  }

  private matching(productId: number | null, converted: boolean | null): TrialRecord[] {
    return [...this.rows.values()].filter(
      (t) =>
        (productId === null || t.product_id === productId) &&
        (converted === null || (t.converted_at !== null) === converted),
    );
  }

  async list({
    productId,
    converted,
    page,
    perPage,
  }: {
    productId: number | null;
    converted: boolean | null;
    page: number;
    perPage: number;
  }): Promise<{ trials: TrialRecord[]; total: number }> {
    await roundTrip();
    const all = this.matching(productId, converted).sort(
      (a, b) => b.started_at.getTime() - a.started_at.getTime(),
    );
    return { trials: all.slice((page - 1) * perPage, page * perPage).map(copy), total: all.length };
  }

  async counts({ productId }: { productId: number | null }) {
    await roundTrip();
    return {
      started: this.matching(productId, null).length,
      converted: this.matching(productId, true).length,
    };
  }
}
