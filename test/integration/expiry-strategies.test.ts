import { randomBytes } from 'node:crypto';
import type { ExpiryStrategy } from '../../libs/contracts/index.js';
import { databaseOf } from '../support/databases.js';
import { createVersion, download, packageBytes, sha256, uploadFile } from '../support/packages.js';
import { API_BASE, adminOf, bootSystem, unique, type TestSystem } from '../support/system.js';

/**
 * Expiry strategies with grace (docs/api-decisions.md, "Expiry strategies"), through the gateway
 * and RabbitMQ: each strategy × each request × before the expiry, in the grace, after the grace.
 * The phases come from each license's own `expires_at`, in the past or the future. One product
 * has a version released long before every expiry (1.0.0, dated 2026-01-01) and one uploaded
 * now, after the past expiries (2.0.0); backdating 2.0.0 brings it within them.
 */

let system: TestSystem;
const admin = adminOf(() => system);
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const DAY = 86_400_000;
const GRACE_DAYS = 7;
const strategies = ['revoke', 'maintain', 'restrict'] as const;
const phases = {
  before: () => new Date(Date.now() + 30 * DAY),
  'in grace': () => new Date(Date.now() - 2 * DAY),
  'after grace': () => new Date(Date.now() - 20 * DAY),
} as const;
type Phase = keyof typeof phases;

const JOOMLA = {
  element: 'example',
  type: 'plugin',
  client: 'site',
  folder: 'system',
  target_platform: '[45]\\.',
  php_minimum: '8.1',
} as const;

interface World {
  productId: number;
  v1: { bytes: Buffer; fileId: number; versionId: number };
  v2: { bytes: Buffer; fileId: number; versionId: number };
  licenses: Record<ExpiryStrategy, Record<Phase, { key: string; expires_at: string }>>;
}
let world: World;

async function release(productId: number, version: string, fields: Record<string, unknown>) {
  const created = await createVersion(system, productId, version, fields);
  const bytes = packageBytes(8_000);
  const file = await uploadFile(system, created.id, bytes, `plugin-${version}.zip`, {
    signature: randomBytes(64).toString('base64'),
  });
  return { bytes, fileId: file.id, versionId: created.id };
}

beforeAll(async () => {
  const product = await system.transport.call('update-catalog.createProduct', {
    title: `Expiring ${unique()}`,
    joomla: JOOMLA,
  });
  const v1 = await release(product.id, '1.0.0', { release_date: '2026-01-01' });
  const v2 = await release(product.id, '2.0.0', {});
  const licenses = {} as World['licenses'];
  for (const strategy of strategies) {
    const plan = await admin.post('/plans', {
      name: `Plan ${strategy} ${unique()}`,
      activation_type: 'domain',
      activation_limit: 10,
      expiry_strategy: strategy,
      grace_days: GRACE_DAYS,
    });
    expect(plan.status).toBe(201);
    expect(plan.body.data).toMatchObject({ expiry_strategy: strategy, grace_days: GRACE_DAYS });
    licenses[strategy] = {} as Record<Phase, { key: string; expires_at: string }>;
    for (const phase of Object.keys(phases) as Phase[]) {
      const expires_at = phases[phase]().toISOString();
      const license = await system.transport.call('license.createLicense', {
        product_id: product.id,
        plan_id: plan.body.data.id as number,
        status: 'active',
        expires_at,
      });
      licenses[strategy][phase] = { key: license.license_key, expires_at };
    }
  }
  world = { productId: product.id, v1, v2, licenses };
});

const graceEnd = (expiresAt: string) =>
  new Date(new Date(expiresAt).getTime() + GRACE_DAYS * DAY).toISOString();
const kept = (strategy: ExpiryStrategy) => strategy !== 'revoke';

/** The newest of the two versions a body names: what a feed offers; a refusal's code. */
function offered(res: { status: number; text: string; body?: unknown }): string {
  if (res.status >= 400) {
    const error = (JSON.parse(res.text) as { error?: { code: string } }).error;
    return `${res.status} ${error?.code ?? ''}`;
  }
  if (res.text.includes('2.0.0')) return '2.0.0';
  if (res.text.includes('1.0.0')) return '1.0.0';
  return `${res.status} none`;
}

