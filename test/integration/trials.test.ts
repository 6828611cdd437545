import { LATER_PLAN_SETTINGS } from '../support/plan-defaults.js';
import type { Collection } from 'mongodb';
import request from 'supertest';
import { classifyResult, LicensingClient } from '../../libs/client/src/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { createGatewayApp } from '../../services/gateway/app.js';
import { createRateLimits } from '../../services/gateway/rate-limits/rate-limits.js';
import { planNameKey } from '../../services/license/rules.js';
import {
  TRIALS_COLLECTION,
  keyStoredTrials,
  openMongoTrialStore,
  type TrialDocument,
} from '../../services/license/trials/mongo-trial-store.js';
import type { TrialRecord } from '../../services/license/records.js';
import { trialKey } from '../../services/license/trials/trial-rules.js';
import { databaseOf, withOwnDatabase } from '../support/databases.js';
import {
  API_BASE,
  adminOf,
  bootSystem,
  testSigning,
  unique,
  type TestSystem,
} from '../support/system.js';

/**
 * Trials (docs/api-decisions.md, "Trials") through real HTTP, on the services joined by RabbitMQ
 * when AMQP_URL is set: issued once per identifier and product, ever, and ended by a paid license.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const admin = adminOf(() => system);
const DAY_MS = 24 * 60 * 60 * 1000;

function startTrial(fields: Record<string, string | number>) {
  return system
    .api()
    .post(`${API_BASE}/trials`)
    .type('form')
    .send(
      new URLSearchParams(
        Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
      ).toString(),
    );
}

/** A plan with a trial, through the admin API, and a product whose trials are issued on it. */
async function trialProduct(
  plan: { activation_type?: string; trial_days?: number | null; activation_limit?: number } = {},
) {
  const created = await admin.post('/plans', {
    name: `Trial ${unique()}`,
    activation_type: plan.activation_type ?? 'domain',
    activation_limit: plan.activation_limit ?? 1,
    trial_days: plan.trial_days === undefined ? 14 : plan.trial_days,
  });
  expect(created.status).toBe(201);
  const product = await admin.post('/products', {
    title: `Tried ${unique()}`,
    trial_plan_id: created.body.data.id,
  });
  expect(product.status).toBe(201);
  expect(product.body.data.trial_plan_id).toBe(created.body.data.id);
  return { plan: created.body.data, product: product.body.data as { id: number; title: string } };
}

const detail = (key: string) => system.transport.call('license.getLicense', { license_key: key });

