import type { LicenseStatus, LicenseSummary } from '../../libs/contracts/index.js';
import {
  REJECTED_ATTEMPT_RETENTION_MS,
  TASK_EXPIRE_LICENSES,
  runScheduledTask,
} from '../../services/license/lifecycle/scheduled-tasks.js';
import {
  DAY,
  FUTURE,
  NOW,
  PAST,
  abandoned,
  refusedWith,
  service,
  waiting,
} from '../support/license-handler-harness.js';

/**
 * Plan changes, renewals, the admin search, the customer portal and the scheduled tasks on
 * demand: the license service's handlers on in-memory stores with a fixed clock and catalog.
 */

const LATER = '2028-01-01T00:00:00.000Z';

/** A license on plan "Solo" (domain, 3) with plan "Team" (seat, 10) beside it. */
async function withPlans(
  options: { status?: LicenseStatus; expires_at?: string | null; product_id?: number } = {},
) {
  const s = service();
  const solo = await s.plan({ name: 'Solo', activation_type: 'domain', activation_limit: 3 });
  const team = await s.plan({ name: 'Team', activation_type: 'seat', activation_limit: 10 });
  const key = await s.license({ ...options, plan_id: solo.id });
  // Confirmed: these tests are about what a change does (the confirmation has its own below).
  const changePlan = (plan_id: number, when: 'now' | 'renewal', context = waiting) =>
    s.handlers['license.changePlan']({ license_key: key, plan_id, when, confirm: true }, context);
  const renew = (
    fields: {
      source: 'checkout' | 'gateway';
      expires_at?: string;
      next_payment_at?: string | null;
    },
    context = waiting,
  ) =>
    s.handlers['license.renewLicense']({ license_key: key, expires_at: LATER, ...fields }, context);
  return { ...s, solo, team, key, changePlan, renew };
}

describe('spec 3.3 plan changes (license.changePlan)', () => {
  test('now: the license takes the plan, its limit and its type; a pending change is cleared', async () => {
    const { team, solo, changePlan, detail, key } = await withPlans();
    await changePlan(team.id, 'renewal');
    const changed = await changePlan(solo.id, 'now');
    expect(changed).toMatchObject({ plan_id: solo.id, plan: 'Solo', pending_plan: null });
    expect(await changePlan(team.id, 'now')).toMatchObject({
      plan_id: team.id,
      plan: 'Team',
      activation_type: 'seat',
      activation_limit: 10,
      pending_plan: null,
    });
    expect((await detail(key)).plan).toBe('Team');
  });

  test('at renewal: stored as pending and shown with its name; plan, limit and type stay', async () => {
    const { team, solo, changePlan, detail, key } = await withPlans();
    const before = await detail(key);
    const changed = await changePlan(team.id, 'renewal');
    expect(changed).toEqual({ ...before, pending_plan: { id: team.id, name: 'Team' } });
    expect(changed).toMatchObject({ plan_id: solo.id, activation_type: 'domain' });
    expect(await detail(key)).toEqual(changed);
  });

  test('an unknown license or an unknown plan is NOT_FOUND; nothing is written', async () => {
    const { handlers, stores, changePlan, team } = await withPlans();
    const writes = stores.writes();
    await expect(changePlan(987654, 'now')).rejects.toEqual(refusedWith('NOT_FOUND', 404));
    await expect(changePlan(987654, 'renewal')).rejects.toEqual(refusedWith('NOT_FOUND', 404));
    await expect(
      handlers['license.changePlan'](
        { license_key: 'no-such-key', plan_id: team.id, when: 'now', confirm: true },
        waiting,
      ),
    ).rejects.toEqual(refusedWith('NOT_FOUND', 404));
    expect(stores.writes()).toBe(writes);
  });

  test('a limit left below the activations in use: they stay, new ones are refused until the count is under it', async () => {
    const s = await withPlans();
    const small = await s.plan({ name: 'Small', activation_type: 'domain', activation_limit: 2 });
    for (const site of ['a.example', 'b.example', 'c.example']) {
      await s.activate({ license_key: s.key, identifier: site });
    }
    expect(await s.changePlan(small.id, 'now')).toMatchObject({
      activation_limit: 2,
      activations_used: 3,
    });
    const refused = s.activate({ license_key: s.key, identifier: 'd.example' });
    await expect(refused).rejects.toEqual(refusedWith('ACTIVATION_LIMIT_REACHED', 403));
    await expect(refused).rejects.toMatchObject({
      details: { activation_limit: 2, activations_used: 3 },
    });
    await s.deactivate({ license_key: s.key, identifier: 'a.example' });
    await expect(s.activate({ license_key: s.key, identifier: 'd.example' })).rejects.toEqual(
      refusedWith('ACTIVATION_LIMIT_REACHED', 403),
    );
    await s.deactivate({ license_key: s.key, identifier: 'b.example' });
    expect(await s.activate({ license_key: s.key, identifier: 'd.example' })).toMatchObject({
      activation_limit: 2,
      activations_used: 2,
    });
  });
});

