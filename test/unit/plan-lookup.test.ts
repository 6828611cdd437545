import { planLookup } from '../../services/license/use-cases/plan-lookup.js';
import type { PlanRecord } from '../../services/license/records.js';

/** A plan store that counts its reads. */
function countingPlans() {
  const plan = { id: 1, name: 'Single site' } as PlanRecord;
  const store = {
    reads: 0,
    async find(id: number) {
      store.reads++;
      return id === plan.id ? plan : null;
    },
  };
  return store;
}

describe('PLAN_CACHE_TTL_MS: how long a license service replica keeps a plan it read', () => {
  test('within the time a plan is read once, however often it is asked for', async () => {
    const store = countingPlans();
    const plans = planLookup(store, 60_000);
    await plans.find(1);
    await plans.planName(1);
    await plans.planOf(1);
    expect(store.reads).toBe(1);
  });

  test('0 keeps nothing: every ask reads the store', async () => {
    const store = countingPlans();
    const plans = planLookup(store, 0);
    await plans.find(1);
    await plans.find(1);
    expect(store.reads).toBe(2);
  });

  test('the replica that changes a plan reads it again at once', async () => {
    const store = countingPlans();
    const plans = planLookup(store, 60_000);
    await plans.find(1);
    plans.invalidate(1);
    await plans.find(1);
    expect(store.reads).toBe(2);
  });
});
