import type { DomainEventType } from '../../libs/contracts/index.js';
import { createLogger, keyFingerprint } from '../../libs/logging/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import { publishedEvents } from '../../services/license/events.js';
import { FakeTransport } from '../../bench/support/fake-transport.js';
import { publishedData } from '../support/fake-services.js';
import {
  FUTURE,
  IP,
  NOW,
  PAST,
  abandoned,
  refusedWith,
  service,
  waiting,
} from '../support/license-handler-harness.js';

/**
 * The license service's domain events (libs/contracts/events/domain-events.ts): the handlers and the
 * scheduled tasks on in-memory stores, their events published as in production on a transport
 * that records them. Each is published once the write it reports has succeeded, never for a
 * refused or failed one, and once per change.
 */

const HOUR = 3_600_000;
const LATER = '2028-01-01T00:00:00.000Z';

type Service = ReturnType<typeof service>;

/** The data of every event of `type` published so far, each checked against its schema. */
const published = <T extends DomainEventType>(s: Pick<Service, 'events'>, type: T) =>
  publishedData(s.events.published, type);

/** The types of every event published so far, in order. */
const types = (s: Pick<Service, 'events'>) => s.events.published.map((event) => event.type);

/** A service whose clock `at` moves. */
function moving() {
  let now = NOW.getTime();
  const s = service({ clock: () => new Date(now) });
  return {
    ...s,
    at: (ms: number) => {
      now = ms;
    },
  };
}