describe('plan changes that need confirming (docs/api-decisions.md, "Plan changes")', () => {
  test('unconfirmed, a change that leaves activations over the new limit is CONFIRMATION_REQUIRED with its facts, now or at renewal; nothing is written', async () => {
    const s = await withPlans();
    const one = await s.plan({ name: 'One', activation_type: 'domain', activation_limit: 1 });
    for (const site of ['a.example', 'b.example']) {
      await s.activate({ license_key: s.key, identifier: site });
    }
    const writes = s.stores.writes();
    for (const when of ['now', 'renewal'] as const) {
      const refused = s.handlers['license.changePlan'](
        { license_key: s.key, plan_id: one.id, when, confirm: false },
        waiting,
      );
      await expect(refused).rejects.toEqual(refusedWith('CONFIRMATION_REQUIRED', 409));
      await expect(refused).rejects.toMatchObject({
        details: {
          plan_id: one.id,
          plan: 'One',
          activations_used: 2,
          new_activation_limit: 1,
          activations_over_limit: 1,
          type_changes: false,
        },
      });
    }
    expect(s.stores.writes()).toBe(writes);
    expect(await s.detail(s.key)).toMatchObject({ plan: 'Solo', pending_plan: null });
  });

  test('confirmed, it is made: the activations stay, over the limit', async () => {
    const s = await withPlans();
    const one = await s.plan({ name: 'One', activation_type: 'domain', activation_limit: 1 });
    for (const site of ['a.example', 'b.example']) {
      await s.activate({ license_key: s.key, identifier: site });
    }
    expect(
      await s.handlers['license.changePlan'](
        { license_key: s.key, plan_id: one.id, when: 'now', confirm: true },
        waiting,
      ),
    ).toMatchObject({ plan: 'One', activation_limit: 1, activations_used: 2 });
  });

  test('a change of activation type needs confirming even on a license with no activation', async () => {
    const { handlers, key, team } = await withPlans();
    await expect(
      handlers['license.changePlan'](
        { license_key: key, plan_id: team.id, when: 'now', confirm: false },
        waiting,
      ),
    ).rejects.toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
      details: { activation_type: 'domain', new_activation_type: 'seat', type_changes: true },
    });
  });
});

