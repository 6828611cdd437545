import type { Connection } from 'mongoose';
import { databaseOf } from '../support/databases.js';
import { adminOf, bootSystem, unique, type TestSystem } from '../support/system.js';

let system: TestSystem;
let licenseDb: Connection;
beforeAll(async () => {
  system = await bootSystem();
  licenseDb = await databaseOf(system, 'license');
});
afterAll(async () => {
  await licenseDb?.close();
  await system?.stop();
});

const admin = adminOf(() => system);
const PAST = '2020-01-01T00:00:00.000Z';
const FUTURE = '2099-01-01T00:00:00.000Z';

/** A new entitlement's code, unique in this run. */
async function entitlement(prefix = 'e'): Promise<string> {
  const code = `${prefix}-${unique()}`;
  const res = await admin.post('/entitlements', { code, name: `Entitlement ${code}` });
  expect(res.status).toBe(201);
  return code;
}

const validate = (fields: Record<string, string | number>) =>
  system.post('validate', fields).then((res) => {
    expect(res.status).toBe(200);
    return res.body.data;
  });

describe('entitlements as an admin defines them', () => {
  test('created, listed, read, renamed; a taken code or a bad one is refused', async () => {
    const code = await entitlement('pro');
    const got = await admin.get(`/entitlements/${code}`);
    expect(got.body.data).toEqual({
      code,
      name: `Entitlement ${code}`,
      created_at: expect.any(String),
    });
    const listed = await admin.get('/entitlements');
    expect(listed.body.data.entitlements.map((e: { code: string }) => e.code)).toContain(code);
    const renamed = await admin.patch(`/entitlements/${code}`, { name: 'Pro' });
    expect(renamed.body.data.name).toBe('Pro');
    const taken = await admin.post('/entitlements', { code, name: 'Again' });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'ALREADY_EXISTS']);
    const bad = await admin.post('/entitlements', { code: 'Not Lower', name: 'X' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    const missing = await admin.get('/entitlements/none-such');
    expect(missing.status).toBe(404);
  });

  test('deleting one a plan or a license grants is refused until they no longer do', async () => {
    const byPlan = await entitlement('plan');
    const { key, plan } = await system.license({ entitlements: [byPlan] });
    const refused = await admin.del(`/entitlements/${byPlan}`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'ENTITLEMENT_IN_USE']);
    expect(refused.body.error).toMatchObject({ plans: 1, licenses: 0 });
    await admin.patch(`/plans/${plan.id}`, { entitlements: [] });

    const byLicense = await entitlement('own');
    await admin.post(`/licenses/${key}/entitlements`, { code: byLicense, expires_at: null });
    const inUse = await admin.del(`/entitlements/${byLicense}`);
    expect(inUse.body.error).toMatchObject({ code: 'ENTITLEMENT_IN_USE', plans: 0, licenses: 1 });
    await admin.del(`/licenses/${key}/entitlements/${byLicense}`);

    for (const code of [byPlan, byLicense]) {
      expect((await admin.del(`/entitlements/${code}`)).status).toBe(200);
      expect((await admin.get(`/entitlements/${code}`)).status).toBe(404);
    }
  });
});

