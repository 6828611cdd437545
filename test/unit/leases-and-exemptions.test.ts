import { runScheduledTask } from '../../services/license/lifecycle/scheduled-tasks.js';
import {
  NOW,
  PLAN_DEFAULTS,
  refusedWith,
  service,
  waiting,
} from '../support/license-handler-harness.js';

/**
 * Leases and exempt identifiers (docs/api-decisions.md, "Leases" and "Exempt identifiers"): the
 * handlers on in-memory stores, with a clock the tests move.
 */

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The handlers with a clock that `at` moves. */
function leased(options: { lease_seconds?: number | null } = {}) {
  let now = NOW.getTime();
  const s = service({ clock: () => new Date(now) });
  const at = (ms: number) => {
    now = ms;
  };
  const license = (limit = 1, extra: Parameters<typeof s.license>[0] = {}) =>
    s.license({
      activation_limit: limit,
      lease_seconds: options.lease_seconds === undefined ? 3600 : options.lease_seconds,
      ...extra,
    });
  const coverage = (key: string, identifier: string) =>
    s.handlers['license.coverage']({ license_key: key, product_id: 10, identifier }, waiting);
  return { ...s, at, license, coverage };
}

describe('leases: an activation lives lease_seconds unless renewed', () => {
  test('an activation on a leased plan carries when it lapses, in the answer and the detail', async () => {
    const { license, activate, detail } = leased();
    const key = await license();
    const answer = await activate({ license_key: key, identifier: 'node-1.example' });
    expect(answer.lease_expires_at).toBe(iso(NOW.getTime() + HOUR));
    expect((await detail(key)).activations[0]).toMatchObject({
      identifier: 'node-1.example',
      lease_expires_at: iso(NOW.getTime() + HOUR),
    });
    expect((await detail(key)).lease_seconds).toBe(3600);
  });

  test('validate with the identifier renews it to now + lease_seconds; without one, renews nothing', async () => {
    const { license, activate, validate, detail, at } = leased();
    const key = await license();
    await activate({ license_key: key, identifier: 'node-1.example' });
    at(NOW.getTime() + 50 * 60_000);
    const renewed = await validate({ license_key: key, identifier: 'node-1.example' });
    expect(renewed).toMatchObject({
      identifier_activated: true,
      lease_expires_at: iso(NOW.getTime() + 110 * 60_000),
    });
    expect((await validate({ license_key: key })).lease_expires_at).toBeNull();
    expect((await detail(key)).activations[0]?.lease_expires_at).toBe(
      iso(NOW.getTime() + 110 * 60_000),
    );
    // Still alive past the first hour, thanks to the renewal.
    at(NOW.getTime() + 100 * 60_000);
    expect(await validate({ license_key: key, identifier: 'node-1.example' })).toMatchObject({
      identifier_activated: true,
    });
  });

  test('activate with the same identifier renews it (spec 3.2: idempotent, no further slot)', async () => {
    const { license, activate, at } = leased();
    const key = await license();
    await activate({ license_key: key, identifier: 'node-1.example' });
    at(NOW.getTime() + 30 * 60_000);
    expect(await activate({ license_key: key, identifier: 'node-1.example' })).toMatchObject({
      activations_used: 1,
      lease_expires_at: iso(NOW.getTime() + 90 * 60_000),
    });
  });

  test('a lapsed activation is gone at once for every rule: not activated, not counted, its slot free, and an activation.deleted event with the source lease', async () => {
    const { license, activate, validate, coverage, at, events, handlers } = leased();
    const key = await license(1);
    await activate({ license_key: key, identifier: 'node-1.example' });
    at(NOW.getTime() + HOUR);
    expect(await validate({ license_key: key, identifier: 'node-1.example' })).toMatchObject({
      identifier_activated: false,
      activations_used: 0,
      lease_expires_at: null,
    });
    expect((await coverage(key, 'node-1.example')).identifier_activated).toBe(false);
    await expect(
      handlers['license.checkout'](
        { license_key: key, identifier: 'node-1.example', product_id: 10, ttl_seconds: 60 },
        waiting,
      ),
    ).rejects.toEqual(refusedWith('ACTIVATION_NOT_FOUND', 404));
    // The one slot is free for another.
    expect(await activate({ license_key: key, identifier: 'node-2.example' })).toMatchObject({
      activations_used: 1,
    });
    expect(events.ofType('activation.deleted')).toEqual([
      expect.objectContaining({
        timestamp: iso(NOW.getTime() + HOUR),
        data: expect.objectContaining({
          license_key: key,
          identifier: 'node-1.example',
          source: 'lease',
        }),
      }),
    ]);
  });

  test('the coverage the update check and the download ask for is a read: a lapsed activation is not activated there, and nothing is written', async () => {
    const { license, activate, coverage, at, events, stores } = leased();
    const key = await license(1);
    await activate({ license_key: key, identifier: 'node-1.example' });
    await activate({ license_key: key, identifier: 'node-1.example' });
    const released: unknown[] = [];
    const releaseLapsed = stores.licenses.releaseLapsed.bind(stores.licenses);
    stores.licenses.releaseLapsed = (query) => {
      released.push(query);
      return releaseLapsed(query);
    };
    at(NOW.getTime() + 30 * 60_000);
    expect((await coverage(key, 'node-1.example')).identifier_activated).toBe(true);
    at(NOW.getTime() + HOUR);
    expect((await coverage(key, 'node-1.example')).identifier_activated).toBe(false);
    expect(released).toEqual([]);
    expect(events.ofType('activation.deleted')).toEqual([]);
  });

  test('the activation-lease-release task removes lapsed activations, each an event, and leaves live ones', async () => {
    const { license, activate, detail, at, events, stores } = leased();
    const one = await license(3);
    const two = await license(3);
    await activate({ license_key: one, identifier: 'a.example' });
    await activate({ license_key: two, identifier: 'b.example' });
    at(NOW.getTime() + 30 * 60_000);
    await activate({ license_key: two, identifier: 'c.example' });
    const run = (ms: number) =>
      runScheduledTask({
        name: 'activation-lease-release',
        stores,
        events,
        trigger: 'scheduled',
        now: new Date(ms),
      });
    expect(await run(NOW.getTime() + 59 * 60_000)).toBe(0);
    expect(await run(NOW.getTime() + HOUR)).toBe(2);
    expect(
      events.ofType('activation.deleted').map(({ data }) => [data.identifier, data.source]),
    ).toEqual([
      ['a.example', 'lease'],
      ['b.example', 'lease'],
    ]);
    expect((await detail(two)).activations.map((a) => a.identifier)).toEqual(['c.example']);
    expect((await detail(one)).activations_used).toBe(0);
    expect(await run(NOW.getTime() + HOUR)).toBe(0);
  });

  test('40 racing activations on a limit of 5 while 5 leases lapse: exactly 5 live afterwards', async () => {
    const { license, activate, detail, at } = leased();
    const key = await license(5);
    for (let i = 0; i < 5; i++)
      await activate({ license_key: key, identifier: `old-${i}.example` });
    at(NOW.getTime() + HOUR);
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        activate({ license_key: key, identifier: `new-${i}.example` }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    for (const refused of results.filter((r) => r.status === 'rejected')) {
      expect(refused.reason).toMatchObject({ code: 'ACTIVATION_LIMIT_REACHED' });
    }
    const shown = await detail(key);
    expect(shown.activations_used).toBe(5);
    expect(shown.activations.map((a) => a.identifier).every((id) => id.startsWith('new-'))).toBe(
      true,
    );
  });

  test('a plan without a lease gives none: lease_expires_at is null everywhere', async () => {
    const { license, activate, validate, detail } = leased({ lease_seconds: null });
    const key = await license();
    expect((await activate({ license_key: key, identifier: 'a.example' })).lease_expires_at).toBe(
      null,
    );
    expect(
      (await validate({ license_key: key, identifier: 'a.example' })).lease_expires_at,
    ).toBeNull();
    expect((await detail(key)).activations[0]?.lease_expires_at).toBeNull();
  });

  test("a plan change carries the new plan's lease: to a plan without one, existing leases are cleared", async () => {
    const { license, activate, handlers, plan, detail, at, validate } = leased();
    const key = await license(3);
    await activate({ license_key: key, identifier: 'a.example' });
    const unleased = await plan({ lease_seconds: null, activation_limit: 3 });
    await handlers['license.changePlan'](
      { license_key: key, plan_id: unleased.id, when: 'now', confirm: false },
      waiting,
    );
    const shown = await detail(key);
    expect(shown.lease_seconds).toBeNull();
    expect(shown.activations[0]?.lease_expires_at).toBeNull();
    at(NOW.getTime() + 10 * HOUR);
    expect(
      (await validate({ license_key: key, identifier: 'a.example' })).identifier_activated,
    ).toBe(true);
  });
});

describe('exempt identifiers: staging and local sites take no slot', () => {
  const exemptLicense = async (s: ReturnType<typeof service>, exempt_limit = 2) =>
    s.license({
      activation_limit: 1,
      exempt_identifiers: ['*.test', 'staging.*', 'localhost'],
      exempt_limit,
    });

  test('an identifier matching a pattern is activated exempt: activations_used stays, exempt_used counts it', async () => {
    const s = service();
    const key = await exemptLicense(s);
    await s.activate({ license_key: key, identifier: 'shop.example' });
    // The one slot is taken; an exempt identifier still activates.
    const staging = await s.activate({
      license_key: key,
      identifier: 'https://staging.shop.example/wp',
    });
    expect(staging).toMatchObject({ identifier: 'staging.shop.example', activations_used: 1 });
    const shown = await s.detail(key);
    expect(shown).toMatchObject({ activations_used: 1, exempt_used: 1, exempt_limit: 2 });
    expect(shown.activations.map((a) => [a.identifier, a.exempt])).toEqual([
      ['shop.example', false],
      ['staging.shop.example', true],
    ]);
    // A non-exempt one is refused as the limit says.
    await expect(s.activate({ license_key: key, identifier: 'other.example' })).rejects.toEqual(
      refusedWith('ACTIVATION_LIMIT_REACHED', 403),
    );
  });

  test('exempt_limit exempt activations, and another is refused like a full license and recorded', async () => {
    const s = service();
    const key = await exemptLicense(s, 2);
    await s.activate({ license_key: key, identifier: 'localhost' });
    await s.activate({ license_key: key, identifier: 'shop.test' });
    await expect(s.activate({ license_key: key, identifier: 'dev.test' })).rejects.toMatchObject({
      code: 'ACTIVATION_LIMIT_REACHED',
      message: expect.stringMatching(/exempt activation slots/),
    });
    expect((await s.detail(key)).rejected_attempts).toEqual([
      expect.objectContaining({ identifier: 'dev.test', tries: 1, reason: 'limit_reached' }),
    ]);
    // A regular slot is still free.
    await s.activate({ license_key: key, identifier: 'shop.example' });
  });

  test('validate and deactivate treat an exempt activation like any other; deactivating frees an exempt slot', async () => {
    const s = service();
    const key = await exemptLicense(s, 1);
    await s.activate({ license_key: key, identifier: 'shop.test' });
    expect(await s.validate({ license_key: key, identifier: 'shop.test' })).toMatchObject({
      identifier_activated: true,
      activations_used: 0,
    });
    await s.deactivate({ license_key: key, identifier: 'shop.test' });
    expect((await s.detail(key)).exempt_used).toBe(0);
    await s.activate({ license_key: key, identifier: 'other.test' });
    expect(
      s.events.ofType('activation.deleted').map(({ data }) => [data.identifier, data.source]),
    ).toEqual([['shop.test', 'deactivate']]);
  });

  test('exempt_limit 0 allows no exempt activation', async () => {
    const s = service();
    const key = await exemptLicense(s, 0);
    await expect(s.activate({ license_key: key, identifier: 'shop.test' })).rejects.toEqual(
      refusedWith('ACTIVATION_LIMIT_REACHED', 403),
    );
  });

  test('a plan refuses patterns that match everything, are of no form, or can never match its type', async () => {
    const { handlers } = service();
    const create = (activation_type: 'domain' | 'seat', exempt_identifiers: string[]) =>
      handlers['license.createPlan'](
        { ...PLAN_DEFAULTS, name: 'P', activation_type, activation_limit: 1, exempt_identifiers },
        waiting,
      );
    await expect(create('domain', ['www.shop.example'])).rejects.toEqual(
      refusedWith('INVALID_REQUEST', 400),
    );
    await expect(create('seat', ['*.test'])).rejects.toEqual(refusedWith('INVALID_REQUEST', 400));
    await expect(create('domain', ['*@example.com'])).rejects.toEqual(
      refusedWith('INVALID_REQUEST', 400),
    );
    expect((await create('seat', ['*@example.com'])).exempt_identifiers).toEqual(['*@example.com']);
  });

  test('an admin Add of an exempt identifier is exempt too, and the IP stays empty', async () => {
    const s = service();
    const key = await exemptLicense(s);
    const added = await s.handlers['license.addActivation'](
      { license_key: key, identifier: 'localhost', name: null },
      waiting,
    );
    expect(added.activation).toMatchObject({ identifier: 'localhost', exempt: true, ip: '' });
    expect(added.license.exempt_used).toBe(1);
  });
});

describe('plans: their lease and exemptions, changed by an admin, taken by licenses', () => {
  test('a license takes the settings when issued and on a plan change; an update of the plan does not reach it before', async () => {
    const s = service();
    const first = await s.plan({ lease_seconds: 600, exempt_identifiers: ['*.test'] });
    const key = await s.license({ plan_id: first.id });
    const updated = await s.handlers['license.updatePlan'](
      { id: first.id, lease_seconds: 1200, exempt_limit: 5 },
      waiting,
    );
    expect(updated).toMatchObject({
      lease_seconds: 1200,
      exempt_identifiers: ['*.test'],
      exempt_limit: 5,
    });
    expect(await s.detail(key)).toMatchObject({ lease_seconds: 600, exempt_limit: 3 });
    const later = await s.license({ plan_id: first.id });
    expect(await s.detail(later)).toMatchObject({ lease_seconds: 1200, exempt_limit: 5 });
    await s.handlers['license.changePlan'](
      { license_key: key, plan_id: first.id, when: 'now', confirm: false },
      waiting,
    );
    expect(await s.detail(key)).toMatchObject({ lease_seconds: 1200, exempt_limit: 5 });
  });

  test('an unknown plan is NOT_FOUND; an unmatchable pattern is INVALID_REQUEST and changes nothing', async () => {
    const s = service();
    await expect(
      s.handlers['license.updatePlan']({ id: 99_999, name: 'x' }, waiting),
    ).rejects.toEqual(refusedWith('NOT_FOUND', 404));
    const plan = await s.plan({ activation_type: 'seat' });
    await expect(
      s.handlers['license.updatePlan']({ id: plan.id, exempt_identifiers: ['*.test'] }, waiting),
    ).rejects.toEqual(refusedWith('INVALID_REQUEST', 400));
    expect(
      (await s.handlers['license.getPlan']({ id: plan.id }, waiting)).exempt_identifiers,
    ).toEqual([]);
  });
});

describe('events: every removal of an activation says where it came from', () => {
  test('deactivate, an admin Remove and a lapse', async () => {
    const { license, activate, deactivate, handlers, at, validate, events } = leased();
    const key = await license(3);
    await activate({ license_key: key, identifier: 'a.example' });
    await activate({ license_key: key, identifier: 'b.example' });
    await activate({ license_key: key, identifier: 'c.example' });
    await deactivate({ license_key: key, identifier: 'a.example' });
    await handlers['license.removeActivation'](
      { license_key: key, identifier: 'b.example' },
      waiting,
    );
    at(NOW.getTime() + HOUR);
    await validate({ license_key: key });
    expect(
      events.ofType('activation.deleted').map(({ data }) => [data.identifier, data.source]),
    ).toEqual([
      ['a.example', 'deactivate'],
      ['b.example', 'admin'],
      ['c.example', 'lease'],
    ]);
  });
});