describe('spec 3.3 renewals (license.renewLicense)', () => {
  test('checkout (Renew button) applies the pending plan change, then resets limit and type to it', async () => {
    const { team, changePlan, renew, handlers, key } = await withPlans({ expires_at: FUTURE });
    await handlers['license.updateLicense']({ license_key: key, activation_limit: 5 }, waiting);
    await changePlan(team.id, 'renewal');
    expect(
      await renew({ source: 'checkout', expires_at: LATER, next_payment_at: LATER }),
    ).toMatchObject({
      plan_id: team.id,
      plan: 'Team',
      activation_type: 'seat',
      activation_limit: 10,
      pending_plan: null,
      expires_at: LATER,
      next_payment_at: LATER,
    });
  });

  test("checkout without a pending change resets limit and type to the license's own plan", async () => {
    const { solo, renew, handlers, key } = await withPlans();
    await handlers['license.updateLicense']({ license_key: key, activation_limit: 7 }, waiting);
    expect(await renew({ source: 'checkout' })).toMatchObject({
      plan_id: solo.id,
      activation_limit: 3,
      activation_type: 'domain',
    });
  });

  test('gateway (automatic renewal) sets the dates only: plan, limit, type and pending change stay', async () => {
    const { team, solo, changePlan, renew, handlers, key } = await withPlans();
    await handlers['license.updateLicense']({ license_key: key, activation_limit: 7 }, waiting);
    await changePlan(team.id, 'renewal');
    expect(await renew({ source: 'gateway', next_payment_at: LATER })).toMatchObject({
      plan_id: solo.id,
      activation_type: 'domain',
      activation_limit: 7,
      pending_plan: { id: team.id, name: 'Team' },
      expires_at: LATER,
      next_payment_at: LATER,
    });
  });

  describe.each(['checkout', 'gateway'] as const)('statuses, %s', (source) => {
    test.each([
      ['expired', 'active'],
      ['active', 'active'],
      ['suspended', 'suspended'],
    ] as const)(
      'a license stored as %s is %s after it, with the new expiry',
      async (status, after) => {
        const { renew } = await withPlans({ status, expires_at: PAST });
        expect(await renew({ source })).toMatchObject({ status: after, expires_at: LATER });
      },
    );

    test.each(['revoked', 'cancelled'] as const)(
      'a %s license is refused with LICENSE_INVALID and nothing is written',
      async (status) => {
        const { renew, detail, key, stores } = await withPlans({ status, expires_at: PAST });
        const before = await detail(key);
        const writes = stores.writes();
        await expect(renew({ source })).rejects.toEqual(refusedWith('LICENSE_INVALID', 403));
        expect(stores.writes()).toBe(writes);
        expect(await detail(key)).toEqual(before);
      },
    );
  });

  test('an active license past its date reports active again, and takes activations', async () => {
    const { renew, activate, key } = await withPlans({ expires_at: PAST });
    expect(await renew({ source: 'gateway' })).toMatchObject({ status: 'active' });
    await expect(activate({ license_key: key, identifier: 'a.example' })).resolves.toBeDefined();
  });

  test.each([
    ['now', NOW.toISOString()],
    ['in the past', PAST],
  ])('an expiry date %s is INVALID_REQUEST; nothing is written', async (_, expires_at) => {
    const { renew, stores } = await withPlans({ status: 'expired' });
    const writes = stores.writes();
    await expect(renew({ source: 'checkout', expires_at })).rejects.toEqual(
      refusedWith('INVALID_REQUEST', 400),
    );
    expect(stores.writes()).toBe(writes);
  });

  test('the next payment date stays when none is sent; null clears it', async () => {
    const { renew } = await withPlans();
    await renew({ source: 'gateway', next_payment_at: FUTURE });
    expect((await renew({ source: 'gateway' })).next_payment_at).toBe(FUTURE);
    expect((await renew({ source: 'gateway', next_payment_at: null })).next_payment_at).toBeNull();
  });

  test('an unknown key is NOT_FOUND', async () => {
    const { handlers } = service();
    await expect(
      handlers['license.renewLicense'](
        { license_key: 'no-such-key', expires_at: LATER, source: 'gateway' },
        waiting,
      ),
    ).rejects.toEqual(refusedWith('NOT_FOUND', 404));
  });

  test('a license changed between the read and the write is decided again on a fresh read', async () => {
    const { stores, team, renew, key } = await withPlans();
    const write = stores.licenses.renew.bind(stores.licenses);
    let rounds = 0;
    stores.licenses.renew = async (renewal) => {
      // An admin schedules a plan change while the first renewal is on its way.
      if (rounds++ === 0) {
        await stores.licenses.schedulePlanChange({ licenseKey: key, planId: team.id, now: NOW });
      }
      return write(renewal);
    };
    expect(await renew({ source: 'checkout' })).toMatchObject({
      plan_id: team.id,
      activation_limit: 10,
      pending_plan: null,
    });
    expect(rounds).toBe(2);
  });

  test('a license that keeps changing is given up on with INTERNAL_ERROR', async () => {
    const { stores, renew } = await withPlans();
    stores.licenses.renew = async () => null;
    await expect(renew({ source: 'gateway' })).rejects.toEqual(refusedWith('INTERNAL_ERROR', 500));
  });
});

