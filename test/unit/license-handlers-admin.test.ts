import type { LicenseStatus } from '../../libs/contracts/index.js';
import {
  FUTURE,
  NOW,
  PAST,
  PLAN_DEFAULTS,
  refusedWith,
  service,
  waiting,
  waitingCall,
} from '../support/license-handler-harness.js';
import { duplicatePlanRenames } from '../../services/license/plans/plan-names.js';

/**
 * The license service's handlers on in-memory stores, a fixed clock and a fixed catalog: the
 * rules the integration tests check through HTTP, checked at the handler level.
 */

describe('spec 3.2 admin Add and Remove', () => {
  const add = (
    handlers: ReturnType<typeof service>['handlers'],
    key: string,
    identifier: string,
    context = waiting,
  ) =>
    handlers['license.addActivation'](
      { license_key: key, identifier, name: 'Added by support' },
      context,
    );

  test('Add normalises the identifier like an API call and leaves the IP empty', async () => {
    const { license, handlers } = service();
    const key = await license();
    const added = {
      identifier: 'example.com',
      name: 'Added by support',
      ip: '',
      activated_at: NOW.toISOString(),
      last_checkout_at: null,
      lease_expires_at: null,
      exempt: false,
    };
    const result = await add(handlers, key, 'https://WWW.Example.com:8080/path');
    expect(result.activation).toEqual(added);
    expect(result.license.activations).toEqual([added]);
  });

  test.each([
    ['a suspended license', { status: 'suspended' as const }, 'LICENSE_INVALID'],
    ['a stored status of expired', { status: 'expired' as const }, 'LICENSE_INVALID'],
    ['a license past its date', { expires_at: PAST }, 'LICENSE_EXPIRED'],
  ])(
    'Add on %s is refused with the spec status (the management API answers 409), and recorded as activate records it',
    async (_, options, code) => {
      const { license, handlers, detail } = service();
      const key = await license(options);
      await expect(add(handlers, key, 'a.example')).rejects.toEqual(refusedWith(code, 403));
      // Spec 2.5 records the refusals of an expired license, not those of a suspended one.
      expect((await detail(key)).rejected_attempts).toEqual(
        'status' in options && options.status === 'suspended'
          ? []
          : [
              expect.objectContaining({
                identifier: 'a.example',
                name: 'Added by support',
                reason: 'expired',
                source: 'admin',
              }),
            ],
      );
    },
  );

  test('Add on a full license is refused with ACTIVATION_LIMIT_REACHED and its counts, and recorded with its reason', async () => {
    const { license, handlers, detail, events } = service();
    const key = await license({ activation_limit: 1 });
    await add(handlers, key, 'a.example');
    const refused = add(handlers, key, 'b.example');
    await expect(refused).rejects.toEqual(refusedWith('ACTIVATION_LIMIT_REACHED', 403));
    await expect(refused).rejects.toMatchObject({
      details: { activation_limit: 1, activations_used: 1 },
    });
    expect((await detail(key)).rejected_attempts).toEqual([
      expect.objectContaining({
        identifier: 'b.example',
        name: 'Added by support',
        reason: 'limit_reached',
        source: 'admin',
        tries: 1,
      }),
    ]);
    // The activation.rejected event is client software's activate only.
    expect(events.published.map((event) => event.type)).not.toContain('activation.rejected');
  });

  test('Add of an identifier already present (after normalisation) is ACTIVATION_EXISTS', async () => {
    const { license, handlers, detail } = service();
    const key = await license();
    await add(handlers, key, 'example.com');
    await expect(add(handlers, key, 'http://www.EXAMPLE.com/')).rejects.toEqual(
      refusedWith('ACTIVATION_EXISTS', 409),
    );
    expect((await detail(key)).activations_used).toBe(1);
  });

  test('Add and Remove on an unknown key are NOT_FOUND', async () => {
    const { handlers } = service();
    await expect(add(handlers, 'no-such-key', 'a.example')).rejects.toEqual(
      refusedWith('NOT_FOUND', 404),
    );
    await expect(
      handlers['license.removeActivation'](
        { license_key: 'no-such-key', identifier: 'a.example' },
        waiting,
      ),
    ).rejects.toEqual(refusedWith('NOT_FOUND', 404));
  });

  test('Remove frees the slot, normalising like an API call; one not activated is ACTIVATION_NOT_FOUND', async () => {
    const { license, activate, handlers } = service();
    const key = await license({ activation_limit: 1 });
    await activate({ license_key: key, identifier: 'example.com' });
    const remove = (identifier: string) =>
      handlers['license.removeActivation']({ license_key: key, identifier }, waiting);
    expect(await remove('https://WWW.Example.com:8080/path')).toMatchObject({
      activations_used: 0,
      activations: [],
    });
    await expect(remove('never.example')).rejects.toEqual(refusedWith('ACTIVATION_NOT_FOUND', 404));
    await expect(activate({ license_key: key, identifier: 'b.example' })).resolves.toBeDefined();
  });
});