const feeds: Record<string, (key: string) => Promise<{ status: number; text: string }>> = {
  joomla: (key) =>
    system.api().get(`${API_BASE}/updates/${world.productId}/joomla.xml?dlid=${key}`),
  wordpress: (key) =>
    system.api().get(`${API_BASE}/updates/${world.productId}/wordpress.json?license_key=${key}`),
  electron: (key) =>
    system
      .api()
      .get(`${API_BASE}/updates/${world.productId}/electron/latest.yml?license_key=${key}`),
  sparkle: (key) =>
    system.api().get(`${API_BASE}/updates/${world.productId}/appcast.xml?license_key=${key}`),
  tauri: (key) =>
    system
      .api()
      .get(`${API_BASE}/updates/${world.productId}/tauri/windows/x86_64/0.1.0?license_key=${key}`),
  edd: (key) =>
    system
      .api()
      .post(`${API_BASE}/edd`)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`edd_action=get_version&license=${key}&item_id=${world.productId}`),
};

/** What each feed gives a revoke license after its grace: spec 4.4 rule 6 and 4.5 as they were. */
const revokedFeed: Record<string, string> = {
  joomla: '2.0.0',
  wordpress: '2.0.0',
  electron: '403 LICENSE_EXPIRED',
  sparkle: '403 LICENSE_EXPIRED',
  tauri: '403 LICENSE_EXPIRED',
  edd: '2.0.0',
};

const cases = strategies.flatMap((strategy) =>
  (Object.keys(phases) as Phase[]).map((phase) => [strategy, phase] as const),
);

describe.each(cases)('%s, %s', (strategy, phase) => {
  const license = () => world.licenses[strategy][phase];
  const limited = phase === 'after grace' && kept(strategy);
  const expired = phase === 'after grace';

  test('validate', async () => {
    const res = await system.post('validate', { license_key: license().key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      valid: !expired || kept(strategy),
      status: expired ? 'expired' : 'active',
      in_grace: phase === 'in grace',
      grace_ends_at: graceEnd(license().expires_at),
      updates_until: kept(strategy) ? license().expires_at : null,
    });
  });

  test('activate', async () => {
    const res = await system.post('activate', {
      license_key: license().key,
      identifier: `${unique()}.example`,
    });
    if (expired && strategy !== 'maintain') {
      expect([res.status, res.body.error.code]).toEqual([403, 'LICENSE_EXPIRED']);
      return;
    }
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: expired ? 'expired' : 'active',
      in_grace: phase === 'in grace',
      updates_until: kept(strategy) ? license().expires_at : null,
    });
  });

  test('portal', async () => {
    const res = await system
      .api()
      .post(`${API_BASE}/portal/license`)
      .type('form')
      .send({ license_key: license().key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: expired ? 'expired' : 'active',
      in_grace: phase === 'in grace',
      grace_ends_at: graceEnd(license().expires_at),
      updates_until: kept(strategy) ? license().expires_at : null,
    });
  });

  test('update check', async () => {
    const res = await system
      .api()
      .get(`${API_BASE}/updates/${world.productId}?license_key=${license().key}`);
    expect(res.status).toBe(200);
    const data = res.body.data as Record<string, unknown>;
    expect(data).toMatchObject({
      version: limited ? '1.0.0' : '2.0.0',
      license_status: expired ? 'expired' : 'active',
      in_grace: phase === 'in grace',
      grace_ends_at: graceEnd(license().expires_at),
    });
    if (limited) {
      expect(data).toMatchObject({
        updates_until: license().expires_at,
        newer_version: '2.0.0',
        newer_requires: 'renewal',
      });
    } else {
      expect(data).not.toHaveProperty('updates_until');
      expect(data).not.toHaveProperty('newer_version');
    }
  });

  test.each(Object.keys(feeds))('feed %s', async (feed) => {
    const res = await feeds[feed]!(license().key);
    const expected = limited ? '1.0.0' : expired ? revokedFeed[feed] : '2.0.0';
    expect(offered(res)).toBe(expected);
  });

  test('download', async () => {
    const res = await download(system, world.productId, { license_key: license().key });
    if (expired && !kept(strategy)) {
      expect([res.status, res.error?.code]).toEqual([403, 'LICENSE_EXPIRED']);
      return;
    }
    expect(res.status).toBe(200);
    expect(res.sha256).toBe(sha256(limited ? world.v1.bytes : world.v2.bytes));
    // The newer version's own URL (a feed pins it) serves nothing to a limited license.
    const pinned = await system
      .api()
      .get(
        `${API_BASE}/downloads/${world.productId}/files/${world.v2.fileId}/plugin-2.0.0.zip?license_key=${license().key}`,
      );
    expect(pinned.status).toBe(limited ? 404 : 200);
  });
});

