import type { ImportLicense, LicenseSummary } from '../../libs/contracts/index.js';
import { adminOf, bootSystem, unique, type TestSystem } from '../support/system.js';

/**
 * `license.importLicenses` through RabbitMQ to two license replicas on MongoDB: licenses moved
 * from another system keep their keys byte for byte, are written once however often and however
 * many times at once a batch is sent, and are then found by clients and admins.
 */
let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem({}, { licenseReplicas: 2 });
});
afterAll(() => system?.stop());

const { get } = adminOf(() => system);

async function productAndPlan() {
  const product = await system.transport.call('update-catalog.createProduct', {
    title: `Product ${unique()}`,
    bundle_items: [],
  });
  const plan = await system.transport.call('license.createPlan', {
    name: `Plan ${unique()}`,
    activation_type: 'domain',
    activation_limit: 2,
    lease_seconds: null,
    exempt_identifiers: [],
    exempt_limit: 3,
    entitlements: [],
  });
  return { product_id: product.id, plan_id: plan.id };
}

function batch(on: { product_id: number; plan_id: number }, count: number): ImportLicense[] {
  const run = unique();
  return Array.from({ length: count }, (_, i) => ({
    line: i + 1,
    imported_from: { source: 'edd' as const, source_id: `${run}-${i}` },
    // Keys this service would never make: spaces, lower case, a dot, non-ASCII letters.
    license_key: ` edd key ${run}.${i} – Ä `,
    ...on,
    status: 'active' as const,
    expires_at: '2099-01-01T00:00:00.000Z',
    activation_limit: null,
    customer: { email: `buyer${i}@example.com`, name: null },
    activations: [
      { identifier: `https://www.Site${i}.example/`, exempt: false, activated_at: null },
      { identifier: `staging${i}.example`, exempt: true, activated_at: null },
    ],
  }));
}

const importLicenses = (licenses: ImportLicense[], options: { dry_run?: boolean } = {}) =>
  system.transport.call('license.importLicenses', {
    licenses,
    dry_run: options.dry_run ?? false,
    update: false,
  });

const outcomes = (answer: { results: { outcome: string }[] }) =>
  answer.results.map((result) => result.outcome);

const licensesOf = async (productId: number) => {
  const res = await get(`/licenses?product_id=${productId}&per_page=100`);
  return res.body.data.licenses as LicenseSummary[];
};

test('a run stopped half way and started again ends with one license per key', async () => {
  const on = await productAndPlan();
  const licenses = batch(on, 40);
  expect(outcomes(await importLicenses(licenses.slice(0, 15)))).toEqual(Array(15).fill('created'));
  const again = await importLicenses(licenses);
  expect(outcomes(again)).toEqual([...Array(15).fill('matched'), ...Array(25).fill('created')]);
  const stored = await licensesOf(on.product_id);
  expect(stored.map((l) => l.license_key).sort()).toEqual(
    licenses.map((l) => l.license_key).sort(),
  );
  expect(stored.every((l) => l.activations_used === 1 && l.exempt_used === 1)).toBe(true);
});

test('the same batch sent three times at once creates each license once', async () => {
  const on = await productAndPlan();
  const licenses = batch(on, 30);
  const answers = await Promise.all([1, 2, 3].map(() => importLicenses(licenses)));
  for (let i = 0; i < licenses.length; i++) {
    const each = answers.map((answer) => answer.results[i]!.outcome).sort();
    expect(each).toEqual(['created', 'matched', 'matched']);
  }
  expect(await licensesOf(on.product_id)).toHaveLength(30);
});

test('a dry run answers the same and writes nothing', async () => {
  const on = await productAndPlan();
  const licenses = batch(on, 5);
  expect(outcomes(await importLicenses(licenses, { dry_run: true }))).toEqual(
    Array(5).fill('created'),
  );
  expect(await licensesOf(on.product_id)).toEqual([]);
});

test('an imported key is found by its exact string by validate and activate, and by its source id', async () => {
  const on = await productAndPlan();
  const [license] = batch(on, 1);
  await importLicenses([license!]);
  const key = license!.license_key;
  const validated = await system.post('validate', {
    license_key: key,
    identifier: 'site0.example',
    product_id: on.product_id,
  });
  expect(validated.status).toBe(200);
  expect(validated.body.data).toMatchObject({ license_key: key, status: 'active' });
  const activated = await system.post('activate', {
    license_key: key,
    identifier: 'another.example',
    product_id: on.product_id,
  });
  expect(activated.body.data).toMatchObject({ license_key: key, activations_used: 2 });
  const trimmed = await system.post('validate', { license_key: key.trim() });
  expect(trimmed.body.data).toMatchObject({ status: 'invalid' });

  const found = await get(`/licenses?q=${encodeURIComponent(license!.imported_from.source_id)}`);
  expect((found.body.data.licenses as LicenseSummary[]).map((l) => l.license_key)).toEqual([key]);
  const detail = await get(`/licenses/${encodeURIComponent(key)}`);
  expect(detail.body.data).toMatchObject({ imported_from: license!.imported_from });
});
