import { LicensingClient, isLicenseProblem } from '../../libs/client/src/index.js';
import { bootSystem, type TestSystem } from '../support/system.js';

/** The reference client's `recordUsage` against the real system (docs/api-decisions.md). */
let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

async function metered(maxUses: number) {
  const { key, product, plan } = await system.license({ activation_type: 'device' });
  await system.transport.call('license.updatePlan', { id: plan.id, max_uses: maxUses });
  return { key, client: new LicensingClient(system.running.gatewayUrl, product.id) };
}

describe('recordUsage', () => {
  test('records uses, once per idempotency key, and a new key for each call without one', async () => {
    const { key, client } = await metered(10);
    expect(await client.recordUsage(key)).toMatchObject({
      success: true,
      data: { uses: 1, max_uses: 10, resets_at: null },
    });
    await client.recordUsage(key, { increment: 3, idempotencyKey: 'export-42' });
    const again = await client.recordUsage(key, { increment: 3, idempotencyKey: 'export-42' });
    expect(again.data).toEqual({ uses: 4, max_uses: 10, resets_at: null });
    expect((await client.recordUsage(key)).data?.uses).toBe(5);
  });

  test('USAGE_LIMIT_REACHED is a license problem carrying uses and max_uses', async () => {
    const { key, client } = await metered(2);
    await client.recordUsage(key, { increment: 2 });
    const result = await client.recordUsage(key);
    expect(result).toMatchObject({
      success: false,
      code: 'USAGE_LIMIT_REACHED',
      httpStatus: 403,
      details: { uses: 2, max_uses: 2 },
    });
    expect(isLicenseProblem(result)).toBe(true);
  });

  test('an identifier sent must be activated', async () => {
    const { key, client } = await metered(5);
    const refused = await client.recordUsage(key, { identifier: 'laptop' });
    expect(refused).toMatchObject({ success: false, code: 'ACTIVATION_NOT_FOUND' });
    await client.activate(key, 'laptop');
    expect((await client.recordUsage(key, { identifier: 'laptop' })).data?.uses).toBe(1);
  });
});