describe('spec 3.3 limit and status changes', () => {
  async function withActivations(limit: number, identifiers: string[]) {
    const s = service();
    const key = await s.license({ activation_limit: limit });
    for (const identifier of identifiers) await s.activate({ license_key: key, identifier });
    return { ...s, key };
  }

  test('a limit below the activations in use is ACTIVATION_LIMIT_TOO_LOW and changes nothing', async () => {
    const { handlers, detail, key } = await withActivations(3, ['a.example', 'b.example']);
    const before = await detail(key);
    const refused = handlers['license.updateLicense'](
      { license_key: key, activation_limit: 1, status: 'suspended' },
      waiting,
    );
    await expect(refused).rejects.toEqual(refusedWith('ACTIVATION_LIMIT_TOO_LOW', 409));
    await expect(refused).rejects.toMatchObject({
      details: { activation_limit: 1, activations_used: 2 },
    });
    expect(await detail(key)).toEqual(before);
  });

  test('a limit equal to the activations in use is accepted', async () => {
    const { handlers, key } = await withActivations(3, ['a.example', 'b.example']);
    expect(
      await handlers['license.updateLicense']({ license_key: key, activation_limit: 2 }, waiting),
    ).toMatchObject({ activation_limit: 2, activations_used: 2 });
  });

  test('a raised limit, or 0 (unlimited), takes effect at once', async () => {
    const { handlers, activate, key } = await withActivations(1, ['a.example']);
    await expect(activate({ license_key: key, identifier: 'b.example' })).rejects.toEqual(
      refusedWith('ACTIVATION_LIMIT_REACHED', 403),
    );
    await handlers['license.updateLicense']({ license_key: key, activation_limit: 2 }, waiting);
    expect(await activate({ license_key: key, identifier: 'b.example' })).toMatchObject({
      activation_limit: 2,
      activations_used: 2,
    });
    await handlers['license.updateLicense']({ license_key: key, activation_limit: 0 }, waiting);
    expect(await activate({ license_key: key, identifier: 'c.example' })).toMatchObject({
      activations_used: 3,
    });
  });

  test('status and expiry changes take effect at once; an expiry of null clears it', async () => {
    const { handlers, activate, key } = await withActivations(3, []);
    const update = (changes: { status?: LicenseStatus; expires_at?: string | null }) =>
      handlers['license.updateLicense']({ license_key: key, ...changes }, waiting);
    await update({ status: 'suspended' });
    await expect(activate({ license_key: key, identifier: 'a.example' })).rejects.toEqual(
      refusedWith('LICENSE_INVALID', 403),
    );
    await update({ status: 'active' });
    await expect(activate({ license_key: key, identifier: 'a.example' })).resolves.toBeDefined();
    expect((await update({ expires_at: FUTURE })).expires_at).toBe(FUTURE);
    expect((await update({ expires_at: null })).expires_at).toBeNull();
  });

  test('an unknown key is NOT_FOUND', async () => {
    const { handlers } = service();
    for (const changes of [{ activation_limit: 5 }, { status: 'active' as const }]) {
      await expect(
        handlers['license.updateLicense']({ license_key: 'no-such-key', ...changes }, waiting),
      ).rejects.toEqual(refusedWith('NOT_FOUND', 404));
    }
  });
});