describe('restrict after its grace', () => {
  test('a refused activation is recorded as a rejected attempt (spec 2.5)', async () => {
    const { key } = world.licenses.restrict['after grace'];
    const identifier = `${unique()}.example`;
    await system.post('activate', { license_key: key, identifier });
    const res = await admin.get(`/licenses/${key}`);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body.data)).toContain(identifier);
  });
});

describe('a backdated version', () => {
  test('released by the expiry once backdated: a maintained license gets it', async () => {
    const { key, expires_at } = world.licenses.maintain['after grace'];
    const before = new Date(new Date(expires_at).getTime() - DAY).toISOString().slice(0, 10);
    const patched = await admin.patch(`/versions/${world.v2.versionId}`, { release_date: before });
    expect(patched.status).toBe(200);
    const res = await system.api().get(`${API_BASE}/updates/${world.productId}?license_key=${key}`);
    expect(res.body.data).toMatchObject({ version: '2.0.0', updates_until: expires_at });
    expect(res.body.data).not.toHaveProperty('newer_version');
    const served = await download(system, world.productId, { license_key: key });
    expect(served.sha256).toBe(sha256(world.v2.bytes));
    await admin.patch(`/versions/${world.v2.versionId}`, { release_date: null });
  });
});

describe('a plan change applies live', () => {
  test('PATCH a plan from revoke to maintain: its expired license is valid at once; bad grace refused', async () => {
    const { key, plan } = await system.license({
      expires_at: new Date(Date.now() - DAY).toISOString(),
    });
    const validate = async () =>
      (await system.post('validate', { license_key: key })).body.data as Record<string, unknown>;
    expect(await validate()).toMatchObject({ valid: false, updates_until: null });
    const patched = await admin.patch(`/plans/${plan.id}`, {
      expiry_strategy: 'maintain',
      renewal_basis: 'from_now',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      expiry_strategy: 'maintain',
      renewal_basis: 'from_now',
    });
    expect(await validate()).toMatchObject({ valid: true, status: 'expired' });
    const refused = await admin.patch(`/plans/${plan.id}`, { grace_days: -1 });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });

  test('a renewal by extend_days counts from the basis of the plan: from now', async () => {
    const { key, plan } = await system.license({
      expires_at: new Date(Date.now() - 10 * DAY).toISOString(),
    });
    await admin.patch(`/plans/${plan.id}`, { renewal_basis: 'from_now' });
    const before = Date.now();
    const renewed = await admin.post(`/licenses/${key}/renewals`, {
      extend_days: 30,
      source: 'gateway',
    });
    expect(renewed.status).toBe(200);
    const expires = new Date(renewed.body.data.expires_at as string).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 30 * DAY - 1000);
    expect(renewed.body.data.status).toBe('active');
  });
});

describe('plans stored before expiry terms', () => {
  test('a plan document without the fields reads as revoke, no grace, and answers as before', async () => {
    const db = await databaseOf(system, 'license');
    try {
      const id = 880_000 + Math.floor(Math.random() * 10_000);
      const name = `Old ${unique()}`;
      await db.db!.collection<{ _id: number }>('plans').insertOne({
        _id: id,
        name,
        name_key: name.toLowerCase(),
        activation_type: 'domain',
        activation_limit: 3,
        created_at: new Date(),
      } as never);
      const plan = await admin.get(`/plans/${id}`);
      expect(plan.body.data).toMatchObject({
        expiry_strategy: 'revoke',
        grace_days: 0,
        renewal_basis: 'from_expiry',
      });
      const license = await system.transport.call('license.createLicense', {
        product_id: world.productId,
        plan_id: id,
        status: 'active',
        expires_at: new Date(Date.now() - DAY).toISOString(),
      });
      const validated = await system.post('validate', { license_key: license.license_key });
      expect(validated.body.data).toMatchObject({
        valid: false,
        status: 'expired',
        in_grace: false,
        grace_ends_at: null,
        updates_until: null,
      });
      const check = await system
        .api()
        .get(`${API_BASE}/updates/${world.productId}?license_key=${license.license_key}`);
      expect(Object.keys(check.body.data as object).sort()).toEqual(
        [
          'auto_renew',
          'date',
          'download_requires',
          'download_url',
          'file_size',
          'license_expires_at',
          'license_status',
          'name',
          'next_payment_at',
          'release_notes',
          'requires_license',
          'sha256',
          'update_available',
          'version',
        ].sort(),
      );
      const refused = await download(system, world.productId, {
        license_key: license.license_key,
      });
      expect([refused.status, refused.error?.code]).toEqual([403, 'LICENSE_EXPIRED']);
    } finally {
      await db.close();
    }
  });
});
