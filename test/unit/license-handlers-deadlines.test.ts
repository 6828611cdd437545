import type { CallContext } from '../../libs/contracts/index.js';
import { servedTable } from '../../libs/transport/codec.js';
import {
  NOW,
  PAST,
  PLAN_DEFAULTS,
  abandoned,
  refusedWith,
  service,
  waiting,
  waitingCall,
} from '../support/license-handler-harness.js';
import { fixedClock } from '../support/fake-services.js';

/**
 * The license service's handlers on in-memory stores, a fixed clock and a fixed catalog: the
 * rules the integration tests check through HTTP, checked at the handler level.
 */

describe('RPC deadlines: once the caller stopped waiting, nothing is written', () => {
  const internal = refusedWith('INTERNAL_ERROR', 500);

  test('activate, deactivate, validate and refused activations write nothing', async () => {
    const { stores, license, activate, validate, deactivate, detail } = service();
    const open = await license({ activation_limit: 1 });
    await activate({ license_key: open, identifier: 'kept.example' });
    const expired = await license({ expires_at: PAST });
    const before = { open: await detail(open), expired: await detail(expired) };
    const writes = stores.writes();

    await expect(
      activate({ license_key: open, identifier: 'kept.example' }, abandoned),
    ).resolves.toMatchObject({ activations_used: 1 }); // already active: nothing to write
    await expect(
      activate({ license_key: open, identifier: 'late.example' }, abandoned),
    ).rejects.toEqual(internal); // a full license: the rejected attempt is not recorded
    await expect(
      activate({ license_key: expired, identifier: 'late.example' }, abandoned),
    ).rejects.toEqual(internal);
    await expect(
      deactivate({ license_key: open, identifier: 'kept.example' }, abandoned),
    ).rejects.toEqual(internal);
    await expect(validate({ license_key: open }, abandoned)).rejects.toEqual(internal);

    expect(stores.writes()).toBe(writes);
    expect({ open: await detail(open), expired: await detail(expired) }).toEqual(before);
  });

  test('a validate whose deadline passes while its count waits for the database counts nothing', async () => {
    const { stores, license, validate, detail } = service();
    const key = await license({ product_id: 20 });
    const writes = stores.writes();
    // In time when the handler checked; past when the count reaches the database.
    const late = () => ({ ...waitingCall(), deadline: Date.now() - 1 });
    await expect(validate({ license_key: key }, late())).rejects.toEqual(internal);
    // Decided on a fresh read first (a product of the bundle), then counted.
    await expect(validate({ license_key: key, product_id: 10 }, late())).rejects.toEqual(internal);
    expect(stores.writes()).toBe(writes);
    expect((await detail(key)).check_count).toBe(0);
  });

  test('a validate whose count answers after the deadline renews no lease', async () => {
    const clock = fixedClock(NOW.toISOString());
    const { license, activate, validate, detail } = service({ clock });
    const key = await license({ lease_seconds: 3600 });
    await activate({ license_key: key, identifier: 'a.com' });
    clock.advance(30 * 60_000);
    const before = await detail(key);
    // The count is sent in time; by its answer, the caller has stopped waiting.
    let writesChecked = 0;
    const stalled: CallContext = {
      ...waitingCall(),
      get passed() {
        return writesChecked > 0;
      },
      beforeWrite() {
        if (writesChecked++ > 0) abandoned.beforeWrite();
      },
    };
    await expect(validate({ license_key: key, identifier: 'a.com' }, stalled)).rejects.toEqual(
      internal,
    );
    const after = await detail(key);
    expect(after.check_count).toBe(before.check_count + 1);
    expect(after.activations).toEqual(before.activations);
  });

  test('a new activation is not stored', async () => {
    const { stores, license, activate, detail } = service();
    const key = await license();
    const writes = stores.writes();
    await expect(
      activate({ license_key: key, identifier: 'late.example' }, abandoned),
    ).rejects.toEqual(internal);
    expect(stores.writes()).toBe(writes);
    expect((await detail(key)).activations).toEqual([]);
  });

  test('admin writes are not stored', async () => {
    const { stores, license, activate, handlers, detail } = service();
    const key = await license();
    await activate({ license_key: key, identifier: 'kept.example' });
    const before = await detail(key);
    const plansBefore = await handlers['license.listPlans']({}, waiting);
    const writes = stores.writes();

    const attempts = [
      handlers['license.createPlan'](
        { name: 'Late', activation_type: 'seat', activation_limit: 1, ...PLAN_DEFAULTS },
        abandoned,
      ),
      handlers['license.createPlan'](
        { id: 9000, name: 'Late', activation_type: 'seat', activation_limit: 1, ...PLAN_DEFAULTS },
        abandoned,
      ),
      handlers['license.createLicense'](
        {
          license_key: 'late-key',
          product_id: 10,
          plan_id: before.plan_id,
          status: 'active',
          expires_at: null,
          auto_renew: false,
          next_payment_at: null,
          customer: null,
          metadata: {},
        },
        abandoned,
      ),
      handlers['license.updateLicense']({ license_key: key, status: 'revoked' }, abandoned),
      handlers['license.addActivation'](
        { license_key: key, identifier: 'late.example', name: null },
        abandoned,
      ),
      handlers['license.removeActivation'](
        { license_key: key, identifier: 'kept.example' },
        abandoned,
      ),
    ];
    for (const attempt of attempts) await expect(attempt).rejects.toEqual(internal);

    expect(stores.writes()).toBe(writes);
    expect(await detail(key)).toEqual(before);
    expect(await handlers['license.listPlans']({}, waiting)).toEqual(plansBefore);
    await expect(
      handlers['license.getLicense']({ license_key: 'late-key' }, waiting),
    ).rejects.toEqual(refusedWith('NOT_FOUND', 404));
  });

  test('reads answer whatever the deadline', async () => {
    const { license, handlers, validate } = service();
    const key = await license();
    await expect(
      handlers['license.getLicense']({ license_key: key }, abandoned),
    ).resolves.toBeDefined();
    await expect(validate({ license_key: 'unknown-key' }, abandoned)).resolves.toMatchObject({
      status: 'invalid',
    });
    await expect(
      validate({ license_key: key, identifier: 'b.com' }, abandoned),
    ).resolves.toMatchObject({ identifier_activated: false });
  });
});

test('health reports the uptime on the service clock', async () => {
  const { handlers } = service();
  // The transport answers the health method of the service it serves, from when it began to.
  let now = NOW.getTime() - 90_000;
  const served = servedTable('license', handlers, () => now);
  now = NOW.getTime();
  expect(await served['license.health']!({}, waiting)).toEqual({
    service: 'license',
    status: 'ok',
    uptime_seconds: 90,
  });
});
