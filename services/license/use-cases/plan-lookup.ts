import { internalError } from '../../../libs/contracts/index.js';
import { CachedLookup } from '../../../libs/cache/index.js';
import type { PlanRecord } from '../records.js';
import type { PlanStore } from '../stores.js';

/**
 * The plans as the handlers read them, one cache for all of them, each kept `ttlMs`
 * (PLAN_CACHE_TTL_MS): an admin's change of a plan (its name, lease or exemptions) reaches the
 * other replicas within this, and at once the replica that made it.
 */
export interface PlanLookup {
  /** The plan with this id, or null when there is none. */
  find(id: number): Promise<PlanRecord | null>;
  /** Forgets a plan this replica changed, so that its next read is the stored plan. */
  invalidate(id: number): void;
  /** A plan a license is on, or is to change to: it must exist, so its absence is a fault. */
  planOf(id: number): Promise<PlanRecord>;
  /** The name of such a plan. */
  planName(id: number): Promise<string>;
}

export function planLookup(plans: Pick<PlanStore, 'find'>, ttlMs = 30_000): PlanLookup {
  const cache = new CachedLookup((id: number) => plans.find(id), { ttlMs });
  async function planOf(id: number): Promise<PlanRecord> {
    const plan = await cache.find(id);
    if (!plan) throw internalError(`The plan ${id} of this license is missing.`);
    return plan;
  }
  return {
    find: (id) => cache.find(id),
    invalidate: (id) => cache.invalidate(id),
    planOf,
    planName: async (id) => (await planOf(id)).name,
  };
}