describe('admin search (license.searchLicenses)', () => {
  async function catalogue() {
    const s = service();
    const solo = await s.plan({ name: 'Solo', activation_type: 'domain', activation_limit: 3 });
    const fleet = await s.plan({ name: 'Fleet', activation_type: 'device', activation_limit: 5 });
    const keys = {
      plain: await s.license({ plan_id: solo.id }),
      pastDue: await s.license({ plan_id: solo.id, expires_at: PAST, product_id: 20 }),
      device: await s.license({ plan_id: fleet.id, product_id: 11 }),
      suspended: await s.license({ plan_id: fleet.id, status: 'suspended' }),
    };
    await s.activate({ license_key: keys.plain, identifier: 'shop.example' });
    await s.activate({ license_key: keys.device, identifier: 'PC-One' });
    const search = (filters: {
      product_id?: number;
      plan_id?: number;
      status?: LicenseStatus;
      q?: string;
      page?: number;
      per_page?: number;
    }) =>
      s.handlers['license.searchLicenses'](
        {
          product_id: null,
          plan_id: null,
          status: null,
          q: null,
          sort: '-created_at',
          page: 1,
          per_page: 50,
          ...filters,
        },
        waiting,
      );
    const found = async (filters: Parameters<typeof search>[0]) =>
      (await search(filters)).licenses.map((l) => l.license_key);
    return { ...s, solo, fleet, keys, search, found };
  }

  test('newest first, each license as its detail without activations and rejected attempts', async () => {
    const { search, keys, detail, handlers, fleet } = await catalogue();
    await handlers['license.changePlan'](
      { license_key: keys.plain, plan_id: fleet.id, when: 'renewal', confirm: true },
      waiting,
    );
    const page = await search({});
    expect(page).toMatchObject({ page: 1, per_page: 50, total: 4 });
    expect(page.licenses.map((l) => l.license_key)).toEqual([
      keys.suspended,
      keys.device,
      keys.pastDue,
      keys.plain,
    ]);
    for (const summary of page.licenses) {
      const {
        activations: _a,
        rejected_attempts: _r,
        entitlements: _e,
        ...expected
      } = await detail(summary.license_key);
      expect(summary).toEqual(expected satisfies LicenseSummary);
    }
    expect(page.licenses[3]).toMatchObject({
      product: 'Plugin',
      plan: 'Solo',
      pending_plan: { name: 'Fleet' },
      activations_used: 1,
    });
    expect(page.licenses[2]).toMatchObject({ product: 'Bundle', status: 'expired' });
  });

  test('by product, by plan and by reported status: an active license past its date is expired', async () => {
    const { found, keys, fleet } = await catalogue();
    expect(await found({ product_id: 10 })).toEqual([keys.suspended, keys.plain]);
    expect(await found({ plan_id: fleet.id })).toEqual([keys.suspended, keys.device]);
    expect(await found({ status: 'active' })).toEqual([keys.device, keys.plain]);
    expect(await found({ status: 'expired' })).toEqual([keys.pastDue]);
    expect(await found({ status: 'suspended', product_id: 10 })).toEqual([keys.suspended]);
  });

  test('q: a license key prefix, or an activated identifier normalised for comparison', async () => {
    const { found, keys } = await catalogue();
    expect(await found({ q: keys.device.slice(0, 12) })).toEqual([keys.device]);
    expect(await found({ q: ` ${keys.plain} ` })).toEqual([keys.plain]);
    expect(await found({ q: 'https://www.Shop.example/x' })).toEqual([keys.plain]);
    expect(await found({ q: '  pc-ONE ' })).toEqual([keys.device]);
    expect(await found({ q: 'shop' })).toEqual([]);
  });

  test('pages of per_page with the total of all', async () => {
    const { search, keys } = await catalogue();
    const second = await search({ page: 2, per_page: 3 });
    expect(second).toMatchObject({ page: 2, per_page: 3, total: 4 });
    expect(second.licenses.map((l) => l.license_key)).toEqual([keys.plain]);
    expect(await search({ page: 3, per_page: 3 })).toMatchObject({ licenses: [], total: 4 });
  });

  test('a search writes nothing and answers whatever the deadline', async () => {
    const { handlers, stores } = await catalogue();
    const writes = stores.writes();
    const request = {
      product_id: null,
      plan_id: null,
      status: null,
      q: null,
      sort: '-created_at' as const,
      page: 1,
      per_page: 50,
    };
    await expect(handlers['license.searchLicenses'](request, abandoned)).resolves.toMatchObject({
      total: 4,
    });
    expect(stores.writes()).toBe(writes);
  });
});

