import { verifyLicenseFile } from '../../libs/client/src/index.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * License files on a plan with a lease (docs/api-decisions.md, "License files" and "Leases"): a
 * file never outlasts the activation it was issued for, whose lease the checkout renews, so a
 * slot freed by a lapsed lease never leaves a file that still holds; without a lease a file is
 * the time to live asked, as ever.
 */

const DAY = 86_400;
let system: TestSystem;
let keys: { keys: Array<Record<string, string>> };
beforeAll(async () => {
  system = await bootSystem({ LICENSE_FILE_MAX_TTL_SECONDS: String(DAY) });
  keys = (await system.api().get(`${API_BASE}/keys`)).body;
});
afterAll(() => system?.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (iso: string) => Date.parse(iso) / 1000;

/** The lease end of the license's one activation, as the admin detail shows it. */
async function activationLeaseEnd(key: string): Promise<string | null> {
  const shown = await system.transport.call('license.getLicense', { license_key: key });
  return shown.activations[0]!.lease_expires_at;
}

async function checkout(key: string, productId: number, identifier: string) {
  const res = await system.post('checkout', {
    license_key: key,
    identifier,
    product_id: productId,
    ttl: DAY,
  });
  expect(res.status).toBe(200);
  return res.body.data as { license_file: string; issued_at: string; expires_at: string };
}

describe('license files on a plan with a lease', () => {
  test("a file ends with the activation's lease, which the checkout renews: never after it", async () => {
    const { key, product } = await system.license({ lease_seconds: 60, activation_limit: 1 });
    const activated = await system.post('activate', { license_key: key, identifier: 'a.example' });
    expect(activated.status).toBe(200);
    await sleep(1100);
    const file = await checkout(key, product.id, 'a.example');
    expect(seconds(file.expires_at) - seconds(file.issued_at)).toBe(60);
    // Renewed by the checkout, past the lease activate gave, and exactly where the file ends.
    expect(Date.parse(file.expires_at)).toBeGreaterThan(
      Date.parse(activated.body.data.lease_expires_at),
    );
    expect(await activationLeaseEnd(key)).toBe(file.expires_at);
  });

  test('the lease lapses and another identifier takes the slot: the first file has expired by then', async () => {
    const { key, product } = await system.license({ lease_seconds: 2, activation_limit: 1 });
    await system.post('activate', { license_key: key, identifier: 'a.example' });
    const first = await checkout(key, product.id, 'a.example');
    const lapsed = Date.parse((await activationLeaseEnd(key))!) - Date.now() + 150;
    if (lapsed > 0) await sleep(lapsed);
    const taken = await system.post('activate', { license_key: key, identifier: 'b.example' });
    expect(taken.status).toBe(200);
    expect(taken.body.data.activations_used).toBe(1);
    const takenAt = new Date();
    const verified = await verifyLicenseFile(first.license_file, {
      keys,
      productId: product.id,
      now: takenAt,
    });
    expect(verified).toMatchObject({ success: false, code: 'LICENSE_FILE_EXPIRED' });
    // The second identifier's file, too, ends with its own lease.
    const second = await checkout(key, product.id, 'b.example');
    expect(seconds(second.expires_at) - seconds(second.issued_at)).toBe(2);
  });
});

describe('license files on a plan without a lease', () => {
  test('a file is the time to live asked, and the activation keeps no lease', async () => {
    const { key, product } = await system.license({ activation_limit: 1 });
    await system.post('activate', { license_key: key, identifier: 'a.example' });
    const file = await checkout(key, product.id, 'a.example');
    expect(seconds(file.expires_at) - seconds(file.issued_at)).toBe(DAY);
    expect(await activationLeaseEnd(key)).toBeNull();
  });
});