describe('a plan grants a set of entitlements', () => {
  test('codes that are not defined are refused, by name, on create and on change', async () => {
    const known = await entitlement();
    const created = await admin.post('/plans', {
      name: `Plan ${unique()}`,
      activation_type: 'domain',
      activation_limit: 1,
      entitlements: [known, 'not-defined'],
    });
    expect([created.status, created.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(created.body.error.message).toContain('not-defined');
    expect(created.body.error.message).not.toContain(known);
    const { plan } = await system.license();
    const changed = await admin.patch(`/plans/${plan.id}`, { entitlements: ['never-made'] });
    expect([changed.status, changed.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });

  test('every license on the plan has them, live: a plan change reaches the answers at once', async () => {
    const [b, a] = [await entitlement('b'), await entitlement('a')];
    const { key, plan } = await system.license({ entitlements: [b] });
    const activated = await system.post('activate', { license_key: key, identifier: 'x.example' });
    expect(activated.body.data.entitlements).toEqual([b]);
    expect((await validate({ license_key: key })).entitlements).toEqual([b]);

    const patched = await admin.patch(`/plans/${plan.id}`, { entitlements: [b, a] });
    expect(patched.body.data.entitlements).toEqual([b, a]);
    expect((await validate({ license_key: key })).entitlements).toEqual([a, b].sort());
  });

  test('a plan stored before entitlements existed grants none, and answers as before', async () => {
    const { key, plan } = await system.license();
    // The plan as an older version stored it: no `entitlements` field at all.
    await licenseDb
      .collection<{ _id: number }>('plans')
      .updateOne({ _id: plan.id }, { $unset: { entitlements: 1 } });
    const stored = await licenseDb.collection<{ _id: number }>('plans').findOne({ _id: plan.id });
    expect(stored).not.toHaveProperty('entitlements');
    // Read through a plan cache that has not seen it yet: another process.
    const other = await bootSystem({ MONGODB_DB_PREFIX: system.config.MONGODB_DB_PREFIX });
    try {
      const got = await other.transport.call('license.getPlan', { id: plan.id });
      expect(got.entitlements).toEqual([]);
      const answer = await other
        .post('validate', { license_key: key, entitlements: 'any-code' })
        .then((res) => res.body.data);
      expect(answer).toMatchObject({
        valid: false,
        entitlements: [],
        entitlements_missing: ['any-code'],
      });
      const plain = await other.post('validate', { license_key: key }).then((r) => r.body.data);
      expect(plain).toMatchObject({
        valid: true,
        entitlements: [],
        entitlements_missing: [],
        code: null,
      });
    } finally {
      await other.stop();
    }
  });
});

describe("a license's own entitlements, each with its expiry", () => {
  test('an expired one is listed but not live, and asking for it answers ENTITLEMENTS_MISSING', async () => {
    const [lapsed, lasting, forever] = [
      await entitlement('lapsed'),
      await entitlement('lasting'),
      await entitlement('forever'),
    ];
    const { key } = await system.license();
    await admin.post(`/licenses/${key}/entitlements`, { code: lapsed, expires_at: PAST });
    await admin.post(`/licenses/${key}/entitlements`, { code: lasting, expires_at: FUTURE });
    const granted = await admin.post(`/licenses/${key}/entitlements`, { code: forever });
    expect(granted.status).toBe(200);
    expect(granted.body.data.entitlements).toEqual(
      [
        { code: lapsed, expires_at: PAST, granted_at: expect.any(String) },
        { code: lasting, expires_at: FUTURE, granted_at: expect.any(String) },
        { code: forever, expires_at: null, granted_at: expect.any(String) },
      ].sort((x, y) => (x.code < y.code ? -1 : 1)),
    );

    const plain = await validate({ license_key: key });
    expect(plain).toMatchObject({
      valid: true,
      entitlements: [forever, lasting].sort(),
      entitlements_missing: [],
      code: null,
    });
    const asked = await validate({ license_key: key, entitlements: `${lasting},${lapsed}` });
    expect(asked).toMatchObject({
      valid: false,
      status: 'active',
      entitlements: [forever, lasting].sort(),
      entitlements_missing: [lapsed],
      code: 'ENTITLEMENTS_MISSING',
    });
    const held = await validate({ license_key: key, entitlements: `${forever},${lasting}` });
    expect(held).toMatchObject({ valid: true, entitlements_missing: [], code: null });

    const revoked = await admin.del(`/licenses/${key}/entitlements/${forever}`);
    expect(revoked.body.data.entitlements.map((e: { code: string }) => e.code)).not.toContain(
      forever,
    );
    expect((await validate({ license_key: key })).entitlements).toEqual([lasting]);
    const again = await admin.del(`/licenses/${key}/entitlements/${forever}`);
    expect(again.status).toBe(404);
  });

  test('an undefined code is not granted; an unknown key is not found', async () => {
    const { key } = await system.license();
    const undefinedCode = await admin.post(`/licenses/${key}/entitlements`, { code: 'nope-x' });
    expect([undefinedCode.status, undefinedCode.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    const code = await entitlement();
    const unknown = await admin.post('/licenses/no-such-key/entitlements', { code });
    expect(unknown.status).toBe(404);
  });

  test('an unknown key has none; what it asks for is missing', async () => {
    expect(await validate({ license_key: 'unknown-key', entitlements: 'pro' })).toMatchObject({
      valid: false,
      status: 'invalid',
      entitlements: [],
      entitlements_missing: ['pro'],
      code: 'ENTITLEMENTS_MISSING',
    });
  });

  test('the entitlements field is bounded and checked once, at the gateway', async () => {
    const { key } = await system.license();
    const many = Array.from({ length: 40 }, (_, i) => `c${i}`).join(',');
    const tooMany = await system.post('validate', { license_key: key, entitlements: many });
    expect([tooMany.status, tooMany.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    const badCode = await system.post('validate', { license_key: key, entitlements: 'ok,Bad' });
    expect([badCode.status, badCode.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });
});
