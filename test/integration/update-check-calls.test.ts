import { register } from 'prom-client';
import { WARM_CACHES } from '../support/command-monitor.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * Spec 4.4 decides nothing about a license: the update check is one call from the gateway to the
 * update catalog, which asks the license service once for the key's coverage. The license
 * service reads the license's product from its cache (kept by the catalog's product-changed
 * events), so no request goes back to the catalog (docs/architecture.md, "How an update check flows").
 */
let system: TestSystem;
beforeAll(async () => {
  // The caches kept for the whole file: an entry expiring in a slow run is not a request's call.
  system = await bootSystem(WARM_CACHES);
});
afterAll(async () => {
  await system?.stop();
});

/** The RPC calls this process has made, by method (every service of a test system shares it). */
async function callsByMethod(): Promise<Map<string, number>> {
  const metric = register.getSingleMetric('rpc_call_duration_seconds');
  if (!metric) throw new Error('rpc_call_duration_seconds is not registered');
  const counts = new Map<string, number>();
  for (const value of (await metric.get()).values) {
    // A histogram's values are its buckets, sum and count, told apart by their names.
    const name = 'metricName' in value ? String(value.metricName) : '';
    if (!name.endsWith('_count')) continue;
    const method = String(value.labels['method']);
    counts.set(method, (counts.get(method) ?? 0) + value.value);
  }
  return counts;
}

/** What `act` added to the calls made, for the methods an update check could call. */
async function callsDuring(act: () => Promise<void>): Promise<Record<string, number>> {
  const before = await callsByMethod();
  await act();
  const after = await callsByMethod();
  const added: Record<string, number> = {};
  for (const [method, count] of after) {
    const delta = count - (before.get(method) ?? 0);
    if (delta > 0 && /^(license|update-catalog)\./.test(method)) added[method] = delta;
  }
  return added;
}

async function publishVersion(productId: number) {
  const version = await system.transport.call('update-catalog.createVersion', {
    product_id: productId,
    version: '1.0.0',
    published: true,
    release_date: null,
    release_notes: null,
  });
  await system.transport.call('update-catalog.addFile', {
    version_id: version.id,
    filename: 'app.zip',
    plan_id: null,
    include_in_updates: true,
    size: 1000,
    sha256: 'a'.repeat(64),
    content_type: 'application/zip',
    object_key: `packages/calls/${productId}.zip`,
  });
}

describe('spec 4.4: the update check asks once', () => {
  const CHECKS = 5;

  async function check(productId: number, key: string) {
    const res = await system
      .api()
      .get(`${API_BASE}/updates/${productId}`)
      .query({ license_key: key, identifier: 'example.com' });
    expect(res.status).toBe(200);
    expect(res.body.data.version).toBe('1.0.0');
  }

  test("a key's update check: one catalog call, one coverage read, nothing back to the catalog", async () => {
    const { product, key } = await system.license();
    await publishVersion(product.id);
    await check(product.id, key); // fills the caches a first request fills

    const calls = await callsDuring(async () => {
      for (let i = 0; i < CHECKS; i++) await check(product.id, key);
    });
    expect(calls).toEqual({
      'update-catalog.checkUpdate': CHECKS,
      'license.coverage': CHECKS,
    });
  });

  test("a bundle key's update check of one of its products: the same calls", async () => {
    const item = await system.transport.call('update-catalog.createProduct', {
      title: 'Bundled item',
      bundle_items: [],
    });
    await publishVersion(item.id);
    const { key } = await system.license({ bundle_items: [item.id] });
    await check(item.id, key);

    const calls = await callsDuring(async () => {
      for (let i = 0; i < CHECKS; i++) await check(item.id, key);
    });
    expect(calls).toEqual({
      'update-catalog.checkUpdate': CHECKS,
      'license.coverage': CHECKS,
    });
  });
});
