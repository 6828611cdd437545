import { ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';

/**
 * Leases and exempt identifiers (docs/api-decisions.md, "Leases" and "Exempt identifiers")
 * through real HTTP and the real transport: short leases that lapse by time, renewal by validate
 * and by activate, the release task, the race, and the seller's patterns.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const ADMIN = '/admin/v1';
const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the lease an answer named has run out, with a margin. */
async function untilLapsed(leaseExpiresAt: string): Promise<void> {
  const wait = Date.parse(leaseExpiresAt) - Date.now() + 150;
  if (wait > 0) await sleep(wait);
}

const detail = async (key: string) => {
  const res = await system.admin().get(`${ADMIN}/licenses/${key}`).set(auth);
  expect(res.status).toBe(200);
  return res.body.data;
};

describe('leases', () => {
  test('activate gives a lease of lease_seconds; validate and activate with the identifier renew it', async () => {
    const { key } = await system.license({ lease_seconds: 60 });
    const before = Date.now();
    const activated = await system.post('activate', {
      license_key: key,
      identifier: 'node.example',
    });
    expect(activated.status).toBe(200);
    const first = Date.parse(activated.body.data.lease_expires_at);
    expect(first).toBeGreaterThanOrEqual(before + 60_000);
    expect(first).toBeLessThanOrEqual(Date.now() + 60_000);
    await sleep(20);
    const validated = await system.post('validate', {
      license_key: key,
      identifier: 'node.example',
    });
    expect(validated.body.data).toMatchObject({ valid: true, identifier_activated: true });
    const second = Date.parse(validated.body.data.lease_expires_at);
    expect(second).toBeGreaterThan(first);
    await sleep(20);
    const again = await system.post('activate', { license_key: key, identifier: 'node.example' });
    expect(Date.parse(again.body.data.lease_expires_at)).toBeGreaterThan(second);
    expect(again.body.data.activations_used).toBe(1);
    expect((await detail(key)).activations[0].lease_expires_at).toBe(
      again.body.data.lease_expires_at,
    );
    const plain = await system.post('validate', { license_key: key });
    expect(plain.body.data.lease_expires_at).toBeNull();
  });

  test('a lapsed activation is gone at once: not activated, not counted, its slot free, a download that needs it refused', async () => {
    const { key, product } = await system.license({ lease_seconds: 1, activation_limit: 1 });
    const activated = await system.post('activate', { license_key: key, identifier: 'a.example' });
    await untilLapsed(activated.body.data.lease_expires_at);
    const validated = await system.post('validate', { license_key: key, identifier: 'a.example' });
    expect(validated.body.data).toMatchObject({
      identifier_activated: false,
      activations_used: 0,
      lease_expires_at: null,
    });
    const coverage = await system.transport.call('license.coverage', {
      license_key: key,
      product_id: product.id,
      identifier: 'a.example',
    });
    expect(coverage.identifier_activated).toBe(false);
    const other = await system.post('activate', { license_key: key, identifier: 'b.example' });
    expect(other.status).toBe(200);
    expect(other.body.data.activations_used).toBe(1);
  });

  test('the activation-lease-release job removes lapsed activations from the record', async () => {
    const { key } = await system.license({ lease_seconds: 1, activation_limit: 3 });
    await system.post('activate', { license_key: key, identifier: 'a.example' });
    const b = await system.post('activate', { license_key: key, identifier: 'b.example' });
    // The later lease of the two: both have lapsed once it has.
    await untilLapsed(b.body.data.lease_expires_at);
    const run = await system.admin().post(`${ADMIN}/jobs/activation-lease-release`).set(auth);
    expect(run.status).toBe(200);
    expect(run.body.data.affected).toBeGreaterThanOrEqual(2);
    const shown = await detail(key);
    expect(shown.activations).toEqual([]);
    expect(shown.activations_used).toBe(0);
    const listed = await system.admin().get(`${ADMIN}/jobs`).set(auth);
    expect(listed.body.data.tasks.map((t: { name: string }) => t.name)).toContain(
      'activation-lease-release',
    );
  });

  test('40 racing activations on a limit of 5 while 5 leases lapse: exactly 5 live afterwards', async () => {
    const { key } = await system.license({ lease_seconds: 1, activation_limit: 5 });
    let last = '';
    for (let i = 0; i < 5; i++) {
      const res = await system.post('activate', {
        license_key: key,
        identifier: `old-${i}.example`,
      });
      last = res.body.data.lease_expires_at;
    }
    await untilLapsed(last);
    // The new activations get leases of an hour: a race slower than a second (a loaded machine)
    // must not see them lapse too. The lapsed ones keep their past leases through the change.
    const hourly = await system.transport.call('license.createPlan', {
      name: 'Hourly leases',
      activation_type: 'domain',
      activation_limit: 5,
      lease_seconds: 3600,
      exempt_identifiers: [],
      exempt_limit: 3,
    });
    await system.transport.call('license.changePlan', {
      license_key: key,
      plan_id: hourly.id,
      when: 'now',
    });
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        system.post('activate', { license_key: key, identifier: `new-${i}.example` }),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(5);
    for (const refused of responses.filter((r) => r.status !== 200)) {
      expect(refused.body.error.code).toBe('ACTIVATION_LIMIT_REACHED');
    }
    const shown = await detail(key);
    expect(shown.activations_used).toBe(5);
    expect(
      shown.activations.every((a: { identifier: string }) => a.identifier.startsWith('new-')),
    ).toBe(true);
  });
});

describe('exempt identifiers and plan settings through the admin API', () => {
  // Plan names are unique.
  let plans = 0;
  async function plan(body: Record<string, unknown>) {
    return system
      .admin()
      .post(`${ADMIN}/plans`)
      .set(auth)
      .send({
        name: `Staging-friendly ${++plans}`,
        activation_type: 'domain',
        activation_limit: 1,
        ...body,
      });
  }

  test('a plan takes lease_seconds, exempt_identifiers and exempt_limit; bad ones are 400 and create nothing', async () => {
    const created = await plan({
      lease_seconds: 86_400,
      exempt_identifiers: ['*.TEST', 'staging.*', 'localhost', 'localhost'],
      exempt_limit: 2,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      lease_seconds: 86_400,
      exempt_identifiers: ['*.test', 'staging.*', 'localhost'],
      exempt_limit: 2,
    });
    for (const bad of [
      { exempt_identifiers: ['*'] },
      { exempt_identifiers: ['sh*p.test'] },
      { exempt_identifiers: ['www.shop.example'] },
      { exempt_limit: -1 },
      { lease_seconds: 0 },
      { exempt_identifiers: Array.from({ length: 21 }, (_, i) => `s${i}.test`) },
    ]) {
      const refused = await plan(bad);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('INVALID_REQUEST');
    }
    const defaults = await plan({});
    expect(defaults.body.data).toMatchObject({
      lease_seconds: null,
      exempt_identifiers: [],
      exempt_limit: 3,
    });
  });

  test('PATCH /plans/:id changes the settings; licenses take them when issued or moved to the plan', async () => {
    const created = (await plan({})).body.data;
    const patched = await system
      .admin()
      .patch(`${ADMIN}/plans/${created.id}`)
      .set(auth)
      .send({ exempt_identifiers: ['*.test'], exempt_limit: 1 });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ exempt_identifiers: ['*.test'], exempt_limit: 1 });
    const empty = await system.admin().patch(`${ADMIN}/plans/${created.id}`).set(auth).send({});
    expect(empty.status).toBe(400);
    const unknown = await system
      .admin()
      .patch(`${ADMIN}/plans/987654`)
      .set(auth)
      .send({ name: 'x' });
    expect(unknown.status).toBe(404);
    const product = await system.transport.call('update-catalog.createProduct', {
      title: 'Exempt product',
      bundle_items: [],
    });
    const license = await system
      .admin()
      .post(`${ADMIN}/licenses`)
      .set(auth)
      .send({ product_id: product.id, plan_id: created.id });
    const key = license.body.data.license_key;
    await system.post('activate', { license_key: key, identifier: 'shop.example' });
    const staging = await system.post('activate', {
      license_key: key,
      identifier: 'https://shop.test/wp-admin',
    });
    expect(staging.status).toBe(200);
    expect(staging.body.data).toMatchObject({ identifier: 'shop.test', activations_used: 1 });
    const shown = await detail(key);
    expect(shown).toMatchObject({ activations_used: 1, exempt_used: 1, exempt_limit: 1 });
    expect(shown.activations.map((a: { exempt: boolean }) => a.exempt)).toEqual([false, true]);
    const second = await system.post('activate', { license_key: key, identifier: 'dev.test' });
    expect(second.status).toBe(403);
    expect(second.body.error.code).toBe('ACTIVATION_LIMIT_REACHED');
    expect((await detail(key)).rejected_attempts).toEqual([
      expect.objectContaining({ identifier: 'dev.test' }),
    ]);
  });
});
