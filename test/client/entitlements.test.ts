import { hasEntitlement, LicensingClient } from '../../libs/client/src/index.js';
import { API_BASE } from '../../libs/contracts/api-base.js';
import { bootSystem, unique, type TestSystem } from '../support/system.js';

/** `hasEntitlement` on the signed answers and license files of the real system. */
let system: TestSystem;
let keys: unknown;
beforeAll(async () => {
  system = await bootSystem();
  keys = (await system.api().get(`${API_BASE}/keys`)).body;
});
afterAll(() => system?.stop());

async function define(code: string) {
  await system.transport.call('license.createEntitlement', { code, name: code });
  return code;
}

describe('hasEntitlement on a result or a license file', () => {
  test("grants the plan's and the license's own live entitlements, nothing else", async () => {
    const byPlan = await define(`plan-${unique()}`);
    const own = await define(`own-${unique()}`);
    const lapsed = await define(`lapsed-${unique()}`);
    const { key, product } = await system.license({ entitlements: [byPlan] });
    await system.transport.call('license.grantEntitlement', { license_key: key, code: own });
    await system.transport.call('license.grantEntitlement', {
      license_key: key,
      code: lapsed,
      expires_at: '2020-01-01T00:00:00.000Z',
    });
    const client = new LicensingClient(system.running.gatewayUrl, product.id, {
      keys: keys as never,
    });

    const activated = await client.activate(key, 'shop.example');
    const validated = await client.validate(key);
    const checkout = await client.checkout(key, 'shop.example');
    if (!checkout.success) throw new Error(checkout.message);
    const file = await client.verifyLicenseFile(checkout.data.license_file);
    for (const answer of [activated, validated, file]) {
      expect(answer.success).toBe(true);
      expect(hasEntitlement(answer, byPlan)).toBe(true);
      expect(hasEntitlement(answer, own)).toBe(true);
      expect(hasEntitlement(answer.data, own)).toBe(true);
      expect(hasEntitlement(answer, lapsed)).toBe(false);
      expect(hasEntitlement(answer, 'never-defined')).toBe(false);
    }
  });

  test('a failed answer, or a license that is not active, grants nothing', async () => {
    const code = await define(`any-${unique()}`);
    const { key, product } = await system.license({
      entitlements: [code],
      expires_at: '2020-01-01T00:00:00.000Z',
    });
    const client = new LicensingClient(system.running.gatewayUrl, product.id);
    const expired = await client.validate(key);
    expect(expired.data?.entitlements).toEqual([code]);
    expect(hasEntitlement(expired, code)).toBe(false);
    const refused = await client.activate(key, 'shop.example');
    expect(refused.success).toBe(false);
    expect(hasEntitlement(refused, code)).toBe(false);
    expect(hasEntitlement(null, code)).toBe(false);
  });
});

describe('validate asking about entitlements', () => {
  test('sends them as entitlements=a,b and answers those the license lacks', async () => {
    const held = await define(`held-${unique()}`);
    const lacked = await define(`lacked-${unique()}`);
    const { key, product } = await system.license({ entitlements: [held] });
    const client = new LicensingClient(system.running.gatewayUrl, product.id, {
      keys: keys as never,
    });
    expect((await client.activate(key, 'shop.example')).success).toBe(true);

    const asked = await client.validate(key, {
      identifier: 'shop.example',
      entitlements: [held, lacked],
    });
    expect(asked.success).toBe(true);
    expect(asked.data).toMatchObject({
      valid: false,
      identifier_activated: true,
      entitlements: [held],
      entitlements_missing: [lacked],
      code: 'ENTITLEMENTS_MISSING',
    });

    const covered = await client.validate(key, { entitlements: [held] });
    expect(covered.data).toMatchObject({ valid: true, entitlements_missing: [], code: null });
    // The identifier alone, as before: nothing asked about, nothing missing.
    const plain = await client.validate(key, 'shop.example');
    expect(plain.data).toMatchObject({ valid: true, identifier_activated: true, code: null });
  });
});