describe('spec 1 and 2.3 the customer portal (license.portalLicense)', () => {
  test('the license with its product, plan, reported status and activations, without IP', async () => {
    const { license, activate, handlers } = service();
    const key = await license({ expires_at: FUTURE });
    await activate({ license_key: key, identifier: 'shop.example', name: 'Shop' });
    expect(await handlers['license.portalLicense']({ license_key: key }, waiting)).toEqual({
      license_key: key,
      status: 'active',
      product: 'Plugin',
      plan: 'Agency',
      activation_type: 'domain',
      activation_limit: 3,
      activations_used: 1,
      expires_at: FUTURE,
      auto_renew: false,
      next_payment_at: null,
      products: [{ id: 10, title: 'Plugin' }],
      activations: [
        {
          identifier: 'shop.example',
          name: 'Shop',
          activated_at: NOW.toISOString(),
          lease_expires_at: null,
          exempt: false,
        },
      ],
      lease_seconds: null,
      in_grace: false,
      grace_ends_at: null,
      updates_until: null,
    });
  });

  test("a bundle key lists the bundle's products with their titles", async () => {
    const { license, handlers } = service();
    const key = await license({ product_id: 20 });
    expect(await handlers['license.portalLicense']({ license_key: key }, waiting)).toMatchObject({
      product: 'Bundle',
      products: [
        { id: 10, title: 'Plugin' },
        { id: 30, title: 'Addon' },
      ],
    });
  });

  test.each([
    ['revoked', { status: 'revoked' as const }, 'revoked'],
    ['past its date', { expires_at: PAST }, 'expired'],
  ])('a license %s can be viewed, with its reported status', async (_, options, status) => {
    const { license, handlers } = service();
    const key = await license(options);
    expect(await handlers['license.portalLicense']({ license_key: key }, waiting)).toMatchObject({
      status,
    });
  });

  test('an unknown key is LICENSE_INVALID', async () => {
    const { handlers } = service();
    await expect(
      handlers['license.portalLicense']({ license_key: 'no-such-key' }, waiting),
    ).rejects.toEqual(refusedWith('LICENSE_INVALID', 403));
  });

  test("no side effect: nothing is written, not even validate's check fields", async () => {
    const { license, handlers, stores, detail } = service();
    const key = await license();
    const before = await detail(key);
    const writes = stores.writes();
    await handlers['license.portalLicense']({ license_key: key }, waiting);
    await handlers['license.portalLicense']({ license_key: key }, abandoned);
    expect(stores.writes()).toBe(writes);
    expect(await detail(key)).toEqual(before);
  });
});