describe('license.created: an admin issues a license', () => {
  test("an admin's new license publishes license.created with the license as stored", async () => {
    const s = service();
    const plan = await s.plan({ activation_limit: 4 });
    const key = await s.license({ plan_id: plan.id, expires_at: FUTURE });
    expect(published(s, 'license.created')).toEqual([
      {
        license_key: key,
        product_id: 10,
        plan_id: plan.id,
        status: 'active',
        activation_limit: 4,
        expires_at: FUTURE,
      },
    ]);
    expect(s.events.ofType('license.created')[0]?.timestamp).toBe(NOW.toISOString());
  });

  test('a license refused for a key already taken publishes nothing', async () => {
    const s = service();
    const plan = await s.plan();
    const create = () =>
      s.handlers['license.createLicense'](
        {
          license_key: 'TAKEN-KEY-0001',
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
    await create();
    await expect(create()).rejects.toEqual(refusedWith('ALREADY_EXISTS', 409));
    expect(published(s, 'license.created').map((data) => data.license_key)).toEqual([
      'TAKEN-KEY-0001',
    ]);
  });
});

describe('license.updated: an admin changes status, limit or expiry', () => {
  const update = (
    s: Service,
    license_key: string,
    fields: {
      status?: 'active' | 'suspended';
      activation_limit?: number;
      expires_at?: string | null;
    },
  ) => s.handlers['license.updateLicense']({ license_key, ...fields }, waiting);

  test('an admin change publishes license.updated naming the fields changed and their values before', async () => {
    const s = service();
    const key = await s.license({ activation_limit: 3 });
    await update(s, key, { status: 'suspended', activation_limit: 5, expires_at: FUTURE });
    expect(published(s, 'license.updated')).toEqual([
      expect.objectContaining({
        license_key: key,
        status: 'suspended',
        activation_limit: 5,
        expires_at: FUTURE,
        changed: ['status', 'activation_limit', 'expires_at'],
        previous: { status: 'active', activation_limit: 3, expires_at: null },
      }),
    ]);
  });

  test('only the fields whose value moved are named; one sent with the value it had is not', async () => {
    const s = service();
    const key = await s.license({ activation_limit: 3, expires_at: FUTURE });
    await update(s, key, { status: 'active', activation_limit: 3, expires_at: null });
    expect(published(s, 'license.updated')).toEqual([
      expect.objectContaining({
        expires_at: null,
        changed: ['expires_at'],
        previous: { expires_at: FUTURE },
      }),
    ]);
  });

  test('an admin change of nothing publishes no license.updated', async () => {
    const s = service();
    const key = await s.license({ activation_limit: 3 });
    await update(s, key, { activation_limit: 4 });
    await update(s, key, { status: 'active', activation_limit: 4 });
    await update(s, key, {});
    expect(published(s, 'license.updated').map((data) => data.changed)).toEqual([
      ['activation_limit'],
    ]);
  });

  test('a refused admin change publishes no license.updated', async () => {
    const s = service();
    const key = await s.license({ activation_limit: 3 });
    await s.activate({ license_key: key, identifier: 'a.example' });
    await s.activate({ license_key: key, identifier: 'b.example' });
    await expect(update(s, key, { activation_limit: 1 })).rejects.toEqual(
      refusedWith('ACTIVATION_LIMIT_TOO_LOW', 409),
    );
    await update(s, key, { activation_limit: 2 });
    expect(published(s, 'license.updated').map((data) => data.previous)).toEqual([
      { activation_limit: 3 },
    ]);
  });

  test('an expiry extended by days (a bulk change) publishes license.updated with the expiry before', async () => {
    const s = service();
    const key = await s.license({ expires_at: FUTURE });
    await s.handlers['license.updateLicense']({ license_key: key, extend_expiry_days: 2 }, waiting);
    expect(published(s, 'license.updated')).toEqual([
      expect.objectContaining({
        expires_at: new Date(Date.parse(FUTURE) + 48 * HOUR).toISOString(),
        changed: ['expires_at'],
        previous: { expires_at: FUTURE },
      }),
    ]);
  });

  test('a change of the customer or the metadata alone publishes nothing: events never carry the owner', async () => {
    const s = service();
    const key = await s.license();
    await s.handlers['license.updateLicense'](
      {
        license_key: key,
        customer: { email: 'jane@example.com', name: null },
        metadata: { a: 'b' },
      },
      waiting,
    );
    expect(types(s)).toEqual(['license.created']);
    expect(JSON.stringify(s.events.published)).not.toContain('jane@example.com');
  });
});

describe('license.expired: the expiry task (spec 3.1)', () => {
  test('the expiry task publishes license.expired for each license it expires', async () => {
    const s = service();
    const due = [await s.license({ expires_at: PAST }), await s.license({ expires_at: PAST })];
    await s.license({ expires_at: FUTURE });
    await s.license({ status: 'suspended', expires_at: PAST });
    const run = () => s.handlers['license.runTask']({ name: 'license-expiry' }, waiting);
    expect((await run()).affected).toBe(2);
    const expired = published(s, 'license.expired');
    expect(expired.map((data) => data.license_key).sort()).toEqual([...due].sort());
    expect(expired.map((data) => [data.status, data.expires_at])).toEqual([
      ['expired', PAST],
      ['expired', PAST],
    ]);
    // A second run finds nothing left to expire.
    expect((await run()).affected).toBe(0);
    expect(published(s, 'license.expired')).toHaveLength(2);
  });
});

describe('license.renewed and license.plan_changed: renewals and plan changes (spec 3.3)', () => {
  async function withPlans(options: { expires_at?: string | null; status?: 'revoked' } = {}) {
    const s = service();
    const solo = await s.plan({ name: 'Solo', activation_type: 'domain', activation_limit: 3 });
    const team = await s.plan({ name: 'Team', activation_type: 'seat', activation_limit: 10 });
    const key = await s.license({ ...options, plan_id: solo.id });
    const changePlan = (plan_id: number, when: 'now' | 'renewal') =>
      s.handlers['license.changePlan']({ license_key: key, plan_id, when, confirm: true }, waiting);
    const renew = (source: 'checkout' | 'gateway', expires_at = LATER) =>
      s.handlers['license.renewLicense']({ license_key: key, expires_at, source }, waiting);
    return { ...s, solo, team, key, changePlan, renew };
  }

  test('a renewal that moves the expiry publishes license.renewed with the expiry before', async () => {
    const s = await withPlans({ expires_at: PAST });
    await s.renew('gateway');
    expect(published(s, 'license.renewed')).toEqual([
      {
        license_key: s.key,
        product_id: 10,
        plan_id: s.solo.id,
        status: 'active',
        activation_limit: 3,
        expires_at: LATER,
        previous_expires_at: PAST,
      },
    ]);
    expect(published(s, 'license.plan_changed')).toEqual([]);
  });

  test('a renewal to the expiry the license already has publishes no license.renewed', async () => {
    const s = await withPlans({ expires_at: PAST });
    await s.renew('gateway');
    await s.renew('gateway');
    expect(published(s, 'license.renewed').map((data) => data.previous_expires_at)).toEqual([PAST]);
  });

  test('a refused renewal publishes nothing', async () => {
    const s = await withPlans({ expires_at: PAST });
    const revoked = await s.license({ status: 'revoked', plan_id: s.solo.id });
    await expect(
      s.handlers['license.renewLicense'](
        { license_key: revoked, expires_at: LATER, source: 'checkout' },
        waiting,
      ),
    ).rejects.toEqual(refusedWith('LICENSE_INVALID', 403));
    await s.renew('gateway');
    expect(published(s, 'license.renewed').map((data) => data.license_key)).toEqual([s.key]);
  });

  test('a plan change applied now publishes license.plan_changed with the plan before', async () => {
    const s = await withPlans();
    await s.changePlan(s.team.id, 'now');
    expect(published(s, 'license.plan_changed')).toEqual([
      {
        license_key: s.key,
        product_id: 10,
        plan_id: s.team.id,
        status: 'active',
        activation_limit: 10,
        expires_at: null,
        previous_plan_id: s.solo.id,
      },
    ]);
  });

  test('a plan change to the plan the license is on publishes no license.plan_changed', async () => {
    const s = await withPlans();
    await s.changePlan(s.solo.id, 'now');
    await s.changePlan(s.team.id, 'now');
    await s.changePlan(s.team.id, 'now');
    expect(published(s, 'license.plan_changed').map((data) => data.previous_plan_id)).toEqual([
      s.solo.id,
    ]);
  });

  test('a plan change stored for the renewal publishes license.plan_changed only when the checkout renewal applies it', async () => {
    const s = await withPlans({ expires_at: PAST });
    await s.changePlan(s.team.id, 'renewal');
    expect(types(s)).toEqual(['license.created']);
    // A gateway renewal leaves the plan and its pending change (spec 3.3).
    await s.renew('gateway', FUTURE);
    expect(published(s, 'license.plan_changed')).toEqual([]);
    await s.renew('checkout', LATER);
    expect(published(s, 'license.plan_changed')).toEqual([
      expect.objectContaining({
        plan_id: s.team.id,
        activation_limit: 10,
        expires_at: LATER,
        previous_plan_id: s.solo.id,
      }),
    ]);
    expect(published(s, 'license.renewed').map((data) => data.previous_expires_at)).toEqual([
      PAST,
      FUTURE,
    ]);
  });

  test('a renewal decided again after a conflicting write publishes each event once', async () => {
    const s = await withPlans({ expires_at: PAST });
    const write = s.stores.licenses.renew.bind(s.stores.licenses);
    let rounds = 0;
    s.stores.licenses.renew = async (renewal) => {
      // An admin schedules a plan change while the first renewal is on its way.
      if (rounds++ === 0) {
        await s.stores.licenses.schedulePlanChange({
          licenseKey: s.key,
          planId: s.team.id,
          now: NOW,
        });
      }
      return write(renewal);
    };
    await s.renew('checkout');
    expect(rounds).toBe(2);
    expect(types(s)).toEqual(['license.created', 'license.renewed', 'license.plan_changed']);
    expect(published(s, 'license.plan_changed')[0]?.previous_plan_id).toBe(s.solo.id);
  });
});

describe('activation.created: a new activation (spec 3.2)', () => {
  test("a client's activate of a new identifier publishes activation.created with source api", async () => {
    const s = service();
    const key = await s.license();
    await s.activate({ license_key: key, identifier: 'https://WWW.Shop.Example/', name: 'Shop' });
    expect(published(s, 'activation.created')).toEqual([
      {
        license_key: key,
        product_id: 10,
        identifier: 'shop.example',
        name: 'Shop',
        ip: IP,
        exempt: false,
        source: 'api',
      },
    ]);
    expect(s.events.ofType('activation.created')[0]?.timestamp).toBe(NOW.toISOString());
  });

  test('re-activating an identifier publishes nothing', async () => {
    const s = service();
    const key = await s.license({ lease_seconds: 3600 });
    await s.activate({ license_key: key, identifier: 'shop.example' });
    // Idempotent (spec 3.2), its lease renewed: no new activation.
    await s.activate({ license_key: key, identifier: 'SHOP.example' });
    expect(types(s)).toEqual(['license.created', 'activation.created']);
  });

  test("an admin's Add publishes activation.created with source admin and no IP", async () => {
    const s = service();
    const key = await s.license();
    await s.handlers['license.addActivation'](
      { license_key: key, identifier: 'Shop.Example', name: 'Added' },
      waiting,
    );
    expect(published(s, 'activation.created')).toEqual([
      {
        license_key: key,
        product_id: 10,
        identifier: 'shop.example',
        name: 'Added',
        ip: '',
        exempt: false,
        source: 'admin',
      },
    ]);
  });

  test('an exempt identifier publishes activation.created marked exempt', async () => {
    const s = service();
    const key = await s.license({ exempt_identifiers: ['*.test'] });
    await s.activate({ license_key: key, identifier: 'shop.test' });
    expect(published(s, 'activation.created').map((data) => data.exempt)).toEqual([true]);
  });

  test('concurrent activates of one identifier publish activation.created once', async () => {
    const s = service();
    const key = await s.license({ activation_limit: 5 });
    // The claims race: the one that loses decides again and finds the identifier active.
    await Promise.all(
      Array.from({ length: 4 }, () => s.activate({ license_key: key, identifier: 'shop.example' })),
    );
    expect(published(s, 'activation.created').map((data) => data.identifier)).toEqual([
      'shop.example',
    ]);
  });

  test('an activate whose caller stopped waiting publishes nothing', async () => {
    const s = service();
    const key = await s.license();
    await expect(
      s.activate({ license_key: key, identifier: 'late.example' }, abandoned),
    ).rejects.toEqual(refusedWith('INTERNAL_ERROR', 500));
    await s.activate({ license_key: key, identifier: 'shop.example' });
    expect(published(s, 'activation.created').map((data) => data.identifier)).toEqual([
      'shop.example',
    ]);
  });
});

describe('activation.deleted: an activation removed, and why', () => {
  test("a client's deactivate publishes activation.deleted with source deactivate, for the activation removed", async () => {
    const s = service();
    const key = await s.license();
    await s.activate({ license_key: key, identifier: 'shop.example', name: 'Shop' });
    await s.deactivate({ license_key: key, identifier: 'SHOP.EXAMPLE' });
    expect(published(s, 'activation.deleted')).toEqual([
      {
        license_key: key,
        product_id: 10,
        identifier: 'shop.example',
        name: 'Shop',
        ip: IP,
        exempt: false,
        source: 'deactivate',
      },
    ]);
  });

  test("an admin's Remove publishes activation.deleted with source admin", async () => {
    const s = service();
    const key = await s.license({ exempt_identifiers: ['*.test'] });
    await s.activate({ license_key: key, identifier: 'shop.test' });
    await s.handlers['license.removeActivation'](
      { license_key: key, identifier: 'shop.test' },
      waiting,
    );
    expect(published(s, 'activation.deleted')).toEqual([
      expect.objectContaining({ identifier: 'shop.test', exempt: true, ip: IP, source: 'admin' }),
    ]);
  });

  test('a lapsed lease publishes activation.deleted with source lease, from a call and from the task', async () => {
    const s = moving();
    const key = await s.license({ lease_seconds: 3600, activation_limit: 3 });
    await s.activate({ license_key: key, identifier: 'a.example', name: 'A' });
    await s.activate({ license_key: key, identifier: 'b.example' });
    s.at(NOW.getTime() + HOUR);
    // Validate removes the lapsed activations of its license first.
    await s.validate({ license_key: key });
    expect(published(s, 'activation.deleted')).toEqual([
      expect.objectContaining({ identifier: 'a.example', name: 'A', ip: IP, source: 'lease' }),
      expect.objectContaining({ identifier: 'b.example', name: null, source: 'lease' }),
    ]);
    await s.activate({ license_key: key, identifier: 'c.example' });
    s.at(NOW.getTime() + 3 * HOUR);
    await s.handlers['license.runTask']({ name: 'activation-lease-release' }, waiting);
    expect(
      published(s, 'activation.deleted').map((data) => [data.identifier, data.source]),
    ).toEqual([
      ['a.example', 'lease'],
      ['b.example', 'lease'],
      ['c.example', 'lease'],
    ]);
  });

  test('a refused deactivate publishes nothing', async () => {
    const s = service();
    const key = await s.license();
    await s.activate({ license_key: key, identifier: 'shop.example' });
    await expect(s.deactivate({ license_key: key, identifier: 'other.example' })).rejects.toEqual(
      refusedWith('ACTIVATION_NOT_FOUND', 404),
    );
    await s.deactivate({ license_key: key, identifier: 'shop.example' });
    await expect(s.deactivate({ license_key: key, identifier: 'shop.example' })).rejects.toEqual(
      refusedWith('ACTIVATION_NOT_FOUND', 404),
    );
    expect(published(s, 'activation.deleted').map((data) => data.identifier)).toEqual([
      'shop.example',
    ]);
  });
});

describe('activation.rejected: the refusals recorded as rejected attempts (spec 2.5)', () => {
  test('activate on a full license publishes activation.rejected with the reason ACTIVATION_LIMIT_REACHED', async () => {
    const s = service();
    const key = await s.license({ activation_limit: 1 });
    await s.activate({ license_key: key, identifier: 'one.example' });
    await expect(s.activate({ license_key: key, identifier: 'Two.Example' })).rejects.toEqual(
      refusedWith('ACTIVATION_LIMIT_REACHED', 403),
    );
    expect(published(s, 'activation.rejected')).toEqual([
      {
        license_key: key,
        product_id: 10,
        identifier: 'two.example',
        ip: IP,
        reason: 'ACTIVATION_LIMIT_REACHED',
      },
    ]);
  });

  test('activate on an expired license publishes activation.rejected with the reason LICENSE_EXPIRED', async () => {
    const s = service();
    const key = await s.license({ expires_at: PAST });
    await expect(s.activate({ license_key: key, identifier: 'shop.example' })).rejects.toEqual(
      refusedWith('LICENSE_EXPIRED', 403),
    );
    expect(published(s, 'activation.rejected')).toEqual([
      expect.objectContaining({
        license_key: key,
        identifier: 'shop.example',
        reason: 'LICENSE_EXPIRED',
      }),
    ]);
    expect((await s.detail(key)).rejected_attempts).toHaveLength(1);
  });

  test("refusals not recorded as rejected attempts publish nothing; an admin's refused Add is recorded but is no event", async () => {
    const s = service();
    const key = await s.license({ activation_limit: 1 });
    await s.activate({ license_key: key, identifier: 'one.example' });
    await expect(
      s.activate({ license_key: key, identifier: 'two.example', product_id: 11 }),
    ).rejects.toEqual(refusedWith('PRODUCT_MISMATCH', 403));
    await expect(
      s.handlers['license.addActivation'](
        { license_key: key, identifier: 'two.example', name: null },
        waiting,
      ),
    ).rejects.toEqual(refusedWith('ACTIVATION_LIMIT_REACHED', 403));
    await expect(s.activate({ license_key: key, identifier: 'three.example' })).rejects.toEqual(
      refusedWith('ACTIVATION_LIMIT_REACHED', 403),
    );
    expect(published(s, 'activation.rejected').map((data) => data.identifier)).toEqual([
      'three.example',
    ]);
    expect((await s.detail(key)).rejected_attempts).toHaveLength(2);
  });
});

describe('the log: one line per event, as before events were published', () => {
  test('each event published is one log line named as the event, with the key as its fingerprint and without the client address', async () => {
    const lines: string[] = [];
    const logger = createLogger('test', {
      level: 'info',
      format: 'json',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const transport = new FakeTransport(() => NOW);
    const events = publishedEvents(domainEventPublisher(transport, logger), logger);
    const s = service();
    const key = await s.license();
    await s.activate({ license_key: key, identifier: 'shop.example', name: 'Shop' });
    const [license, activation] = await Promise.all([
      s.stores.licenses.findByKey(key),
      s.stores.licenseReads
        .listActivations({ licenseKey: key, identifierKeys: null, page: 1, perPage: 1 })
        .then((page) => page.activations[0]),
    ]);
    events.activationDeleted({
      license: license!,
      activation: activation!,
      source: 'admin',
      at: NOW,
    });
    const [event] = transport.domainEvents;
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        msg: 'activation deleted',
        event: 'activation.deleted',
        event_id: event?.id,
        license_key: keyFingerprint(key),
        identifier: 'shop.example',
        source: 'admin',
        at: NOW.toISOString(),
      }),
    ]);
    expect(JSON.parse(lines[0]!)).not.toHaveProperty('ip');
    expect(JSON.parse(lines[0]!)).not.toHaveProperty('name');
  });
});

describe('license.created: a store sale makes its license once (docs/stores.md)', () => {
  test("a sale's license publishes license.created once, however often the sale asks for it", async () => {
    const s = service();
    const plan = await s.plan();
    const sale = {
      product_id: 10,
      plan_id: plan.id,
      expires_at: FUTURE,
      auto_renew: true,
      next_payment_at: FUTURE,
      customer: null,
      metadata: {},
      store: {
        connection_id: 1,
        order_id: null,
        subscription_id: 'sub_1',
        customer_id: null,
      },
    };
    const answers = await Promise.all(
      [1, 2, 3].map(() => s.handlers['license.createStoreLicense'](sale, waiting)),
    );
    expect(answers.map((answer) => answer.created).sort()).toEqual([false, false, true]);
    expect(published(s, 'license.created')).toEqual([
      {
        license_key: answers[0]!.license.license_key,
        product_id: 10,
        plan_id: plan.id,
        status: 'active',
        activation_limit: plan.activation_limit,
        expires_at: FUTURE,
      },
    ]);
  });
});
