import { defaultExpiryTerms } from '../../libs/contracts/plans/plan-expiry.js';
import { randomUUID } from 'node:crypto';
import type { UsesReset } from '../../libs/contracts/index.js';
import {
  DAY,
  IP,
  NOW,
  abandoned,
  refusedWith,
  service,
  waiting,
} from '../support/license-handler-harness.js';

/**
 * Usage counters at the handler level (docs/api-decisions.md, "Usage counters"), on the
 * in-memory stores and a clock the tests move: the period's reset, the `usage.limit_reached`
 * event once per period, and the plan read live.
 */

function metered(plan: { max_uses: number | null; uses_reset?: UsesReset }) {
  let now = new Date(NOW);
  const system = service({ clock: () => new Date(now) });
  const setup = async () => {
    const created = await system.handlers['license.createPlan'](
      {
        name: 'Metered',
        activation_type: 'device',
        activation_limit: 2,
        lease_seconds: null,
        exempt_identifiers: [],
        exempt_limit: 3,
        trial_days: null,
        entitlements: [],
        ...defaultExpiryTerms,
        ...plan,
      },
      waiting,
    );
    return { planId: created.id, key: await system.license({ plan_id: created.id }) };
  };
  const use = (key: string, fields: { increment?: number; idempotency_key?: string } = {}) =>
    system.handlers['license.recordUsage'](
      {
        license_key: key,
        product_id: 10,
        identifier: null,
        increment: fields.increment ?? 1,
        idempotency_key: fields.idempotency_key ?? randomUUID(),
        ip: IP,
      },
      waiting,
    );
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  return { ...system, setup, use, advance };
}

describe('usage counters', () => {
  test('a daily counter starts again at midnight UTC, and says when', async () => {
    const { setup, use, advance } = metered({ max_uses: 5, uses_reset: 'daily' });
    const { key } = await setup();
    expect(await use(key, { increment: 5 })).toEqual({
      uses: 5,
      max_uses: 5,
      resets_at: '2026-06-02T00:00:00.000Z',
    });
    await expect(use(key)).rejects.toEqual(refusedWith('USAGE_LIMIT_REACHED', 403));
    advance(DAY / 2);
    expect(await use(key, { increment: 2 })).toEqual({
      uses: 2,
      max_uses: 5,
      resets_at: '2026-06-03T00:00:00.000Z',
    });
  });

  test('a monthly counter keeps its uses within the month', async () => {
    const { setup, use, advance } = metered({ max_uses: 100, uses_reset: 'monthly' });
    const { key } = await setup();
    await use(key, { increment: 40 });
    advance(10 * DAY);
    expect(await use(key)).toMatchObject({ uses: 41, resets_at: '2026-07-01T00:00:00.000Z' });
    advance(20 * DAY);
    expect(await use(key)).toMatchObject({ uses: 1, resets_at: '2026-08-01T00:00:00.000Z' });
  });

  test('usage.limit_reached: once per period, when the cap is reached or refused for', async () => {
    const { setup, use, advance, events } = metered({ max_uses: 3, uses_reset: 'daily' });
    const { key, planId } = await setup();
    await use(key, { increment: 2 });
    expect(events.ofType('usage.limit_reached')).toHaveLength(0);
    await use(key);
    await expect(use(key)).rejects.toEqual(refusedWith('USAGE_LIMIT_REACHED', 403));
    expect(events.ofType('usage.limit_reached').map((e) => e.data)).toEqual([
      {
        license_key: key,
        product_id: 10,
        plan_id: planId,
        uses: 3,
        max_uses: 3,
        uses_reset: 'daily',
        resets_at: '2026-06-02T00:00:00.000Z',
      },
    ]);
    // The next day: an increment refused before the cap is reached also sends it, once.
    advance(DAY);
    await use(key, { increment: 2 });
    await expect(use(key, { increment: 2 })).rejects.toEqual(
      refusedWith('USAGE_LIMIT_REACHED', 403),
    );
    await expect(use(key, { increment: 2 })).rejects.toThrow();
    expect(events.ofType('usage.limit_reached').map((e) => e.data.uses)).toEqual([3, 2]);
  });

  test("the plan's cap and period are read on each call", async () => {
    const { setup, use, handlers } = metered({ max_uses: null });
    const { key, planId } = await setup();
    await expect(use(key)).rejects.toEqual(refusedWith('INVALID_REQUEST', 400));
    await handlers['license.updatePlan']({ id: planId, max_uses: 2, uses_reset: 'daily' }, waiting);
    expect(await use(key)).toMatchObject({ uses: 1, max_uses: 2 });
  });

  test('50 calls at once with one idempotency key count once', async () => {
    const { setup, use } = metered({ max_uses: 10 });
    const { key } = await setup();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => use(key, { increment: 2, idempotency_key: 'same' })),
    );
    expect(new Set(answers.map((a) => a.uses))).toEqual(new Set([2]));
    expect(await use(key)).toMatchObject({ uses: 3 });
  });

  test('a caller that stopped waiting writes nothing', async () => {
    const { setup, use, handlers } = metered({ max_uses: 10 });
    const { key } = await setup();
    const request = {
      license_key: key,
      product_id: 10,
      identifier: null,
      increment: 1,
      idempotency_key: 'late',
      ip: IP,
    };
    await expect(handlers['license.recordUsage'](request, abandoned)).rejects.toThrow();
    expect(await use(key)).toMatchObject({ uses: 1 });
  });
});