describe('spec 2.5 and 3.1 scheduled tasks on demand (license.runTask, license.listTasks)', () => {
  test('license-expiry runs the expiry task now and answers how many licenses it expired', async () => {
    const { license, handlers, stores } = service();
    const due = await license({ expires_at: PAST });
    await license({ expires_at: FUTURE });
    expect(await handlers['license.runTask']({ name: 'license-expiry' }, waiting)).toEqual({
      name: 'license-expiry',
      ran_at: NOW.toISOString(),
      affected: 1,
    });
    expect((await stores.licenses.findByKey(due))?.status).toBe('expired');
  });

  test('rejected-attempt-pruning removes the rows untouched for 90 days', async () => {
    let now = NOW;
    const { license, activate, handlers, detail } = service({ clock: () => new Date(now) });
    const key = await license({ expires_at: PAST });
    await expect(activate({ license_key: key, identifier: 'late.example' })).rejects.toEqual(
      refusedWith('LICENSE_EXPIRED', 403),
    );
    now = new Date(NOW.getTime() + REJECTED_ATTEMPT_RETENTION_MS - DAY);
    expect(
      await handlers['license.runTask']({ name: 'rejected-attempt-pruning' }, waiting),
    ).toMatchObject({ affected: 0 });
    now = new Date(NOW.getTime() + REJECTED_ATTEMPT_RETENTION_MS);
    expect(
      await handlers['license.runTask']({ name: 'rejected-attempt-pruning' }, waiting),
    ).toMatchObject({ affected: 1 });
    expect((await detail(key)).rejected_attempts).toEqual([]);
  });

  test("the list: each task's interval here, its last run and its next run; none before any", async () => {
    const { handlers, stores } = service();
    expect(await handlers['license.listTasks']({}, waiting)).toEqual({
      tasks: [
        { name: 'license-expiry', interval: '1 minute', last_run: null, next_run_at: null },
        { name: 'rejected-attempt-pruning', interval: '1 hour', last_run: null, next_run_at: null },
        {
          name: 'activation-lease-release',
          interval: '1 minute',
          last_run: null,
          next_run_at: null,
        },
      ],
    });
    stores.scheduleJob(TASK_EXPIRE_LICENSES, new Date(FUTURE));
    await handlers['license.runTask']({ name: 'license-expiry' }, waiting);
    const [expiry, pruning] = (await handlers['license.listTasks']({}, waiting)).tasks;
    expect(expiry).toEqual({
      name: 'license-expiry',
      interval: '1 minute',
      last_run: { ran_at: NOW.toISOString(), trigger: 'on-demand', affected: 0, error: null },
      next_run_at: FUTURE,
    });
    expect(pruning).toMatchObject({ last_run: null, next_run_at: null });
  });

  test("the scheduler's runs are listed too, as scheduled", async () => {
    const { license, handlers, stores, events } = service();
    await license({ expires_at: PAST });
    await runScheduledTask({
      name: 'license-expiry',
      stores,
      events,
      trigger: 'scheduled',
      now: NOW,
    });
    expect((await handlers['license.listTasks']({}, waiting)).tasks[0]?.last_run).toEqual({
      ran_at: NOW.toISOString(),
      trigger: 'scheduled',
      affected: 1,
      error: null,
    });
  });

  test('a failed run is answered as the failure and listed with its error', async () => {
    const { handlers, stores } = service();
    stores.licenses.pastDue = async () => {
      throw new Error('database unavailable');
    };
    await expect(handlers['license.runTask']({ name: 'license-expiry' }, waiting)).rejects.toThrow(
      'database unavailable',
    );
    expect((await handlers['license.listTasks']({}, waiting)).tasks[0]?.last_run).toEqual({
      ran_at: NOW.toISOString(),
      trigger: 'on-demand',
      affected: null,
      error: 'database unavailable',
    });
  });
});

describe('RPC deadlines: once the caller stopped waiting, nothing is written', () => {
  const internal = refusedWith('INTERNAL_ERROR', 500);

  test('plan changes, renewals and task runs write nothing', async () => {
    const { team, changePlan, renew, handlers, stores, detail, key } = await withPlans({
      status: 'expired',
      expires_at: PAST,
    });
    const before = await detail(key);
    const writes = stores.writes();
    await expect(changePlan(team.id, 'now', abandoned)).rejects.toEqual(internal);
    await expect(changePlan(team.id, 'renewal', abandoned)).rejects.toEqual(internal);
    await expect(renew({ source: 'checkout' }, abandoned)).rejects.toEqual(internal);
    await expect(renew({ source: 'gateway' }, abandoned)).rejects.toEqual(internal);
    for (const name of ['license-expiry', 'rejected-attempt-pruning'] as const) {
      await expect(handlers['license.runTask']({ name }, abandoned)).rejects.toEqual(internal);
    }
    expect(stores.writes()).toBe(writes);
    expect(await detail(key)).toEqual(before);
    expect(await stores.taskRuns.lastRuns()).toEqual([]);
  });

  test('the task list answers whatever the deadline', async () => {
    const { handlers } = service();
    await expect(handlers['license.listTasks']({}, abandoned)).resolves.toMatchObject({
      tasks: [expect.anything(), expect.anything(), expect.anything()],
    });
  });
});
