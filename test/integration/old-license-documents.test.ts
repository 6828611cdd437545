import type { Connection } from 'mongoose';
import { databaseOf } from '../support/databases.js';
import { createVersion, packageBytes, uploadFile } from '../support/packages.js';
import { LATER_PLAN_SETTINGS, oldPlanDocument } from '../support/plan-defaults.js';
import { API_BASE, adminOf, bootSystem, unique, type TestSystem } from '../support/system.js';

/**
 * Licenses stored before expiry strategies, entitlements, trials and usage counters existed
 * (docs/api-decisions.md, those sections), on a plan stored before them too, answer exactly as
 * before: the spec's fields, and each later field at the default that keeps the spec's terms.
 */

let system: TestSystem;
let licenseDb: Connection;
const admin = adminOf(() => system);
beforeAll(async () => {
  system = await bootSystem();
  licenseDb = await databaseOf(system, 'license');
});
afterAll(async () => {
  await licenseDb?.close();
  await system?.stop();
});

const EXPIRES_AT = '2099-01-01T00:00:00.000Z';
/** The fields the license documents gained with those sections (services/license/models.ts). */
const LATER_LICENSE_FIELDS = [
  'grace_started_for',
  'uses',
  'uses_period_start',
  'usage_keys',
  'usage_notice_period',
] as const;

/** Every field a license document without a customer had before them. */
const OLD_LICENSE_FIELDS = [
  '_id',
  'license_key',
  'product_id',
  'plan_id',
  'status',
  'expires_at',
  'auto_renew',
  'next_payment_at',
  'activation_type',
  'activation_limit',
  'lease_seconds',
  'exempt_identifiers',
  'exempt_limit',
  'activations',
  'activations_used',
  'exempt_used',
  'activations_bytes',
  'last_check_at',
  'last_check_ip',
  'check_count',
  'recent_checks',
  'pending_plan_id',
  'metadata',
  'created_at',
  'updated_at',
] as const;

/** A plan as stored before its later settings: none of them at all. */
async function oldPlan(): Promise<{ id: number; name: string }> {
  const id = 860_000 + Math.floor(Math.random() * 10_000);
  const name = `Old ${unique()}`;
  await licenseDb.collection<{ _id: number }>('plans').insertOne(oldPlanDocument(id, name));
  return { id, name };
}

/**
 * A license as the current code writes it, then stored again without the fields it gained:
 * the document an older version left in the database.
 */
async function oldLicense(productId: number, planId: number): Promise<string> {
  const { license_key } = await system.transport.call('license.createLicense', {
    product_id: productId,
    plan_id: planId,
    status: 'active',
    expires_at: EXPIRES_AT,
  });
  const licenses = licenseDb.collection('licenses');
  const written = (await licenses.findOne({ license_key }))!;
  const old = { ...written };
  for (const field of LATER_LICENSE_FIELDS) delete old[field];
  await licenses.replaceOne({ _id: written._id }, old);
  const stored = (await licenses.findOne({ license_key }))!;
  expect(Object.keys(stored).sort()).toEqual([...OLD_LICENSE_FIELDS].sort());
  return license_key;
}

test('a license and its plan stored before the later sections answer as the spec and their defaults say', async () => {
  const plan = await oldPlan();
  await expect(admin.get(`/plans/${plan.id}`)).resolves.toMatchObject({
    status: 200,
    body: { data: LATER_PLAN_SETTINGS },
  });
  const product = await system.transport.call('update-catalog.createProduct', {
    title: `Old ${unique()}`,
    bundle_items: [],
  });
  const version = await createVersion(system, product.id, '1.2.0');
  await uploadFile(system, version.id, packageBytes(4_000), 'old-1.2.0.zip');
  const key = await oldLicense(product.id, plan.id);
  const spec = {
    status: 'active',
    license_key: key,
    product: product.title,
    plan: plan.name,
    activation_type: 'domain',
    activation_limit: 2,
    expires_at: EXPIRES_AT,
  };
  const later = {
    entitlements: [],
    entitlements_missing: [],
    code: null,
    in_grace: false,
    grace_ends_at: null,
    updates_until: null,
  };

  const validated = await system.post('validate', { license_key: key, product_id: product.id });
  expect(validated.status).toBe(200);
  expect(validated.body.data).toEqual({
    valid: true,
    ...spec,
    activations_used: 0,
    identifier_activated: true,
    lease_expires_at: null,
    ...later,
  });

  // A new identifier, then the same again: one activation either way (spec 4.1).
  for (const activations_used of [1, 1]) {
    const activated = await system.post('activate', {
      license_key: key,
      identifier: 'old.example',
    });
    expect(activated.status).toBe(200);
    const { entitlements_missing: _missing, code: _code, ...activateLater } = later;
    expect(activated.body.data).toEqual({
      ...spec,
      activations_used,
      identifier: 'old.example',
      lease_expires_at: null,
      ...activateLater,
    });
  }

  // Spec 2.6: a covering key adds its license's fields, and a plan on the spec's terms no more.
  const update = await system.api().get(`${API_BASE}/updates/${product.id}?license_key=${key}`);
  expect(update.status).toBe(200);
  expect(update.body.data).toMatchObject({
    update_available: true,
    version: '1.2.0',
    license_status: 'active',
    license_expires_at: EXPIRES_AT,
    auto_renew: false,
    next_payment_at: null,
  });
  for (const field of ['in_grace', 'grace_ends_at', 'updates_until', 'newer_version']) {
    expect(update.body.data).not.toHaveProperty(field);
  }

  const detail = await admin.get(`/licenses/${key}`);
  expect(detail.status).toBe(200);
  expect(detail.body.data).toMatchObject({
    ...spec,
    plan_id: plan.id,
    activations_used: 1,
    activations: [expect.objectContaining({ identifier: 'old.example' })],
    entitlements: [],
  });

  const used = await system.post('usage', {
    license_key: key,
    product_id: product.id,
    idempotency_key: 'old-1',
  });
  expect(used.status).toBe(400);
  expect(used.body.error).toEqual({
    code: 'INVALID_REQUEST',
    message: "This license's plan counts no usage.",
  });
  // Refused, it stays as it was stored: no counter.
  const after = await licenseDb.collection('licenses').findOne({ license_key: key });
  for (const field of LATER_LICENSE_FIELDS) expect(after).not.toHaveProperty(field);
});