describe('spec 2.1 plans and issued licenses', () => {
  test("a license copies the plan's limit and type when it is issued, and starts empty", async () => {
    const { handlers, detail } = service();
    const plan = await handlers['license.createPlan'](
      { name: 'Fleet', activation_type: 'instance', activation_limit: 7, ...PLAN_DEFAULTS },
      waiting,
    );
    expect(await handlers['license.getPlan']({ id: plan.id }, waiting)).toEqual(plan);
    expect((await handlers['license.listPlans']({}, waiting)).plans).toEqual([plan]);
    const created = await handlers['license.createLicense'](
      {
        product_id: 10,
        plan_id: plan.id,
        status: 'active',
        expires_at: null,
        auto_renew: false,
        next_payment_at: null,
        customer: null,
        metadata: {},
      },
      waiting,
    );
    expect(created).toMatchObject({
      license_key: expect.stringMatching(/^[0-9a-f]{32}$/),
      product: 'Plugin',
      plan: 'Fleet',
      activation_type: 'instance',
      activation_limit: 7,
      activations: [],
      rejected_attempts: [],
      created_at: NOW.toISOString(),
    });
    expect(await detail(created.license_key)).toEqual(created);
  });

  test('a taken plan id or license key is ALREADY_EXISTS; an unknown plan or product is INVALID_REQUEST', async () => {
    const { handlers, license } = service();
    const plan = {
      name: 'x',
      activation_type: 'device' as const,
      activation_limit: 1,
      ...PLAN_DEFAULTS,
    };
    await handlers['license.createPlan']({ ...plan, id: 700 }, waiting);
    await expect(
      handlers['license.createPlan']({ ...plan, name: 'y', id: 700 }, waiting),
    ).rejects.toEqual(refusedWith('ALREADY_EXISTS', 409));
    const key = await license();
    const issue = (fields: { license_key?: string; product_id: number; plan_id: number }) =>
      handlers['license.createLicense'](
        {
          status: 'active',
          expires_at: null,
          auto_renew: false,
          next_payment_at: null,
          customer: null,
          metadata: {},
          ...fields,
        },
        waiting,
      );
    await expect(issue({ license_key: key, product_id: 10, plan_id: 700 })).rejects.toEqual(
      refusedWith('ALREADY_EXISTS', 409),
    );
    await expect(issue({ product_id: 10, plan_id: 987654 })).rejects.toEqual(
      refusedWith('INVALID_REQUEST', 400),
    );
    await expect(issue({ product_id: 987654, plan_id: 700 })).rejects.toEqual(
      refusedWith('INVALID_REQUEST', 400),
    );
    await expect(handlers['license.getPlan']({ id: 987654 }, waiting)).rejects.toEqual(
      refusedWith('NOT_FOUND', 404),
    );
  });
});

describe('plan names are unique, compared without letter case and extra white space', () => {
  const fields = { activation_type: 'domain' as const, activation_limit: 1, ...PLAN_DEFAULTS };

  test('a new plan named as another, in any case or spacing, is ALREADY_EXISTS naming that plan; nothing is written', async () => {
    const { handlers, stores } = service();
    const single = await handlers['license.createPlan'](
      { name: 'Single site', ...fields },
      waiting,
    );
    const writes = stores.writes();
    for (const name of ['Single site', ' single  SITE ', 'Single\u00a0site']) {
      const refused = handlers['license.createPlan']({ name, ...fields }, waiting);
      await expect(refused).rejects.toEqual(refusedWith('ALREADY_EXISTS', 409));
      await expect(refused).rejects.toMatchObject({
        message: `Plan ${single.id} is already named "Single site".`,
        details: { plan_id: single.id },
      });
    }
    expect(stores.writes()).toBe(writes);
    expect((await handlers['license.listPlans']({}, waiting)).plans).toHaveLength(1);
  });

  test("a plan renamed to another's name is refused; to its own name in another case, it is not", async () => {
    const { handlers } = service();
    const single = await handlers['license.createPlan'](
      { name: 'Single site', ...fields },
      waiting,
    );
    const three = await handlers['license.createPlan']({ name: 'Three sites', ...fields }, waiting);
    await expect(
      handlers['license.updatePlan']({ id: three.id, name: 'single site' }, waiting),
    ).rejects.toEqual(refusedWith('ALREADY_EXISTS', 409));
    expect(
      await handlers['license.updatePlan']({ id: single.id, name: 'Single Site' }, waiting),
    ).toMatchObject({ name: 'Single Site' });
  });

  test('creations of one name at the same time: one is created, the other refused as any duplicate is', async () => {
    const { handlers } = service();
    const outcomes = await Promise.allSettled([
      handlers['license.createPlan']({ name: 'Single site', ...fields }, waitingCall()),
      handlers['license.createPlan']({ name: 'single SITE', ...fields }, waitingCall()),
    ]);
    const created = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(created).toHaveLength(1);
    expect(refused).toEqual([refusedWith('ALREADY_EXISTS', 409)]);
    expect(refused[0]).toMatchObject({
      message: `Plan ${created[0]!.id} is already named "${created[0]!.name}".`,
      details: { plan_id: created[0]!.id },
    });
    expect((await handlers['license.listPlans']({}, waiting)).plans).toEqual(created);
  });

  test('plans stored under one name before the rule: the first keeps it, the others become Name (2), (3)... on names no plan has', () => {
    expect(
      duplicatePlanRenames([
        { id: 4, name: 'Basic' },
        { id: 1, name: 'Basic' },
        { id: 2, name: 'basic (2)' },
        { id: 3, name: 'Pro' },
        { id: 5, name: ' BASIC ' },
      ]),
    ).toEqual([
      { id: 4, previousName: 'Basic', name: 'Basic (3)', keptBy: 1 },
      { id: 5, previousName: ' BASIC ', name: 'BASIC (4)', keptBy: 1 },
    ]);
    expect(
      duplicatePlanRenames([
        { id: 1, name: 'Basic' },
        { id: 2, name: 'Pro' },
      ]),
    ).toEqual([]);
  });
});