describe('POST {api_base}/trials', () => {
  test('issues a trial license expiring after trial_days, the identifier activated on it', async () => {
    const { plan, product } = await trialProduct({ trial_days: 14 });
    expect(plan.trial_days).toBe(14);
    const before = Date.now();
    const res = await startTrial({
      product_id: product.id,
      identifier: 'https://www.Example.com/shop',
      email: 'Buyer@Example.com',
    });
    const after = Date.now();
    expect(res.status).toBe(201);
    const { license_key, expires_at, activation } = res.body.data;
    expect(Date.parse(expires_at)).toBeGreaterThanOrEqual(before + 14 * DAY_MS);
    expect(Date.parse(expires_at)).toBeLessThanOrEqual(after + 14 * DAY_MS);
    expect(activation.identifier).toBe('example.com');
    // No customer data in the public answer.
    expect(JSON.stringify(res.body)).not.toMatch(/buyer/i);
    const license = await detail(license_key);
    expect(license).toMatchObject({
      status: 'active',
      product_id: product.id,
      plan_id: plan.id,
      expires_at,
      activations_used: 1,
      customer: { email: 'buyer@example.com', name: null },
    });
    expect(license.activations.map((a) => a.identifier)).toEqual(['example.com']);
    const validated = await system.post('validate', {
      license_key,
      identifier: 'example.com',
      product_id: product.id,
    });
    expect(validated.body.data).toMatchObject({ valid: true, identifier_activated: true });
  });

  test('a second trial for the identifier, however written, is refused and recorded', async () => {
    const { product } = await trialProduct();
    const first = await startTrial({ product_id: product.id, identifier: 'example.com' });
    expect(first.status).toBe(201);
    for (const identifier of ['https://www.Example.com/path', 'EXAMPLE.COM', 'example.com:8080']) {
      const res = await startTrial({ product_id: product.id, identifier });
      expect([identifier, res.status, res.body.error?.code]).toEqual([
        identifier,
        409,
        'TRIAL_ALREADY_USED',
      ]);
    }
    const { rejected_attempts } = await detail(first.body.data.license_key);
    expect(rejected_attempts).toEqual([
      expect.objectContaining({
        identifier: 'example.com',
        reason: 'trial_already_used',
        source: 'api',
        tries: 3,
      }),
    ]);
    // Another product's trial for the same identifier is its own.
    const other = await trialProduct();
    expect(
      (await startTrial({ product_id: other.product.id, identifier: 'example.com' })).status,
    ).toBe(201);
  });

  test('a device trial again under another spelling is refused; the identifier stays as sent', async () => {
    const { product } = await trialProduct({ activation_type: 'device' });
    const first = await startTrial({ product_id: product.id, identifier: 'ABC-DEF-123' });
    expect(first.status).toBe(201);
    for (const identifier of [
      'ＡＢＣ-ＤＥＦ-１２３', // full width
      'ABC\u2010DEF\u2010123', // the hyphen U+2010
      'ABC-DEF-123\u200b', // a zero width space
    ]) {
      const res = await startTrial({ product_id: product.id, identifier });
      expect([identifier, res.status, res.body.error?.code]).toEqual([
        identifier,
        409,
        'TRIAL_ALREADY_USED',
      ]);
    }
    const listed = await admin.get(`/trials?product_id=${product.id}`);
    expect(listed.body.data.total).toBe(1);
    expect(listed.body.data.trials[0].identifier).toBe('ABC-DEF-123');
    // Another product's trial, first sent full width: stored and activated as sent.
    const other = await trialProduct({ activation_type: 'device' });
    const sent = 'ＡＢＣ\u2010ＤＥＦ\u2010１２３';
    const wide = await startTrial({ product_id: other.product.id, identifier: sent });
    expect([wide.status, wide.body.data.activation.identifier]).toEqual([201, sent]);
    const listedWide = await admin.get(`/trials?product_id=${other.product.id}`);
    expect(listedWide.body.data.trials[0].identifier).toBe(sent);
    // Activations keep spec 2.4's rule: the ASCII spelling is another device there.
    for (const [identifier, activated] of [
      [sent, true],
      ['ABC-DEF-123', false],
    ] as const) {
      const validated = await system.post('validate', {
        license_key: wide.body.data.license_key,
        identifier,
        product_id: other.product.id,
      });
      expect([identifier, validated.body.data.identifier_activated]).toEqual([
        identifier,
        activated,
      ]);
    }
  });

  test('requests at once for one identifier make exactly one trial', async () => {
    const { product } = await trialProduct({ activation_type: 'device' });
    const answers = await Promise.all(
      ['PC-1', 'pc-1', ' PC-1 ', 'Pc-1', 'pC-1', 'PC-1'].map((identifier) =>
        startTrial({ product_id: product.id, identifier }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const listed = await admin.get(`/trials?product_id=${product.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.total).toBe(1);
    expect(listed.body.data.trials[0]).toMatchObject({
      product_id: product.id,
      converted_at: null,
    });
  });

  test('PRODUCT_MISMATCH for a product without a trial plan, or a plan without trial_days', async () => {
    const plain = await admin.post('/products', { title: `Plain ${unique()}` });
    expect(plain.body.data.trial_plan_id).toBeNull();
    const noDays = await trialProduct({ trial_days: null });
    const missingPlan = await admin.post('/products', {
      title: `Gone plan ${unique()}`,
      trial_plan_id: 987654321,
    });
    for (const productId of [
      plain.body.data.id,
      noDays.product.id,
      missingPlan.body.data.id,
      999999999,
    ]) {
      const res = await startTrial({ product_id: productId, identifier: 'a.example' });
      expect([productId, res.status, res.body.error?.code]).toEqual([
        productId,
        403,
        'PRODUCT_MISMATCH',
      ]);
    }
  });

  test('INVALID_REQUEST for a missing field, a domain that normalises to nothing, a bad address', async () => {
    const { product } = await trialProduct();
    const cases: Array<Record<string, string | number>> = [
      { identifier: 'a.example' },
      { product_id: product.id },
      { product_id: 'abc', identifier: 'a.example' },
      { product_id: product.id, identifier: 'https://' },
      { product_id: product.id, identifier: 'b.example', email: 'not-an-address' },
      { product_id: product.id, identifier: 'x'.repeat(256) },
    ];
    for (const fields of cases) {
      const res = await startTrial(fields);
      expect([fields, res.status, res.body.error?.code]).toEqual([fields, 400, 'INVALID_REQUEST']);
    }
    expect((await admin.get(`/trials?product_id=${product.id}`)).body.data.total).toBe(0);
  });
});

describe('the per-IP limit of the license operations (spec 8)', () => {
  test('applies to trials too: past it, RATE_LIMITED (429) and no trial', async () => {
    const app = createGatewayApp({
      transport: system.transport,
      logger: createLogger('test', 'silent'),
      trustProxy: false,
      signing: await testSigning(),
      rateLimits: createRateLimits({
        perIpPerMinute: 2,
        updatesPerMinute: 100,
        downloadsPerMinute: 100,
        activationsPerKeyPerHour: 100,
        redisPrefix: 'unused',
      }),
    });
    const { product } = await trialProduct();
    const send = (identifier: string) =>
      request(app)
        .post(`${API_BASE}/trials`)
        .type('form')
        .send(`product_id=${product.id}&identifier=${identifier}`);
    expect((await send('r1.example')).status).toBe(201);
    expect((await send('r2.example')).status).toBe(201);
    const limited = await send('r3.example');
    expect([limited.status, limited.body.error?.code]).toEqual([429, 'RATE_LIMITED']);
    expect((await admin.get(`/trials?product_id=${product.id}`)).body.data.total).toBe(2);
  });
});

describe('the settings: trial_days on plans, trial_plan_id on products', () => {
  test('trial_days is a whole number of days from 1 to 365, or null', async () => {
    for (const trial_days of [0, 366, 1.5, '7']) {
      const res = await admin.post('/plans', {
        name: `Bad ${unique()}`,
        activation_type: 'domain',
        activation_limit: 1,
        trial_days,
      });
      expect([trial_days, res.status]).toEqual([trial_days, 400]);
    }
    const { plan, product } = await trialProduct({ trial_days: 365 });
    expect(
      (await admin.patch(`/plans/${plan.id}`, { trial_days: null })).body.data.trial_days,
    ).toBeNull();
    expect((await admin.patch(`/products/${product.id}`, { trial_plan_id: 0 })).status).toBe(400);
    const cleared = await admin.patch(`/products/${product.id}`, { trial_plan_id: null });
    expect(cleared.body.data.trial_plan_id).toBeNull();
  });
});

describe('the reference client', () => {
  test('startTrial starts one, and reads a second as an answer about the license', async () => {
    const { product } = await trialProduct({ activation_type: 'seat' });
    const client = new LicensingClient(system.running.gatewayUrl, product.id);
    const started = await client.startTrial('Ann@Example.com', { email: 'ann@example.com' });
    expect(started).toMatchObject({
      success: true,
      data: { product_id: product.id, activation: { identifier: 'ann@example.com' } },
    });
    const again = await client.startTrial('ANN@example.com');
    expect(again).toMatchObject({ success: false, code: 'TRIAL_ALREADY_USED' });
    expect(classifyResult(again)).toBe('license');
  });
});

describe('a paid license activated on the identifier converts the trial', () => {
  test('the trial is marked converted and its license cancelled', async () => {
    const { product } = await trialProduct();
    const trial = await startTrial({ product_id: product.id, identifier: 'shop.example' });
    expect(trial.status).toBe(201);
    const paid = await system.license({ product });
    const activated = await system.post('activate', {
      license_key: paid.key,
      identifier: 'https://www.SHOP.example/',
      product_id: product.id,
    });
    expect(activated.status).toBe(200);
    expect((await detail(trial.body.data.license_key)).status).toBe('cancelled');
    const converted = await admin.get(`/trials?product_id=${product.id}&converted=true`);
    expect(converted.body.data.trials).toEqual([
      expect.objectContaining({
        identifier: 'shop.example',
        converted_license_key: paid.key,
        converted_at: expect.any(String),
      }),
    ]);
    expect(
      (await admin.get(`/trials?product_id=${product.id}&converted=false`)).body.data.total,
    ).toBe(0);
    const overview = await admin.get(`/overview?product_id=${product.id}`);
    expect(overview.body.data.current).toMatchObject({ trials_started: 1, trials_converted: 1 });
  });
});

describe('plans and products stored before trials', () => {
  test('read as offering no trial, and answer as before', async () => {
    const licenseDb = await databaseOf(system, 'license');
    const catalogDb = await databaseOf(system, 'update-catalog');
    try {
      const name = `Old ${unique()}`;
      const created_at = new Date('2025-01-01T00:00:00.000Z');
      await licenseDb.collection('plans').insertOne({
        _id: 880_000 + Math.floor(Math.random() * 10_000),
        name,
        name_key: planNameKey(name),
        activation_type: 'domain',
        activation_limit: 2,
        lease_seconds: null,
        exempt_identifiers: [],
        exempt_limit: 3,
        created_at,
      } as never);
      const stored = await licenseDb.collection('plans').findOne({ name });
      const plan = await admin.get(`/plans/${String(stored!._id)}`);
      expect(plan.status).toBe(200);
      expect(plan.body.data).toEqual({
        id: stored!._id,
        name,
        activation_type: 'domain',
        activation_limit: 2,
        lease_seconds: null,
        exempt_identifiers: [],
        exempt_limit: 3,
        ...LATER_PLAN_SETTINGS,
        created_at: created_at.toISOString(),
      });
      const productId = 770_000 + Math.floor(Math.random() * 10_000);
      await catalogDb.collection('products').insertOne({
        _id: productId,
        title: 'Old product',
        requires_license: true,
        download_access: 'license_key',
        bundle_items: [],
        created_at,
        updated_at: created_at,
      } as never);
      const product = await admin.get(`/products/${productId}`);
      expect(product.body.data).toMatchObject({ id: productId, trial_plan_id: null });
      const refused = await startTrial({ product_id: productId, identifier: 'old.example' });
      expect(refused.body.error.code).toBe('PRODUCT_MISMATCH');
      // Given a trial length by an admin, the old plan issues trials.
      expect((await admin.patch(`/plans/${String(stored!._id)}`, { trial_days: 7 })).status).toBe(
        200,
      );
      expect(
        (await admin.patch(`/products/${productId}`, { trial_plan_id: stored!._id })).status,
      ).toBe(200);
      const started = await startTrial({ product_id: productId, identifier: 'old.example' });
      expect(started.status).toBe(201);
    } finally {
      await licenseDb.close();
      await catalogDb.close();
    }
  });
});

/** A trial as stored before trial keys: the record of the current code without that field. */
function oldTrial(fields: Partial<TrialRecord> & Pick<TrialRecord, 'product_id' | 'identifier'>) {
  const { trial_key: _none, ...trial }: TrialRecord = {
    identifier_key: fields.identifier.toLowerCase(),
    trial_key: '',
    license_key: `OLD-${unique()}`,
    plan_id: 1,
    started_at: new Date('2025-01-01T00:00:00.000Z'),
    expires_at: new Date('2025-01-15T00:00:00.000Z'),
    converted_at: null,
    converted_license_key: null,
    call_id: unique(),
    ...fields,
  };
  return trial;
}

describe('trials stored before trial keys', () => {
  test('get their key at the start, and block a trial of the identifier written another way', async () => {
    const { product } = await trialProduct({ activation_type: 'device' });
    const first = await startTrial({ product_id: product.id, identifier: 'PC-OLD-1' });
    expect(first.status).toBe(201);
    const licenseDb = await databaseOf(system, 'license');
    try {
      const trials = licenseDb.collection(
        TRIALS_COLLECTION,
      ) as unknown as Collection<TrialDocument>;
      await trials.updateOne(
        { license_key: first.body.data.license_key },
        { $unset: { trial_key: '' } },
      );
      // Before the start that keys it, a trial stored so blocks only its own spelling.
      const early = await startTrial({ product_id: product.id, identifier: 'PC\u2010OLD\u20101' });
      expect(early.status).toBe(201);
      await trials.deleteOne({ license_key: early.body.data.license_key });
      expect(await keyStoredTrials(trials)).toBeGreaterThanOrEqual(1);
      const stored = await trials.findOne({ license_key: first.body.data.license_key });
      expect(stored).toMatchObject({ identifier: 'PC-OLD-1', trial_key: `${product.id}:pc-old-1` });
      for (const identifier of ['PC\u2010OLD\u20101', 'ＰＣ-ＯＬＤ-１']) {
        const res = await startTrial({ product_id: product.id, identifier });
        expect([identifier, res.status, res.body.error?.code]).toEqual([
          identifier,
          409,
          'TRIAL_ALREADY_USED',
        ]);
      }
    } finally {
      await licenseDb.close();
    }
  });

  test('of two spellings that each got a trial before, the older takes the key', async () => {
    await withOwnDatabase('license', async (db) => {
      const trials = db.collection(TRIALS_COLLECTION) as unknown as Collection<TrialDocument>;
      const older = oldTrial({ product_id: 7, identifier: 'A-1' });
      const newer = oldTrial({
        product_id: 7,
        identifier: 'Ａ-１',
        started_at: new Date('2025-02-01T00:00:00.000Z'),
      });
      await trials.insertMany([
        { ...newer },
        { ...older },
        { ...oldTrial({ product_id: 7, identifier: 'B-2' }) },
      ]);
      // The store opens over them, its unique index built, and keys what it can.
      const store = await openMongoTrialStore(db);
      expect(await trials.findOne({ identifier: 'A-1' })).toMatchObject({
        trial_key: '7:a-1',
      });
      expect(await trials.findOne({ identifier: 'Ａ-１' })).not.toHaveProperty('trial_key');
      expect(await trials.findOne({ identifier: 'B-2' })).toMatchObject({
        trial_key: '7:b-2',
      });
      for (const identifier of ['a\u20101', 'Ａ-１', 'A-1\u200b']) {
        const recorded = await store.record({
          ...oldTrial({ product_id: 7, identifier }),
          trial_key: trialKey(7, identifier.toLowerCase()),
        });
        expect([identifier, recorded.outcome]).toEqual([identifier, 'taken']);
      }
      expect(
        (await store.list({ productId: 7, converted: null, page: 1, perPage: 10 })).total,
      ).toBe(3);
      expect(await keyStoredTrials(trials)).toBe(0);
    });
  });
});
