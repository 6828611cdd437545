import {
  REJECTED_ATTEMPT_RETENTION_MS,
  expireLicenses,
  pruneRejectedAttempts,
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
 * The license service's handlers on in-memory stores, a fixed clock and a fixed catalog: the
 * rules the integration tests check through HTTP, checked at the handler level.
 */

describe('spec 4.3 deactivate (docs/api-decisions.md)', () => {
  test('removes the activation, frees its slot and answers with the license state', async () => {
    const { license, activate, deactivate } = service();
    const key = await license({ activation_limit: 1 });
    await activate({ license_key: key, identifier: 'example.com' });
    expect(
      await deactivate({
        license_key: key,
        identifier: 'https://www.example.com/',
        product_id: 10,
      }),
    ).toEqual({
      status: 'active',
      license_key: key,
      product: 'Plugin',
      plan: 'Agency',
      activation_type: 'domain',
      activation_limit: 1,
      activations_used: 0,
      expires_at: null,
      identifier: 'example.com',
      lease_expires_at: null,
      entitlements: [],
      in_grace: false,
      grace_ends_at: null,
      updates_until: null,
    });
    await expect(activate({ license_key: key, identifier: 'new.com' })).resolves.toBeDefined();
  });

  test('the identifier is matched case-insensitively and answered as stored (device)', async () => {
    const { license, activate, deactivate } = service();
    const key = await license({ activation_type: 'device' });
    await activate({ license_key: key, identifier: 'Laptop-7' });
    expect(await deactivate({ license_key: key, identifier: ' laptop-7 ' })).toMatchObject({
      identifier: 'Laptop-7',
      activations_used: 0,
    });
  });

  test.each([
    ['past its expiry date', { expires_at: PAST }],
    ['suspended', { status: 'suspended' as const }],
    ['revoked', { status: 'revoked' as const }],
  ])('deactivating works on a license that is %s', async (_, changes) => {
    const { license, activate, deactivate, handlers } = service();
    const key = await license({ activation_limit: 1 });
    await activate({ license_key: key, identifier: 'a.com' });
    await handlers['license.updateLicense']({ license_key: key, ...changes }, waiting);
    expect(await deactivate({ license_key: key, identifier: 'a.com' })).toMatchObject({
      activations_used: 0,
    });
  });

  describe('errors, checked in order', () => {
    test('1. INVALID_REQUEST (400) for an identifier that normalises to nothing, before PRODUCT_MISMATCH', async () => {
      const { license, deactivate } = service();
      const key = await license();
      await expect(
        deactivate({ license_key: key, identifier: 'https://', product_id: 11 }),
      ).rejects.toEqual(refusedWith('INVALID_REQUEST', 400));
    });

    test('2. LICENSE_INVALID (403) for an unknown key', async () => {
      const { deactivate } = service();
      await expect(deactivate({ license_key: 'nope', identifier: 'a.com' })).rejects.toEqual(
        refusedWith('LICENSE_INVALID', 403),
      );
    });

    test('3. PRODUCT_MISMATCH (403) before ACTIVATION_NOT_FOUND; nothing is removed', async () => {
      const { license, activate, deactivate, detail } = service();
      const key = await license();
      await activate({ license_key: key, identifier: 'a.com' });
      for (const identifier of ['a.com', 'b.com']) {
        await expect(deactivate({ license_key: key, identifier, product_id: 11 })).rejects.toEqual(
          refusedWith('PRODUCT_MISMATCH', 403),
        );
      }
      expect((await detail(key)).activations_used).toBe(1);
    });

    test('4. ACTIVATION_NOT_FOUND (404) for an identifier that is not activated, and on a second call', async () => {
      const { license, activate, deactivate, detail } = service();
      const key = await license();
      await activate({ license_key: key, identifier: 'a.com' });
      await expect(deactivate({ license_key: key, identifier: 'b.com' })).rejects.toEqual(
        refusedWith('ACTIVATION_NOT_FOUND', 404),
      );
      await deactivate({ license_key: key, identifier: 'a.com' });
      await expect(deactivate({ license_key: key, identifier: 'a.com' })).rejects.toEqual(
        refusedWith('ACTIVATION_NOT_FOUND', 404),
      );
      expect((await detail(key)).activations_used).toBe(0);
    });
  });
});

describe('license files (checkout)', () => {
  const checkout = (
    handlers: ReturnType<typeof service>['handlers'],
    fields: { license_key: string; identifier: string; product_id?: number; ttl_seconds?: number },
    context = waiting,
  ) => handlers['license.checkout']({ product_id: 10, ttl_seconds: 3600, ...fields }, context);

  test('a file holds the license as validate reports it, the identifier as stored and the lease', async () => {
    const { license, activate, validate, handlers } = service();
    const key = await license({ activation_type: 'device', expires_at: FUTURE });
    await activate({ license_key: key, identifier: 'MacBook-Pro' });
    const {
      identifier_activated: _,
      lease_expires_at: _lease,
      entitlements_missing: _missing,
      code: _code,
      ...reported
    } = await validate({ license_key: key });
    expect(await checkout(handlers, { license_key: key, identifier: 'macbook-pro' })).toEqual({
      license: reported,
      identifier: 'MacBook-Pro',
      product_id: 10,
      issued_at: NOW.toISOString(),
      expires_at: new Date(NOW.getTime() + 3600_000).toISOString(),
    });
  });

  test('the checkout is recorded on its activation (last_checkout_at), shown in the details', async () => {
    const { license, activate, detail, handlers } = service();
    const key = await license();
    await activate({ license_key: key, identifier: 'a.example' });
    await activate({ license_key: key, identifier: 'b.example' });
    await checkout(handlers, { license_key: key, identifier: 'https://www.b.example/' });
    expect((await detail(key)).activations.map((a) => [a.identifier, a.last_checkout_at])).toEqual([
      ['a.example', null],
      ['b.example', NOW.toISOString()],
    ]);
  });

  test.each([
    ['an unknown key', { license_key: 'no-such-key' }, 'LICENSE_INVALID', 403],
    ['another product', { product_id: 11 }, 'PRODUCT_MISMATCH', 403],
    ['an identifier not activated', { identifier: 'other.example' }, 'ACTIVATION_NOT_FOUND', 404],
    [
      'an identifier that normalises to nothing',
      { identifier: 'https://' },
      'INVALID_REQUEST',
      400,
    ],
  ])('%s is refused (%s) and nothing is written', async (_what, fields, code, status) => {
    const { stores, license, activate, handlers } = service();
    const key = await license();
    await activate({ license_key: key, identifier: 'a.example' });
    const writes = stores.writes();
    await expect(
      checkout(handlers, { license_key: key, identifier: 'a.example', ...fields }),
    ).rejects.toEqual(refusedWith(code, status));
    expect(stores.writes()).toBe(writes);
  });

  test('a license past its date is LICENSE_EXPIRED and records no rejected attempt', async () => {
    let now = new Date(new Date(PAST).getTime() - DAY);
    const { license, activate, handlers, detail } = service({ clock: () => now });
    const key = await license({ expires_at: PAST });
    await activate({ license_key: key, identifier: 'a.example' });
    now = NOW;
    await expect(checkout(handlers, { license_key: key, identifier: 'a.example' })).rejects.toEqual(
      refusedWith('LICENSE_EXPIRED', 403),
    );
    expect((await detail(key)).rejected_attempts).toEqual([]);
  });

  test('once the caller stopped waiting, the checkout is not recorded', async () => {
    const { stores, license, activate, detail, handlers } = service();
    const key = await license();
    await activate({ license_key: key, identifier: 'a.example' });
    const writes = stores.writes();
    await expect(
      checkout(handlers, { license_key: key, identifier: 'a.example' }, abandoned),
    ).rejects.toEqual(refusedWith('INTERNAL_ERROR', 500));
    expect(stores.writes()).toBe(writes);
    expect((await detail(key)).activations[0]?.last_checkout_at).toBeNull();
  });
});

describe('spec 2.5 rejected activation attempts', () => {
  test('refusals on a full license are one row per identifier, with its tries, the reason and the last name sent', async () => {
    const { license, activate, detail } = service();
    const key = await license({ activation_limit: 1 });
    await activate({ license_key: key, identifier: 'a.example' });
    for (const [identifier, name] of [
      ['b.example', 'Shop'],
      ['https://www.B.example/x', 'Shop, again'],
      ['c.example', undefined],
    ] as const) {
      const named = name === undefined ? {} : { name };
      await expect(activate({ license_key: key, identifier, ...named })).rejects.toEqual(
        refusedWith('ACTIVATION_LIMIT_REACHED', 403),
      );
    }
    const attempt = { reason: 'limit_reached', source: 'api', last_attempt_at: NOW.toISOString() };
    expect((await detail(key)).rejected_attempts).toEqual(
      expect.arrayContaining([
        { identifier: 'b.example', name: 'Shop, again', tries: 2, ...attempt },
        { identifier: 'c.example', name: null, tries: 1, ...attempt },
      ]),
    );
  });

  test('the scheduled task removes rows untouched for 90 days; fresher ones stay', async () => {
    const { stores, events, license, activate, detail } = service();
    const key = await license({ expires_at: PAST });
    await expect(activate({ license_key: key, identifier: 'late.example' })).rejects.toEqual(
      refusedWith('LICENSE_EXPIRED', 403),
    );
    await pruneRejectedAttempts({ stores, events }, new Date(NOW.getTime() + 89 * DAY));
    expect((await detail(key)).rejected_attempts).toHaveLength(1);
    await pruneRejectedAttempts(
      { stores, events },
      new Date(NOW.getTime() + REJECTED_ATTEMPT_RETENTION_MS),
    );
    expect((await detail(key)).rejected_attempts).toEqual([]);
  });

  test('a row is kept until it has been untouched for the full 90 days (spec 8)', async () => {
    const { stores, events, license, activate, detail } = service();
    const key = await license({ expires_at: PAST });
    await expect(activate({ license_key: key, identifier: 'late.example' })).rejects.toEqual(
      refusedWith('LICENSE_EXPIRED', 403),
    );
    expect(
      await pruneRejectedAttempts({ stores, events }, new Date(NOW.getTime() + 90 * DAY - 1)),
    ).toBe(0);
    expect((await detail(key)).rejected_attempts).toHaveLength(1);
    expect(
      await pruneRejectedAttempts({ stores, events }, new Date(NOW.getTime() + 90 * DAY)),
    ).toBe(1);
  });
});

describe('spec 3.1 expiry (scheduled task)', () => {
  test('an active license past its date becomes expired; validate answers the same before and after', async () => {
    const { stores, events, license, validate, activate, detail } = service();
    const key = await license({ expires_at: PAST });
    const later = await license({ expires_at: FUTURE });
    const before = await validate({ license_key: key });
    expect(await expireLicenses({ stores, events }, NOW)).toBe(1);
    expect(await validate({ license_key: key })).toEqual(before);
    // Spec 4.1 order 2: the stored status is no longer active.
    await expect(activate({ license_key: key, identifier: 'a.com' })).rejects.toEqual(
      refusedWith('LICENSE_INVALID', 403),
    );
    expect((await detail(later)).status).toBe('active');
  });
});

describe('spec 4.4 and 4.5: coverage of a key for the update check and downloads', () => {
  test('a bundle key covers its items but sees no plan-specific files of them (4.4 rule 5)', async () => {
    const { license, activate, handlers } = service();
    const key = await license({ product_id: 20 });
    await activate({ license_key: key, identifier: 'a.com', product_id: 20 });
    const coverage = (product_id: number, identifier: string | null) =>
      handlers['license.coverage']({ license_key: key, product_id, identifier }, waiting);
    expect(await coverage(20, null)).toMatchObject({
      found: true,
      covers: true,
      status: 'active',
      plan_id: expect.any(Number),
      identifier_activated: null,
    });
    expect(await coverage(30, 'https://www.A.com/')).toMatchObject({
      covers: true,
      plan_id: null,
      identifier_activated: true,
    });
    expect(await coverage(11, 'b.com')).toMatchObject({
      covers: false,
      plan_id: null,
      identifier_activated: false,
    });
  });

  test('an active license past its expiry date reports expired before the task runs (3.1, 2.6)', async () => {
    const { license, handlers } = service();
    const key = await license({ expires_at: PAST });
    expect(
      await handlers['license.coverage'](
        { license_key: key, product_id: 10, identifier: null },
        waiting,
      ),
    ).toMatchObject({ found: true, covers: true, status: 'expired', expires_at: PAST });
  });

  test('an unknown key is not found', async () => {
    const { handlers } = service();
    expect(
      await handlers['license.coverage'](
        { license_key: 'nope', product_id: 10, identifier: 'a.com' },
        waiting,
      ),
    ).toEqual({
      found: false,
      covers: false,
      status: null,
      plan_id: null,
      expires_at: null,
      auto_renew: false,
      next_payment_at: null,
      in_grace: false,
      grace_ends_at: null,
      updates_until: null,
      identifier_activated: false,
      identifier: null,
      entitlements: [],
    });
  });

  test("the identifier sent comes back normalised for the license's type, for rollouts", async () => {
    const { license, handlers } = service();
    const key = await license({ product_id: 20 });
    const coverage = await handlers['license.coverage'](
      { license_key: key, product_id: 20, identifier: 'https://www.Shop.example/cart' },
      waiting,
    );
    expect(coverage.identifier).toBe('shop.example');
    const none = await handlers['license.coverage'](
      { license_key: key, product_id: 20, identifier: null },
      waiting,
    );
    expect(none.identifier).toBeNull();
  });
});
