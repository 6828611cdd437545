import type { CallContext, LicenseStatus } from '../../libs/contracts/index.js';
import { servedTable } from '../../libs/transport/codec.js';
import {
  REJECTED_ATTEMPT_RETENTION_MS,
  expireLicenses,
  pruneRejectedAttempts,
} from '../../services/license/scheduled-tasks.js';
import {
  DAY,
  FUTURE,
  IP,
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
import { duplicatePlanRenames } from '../../services/license/plan-names.js';

/**
 * The license service's handlers on in-memory stores, a fixed clock and a fixed catalog: the
 * rules the integration tests check through HTTP, checked at the handler level.
 */

describe('spec 4.1 activate', () => {
  test('success returns exactly the fields of 4.1 with the normalised identifier', async () => {
    const { license, activate } = service();
    const key = await license({ activation_limit: 3, expires_at: FUTURE });
    expect(
      await activate({
        license_key: key,
        identifier: 'https://www.Example.com:8080/shop',
        product_id: 10,
      }),
    ).toEqual({
      status: 'active',
      license_key: key,
      product: 'Plugin',
      plan: 'Agency',
      activation_type: 'domain',
      activation_limit: 3,
      activations_used: 1,
      expires_at: FUTURE,
      identifier: 'example.com',
      lease_expires_at: null,
    });
  });

  test('the activation records name, IP and time (spec 2.3)', async () => {
    const { license, activate, detail } = service();
    const key = await license();
    await activate({ license_key: key, identifier: 'shop.example', name: 'Shop' });
    expect((await detail(key)).activations).toEqual([
      {
        identifier: 'shop.example',
        name: 'Shop',
        ip: IP,
        activated_at: NOW.toISOString(),
        last_checkout_at: null,
        lease_expires_at: null,
        exempt: false,
      },
    ]);
  });

  describe('errors, checked in order', () => {
    test('1. INVALID_REQUEST (400) for a domain that normalises to nothing, even on a revoked license', async () => {
      const { license, activate, detail } = service();
      const key = await license({ status: 'revoked' });
      await expect(activate({ license_key: key, identifier: 'https://' })).rejects.toEqual(
        refusedWith('INVALID_REQUEST', 400),
      );
      expect((await detail(key)).rejected_attempts).toEqual([]);
    });

    test('2. LICENSE_INVALID (403) for an unknown key', async () => {
      const { activate } = service();
      await expect(activate({ license_key: 'no-such-key', identifier: 'a.com' })).rejects.toEqual(
        refusedWith('LICENSE_INVALID', 403),
      );
    });

    test.each(['suspended', 'revoked', 'cancelled'] as const)(
      '2. LICENSE_INVALID for a %s license, before PRODUCT_MISMATCH; not recorded',
      async (status) => {
        const { license, activate, detail } = service();
        const key = await license({ status });
        await expect(
          activate({ license_key: key, identifier: 'a.com', product_id: 99 }),
        ).rejects.toEqual(refusedWith('LICENSE_INVALID', 403));
        expect((await detail(key)).rejected_attempts).toEqual([]);
      },
    );

    test('2. LICENSE_INVALID for a stored status of expired, before PRODUCT_MISMATCH; recorded (2.5)', async () => {
      const { license, activate, detail } = service();
      const key = await license({ status: 'expired', expires_at: PAST });
      await expect(
        activate({ license_key: key, identifier: 'a.com', product_id: 99 }),
      ).rejects.toEqual(refusedWith('LICENSE_INVALID', 403));
      expect((await detail(key)).rejected_attempts).toEqual([
        {
          identifier: 'a.com',
          name: null,
          reason: 'expired',
          source: 'api',
          tries: 1,
          last_attempt_at: NOW.toISOString(),
        },
      ]);
    });

    test('3. PRODUCT_MISMATCH (403) before LICENSE_EXPIRED; not recorded', async () => {
      const { license, activate, detail } = service();
      const key = await license({ expires_at: PAST });
      await expect(
        activate({ license_key: key, identifier: 'a.com', product_id: 11 }),
      ).rejects.toEqual(refusedWith('PRODUCT_MISMATCH', 403));
      expect((await detail(key)).rejected_attempts).toEqual([]);
    });

    test('4. LICENSE_EXPIRED (403) past expires_at, before ACTIVATION_LIMIT_REACHED; recorded', async () => {
      const { license, activate, handlers, detail } = service();
      const key = await license({ activation_limit: 1, expires_at: FUTURE });
      await activate({ license_key: key, identifier: 'a.com' });
      await handlers['license.updateLicense']({ license_key: key, expires_at: PAST }, waiting);
      await expect(activate({ license_key: key, identifier: 'b.com' })).rejects.toEqual(
        refusedWith('LICENSE_EXPIRED', 403),
      );
      const shown = await detail(key);
      expect(shown.activations_used).toBe(1);
      expect(shown.rejected_attempts).toEqual([
        expect.objectContaining({ identifier: 'b.com', reason: 'expired' }),
      ]);
    });

    test('5. ACTIVATION_LIMIT_REACHED (403) carries activation_limit and activations_used; recorded', async () => {
      const { license, activate, detail } = service();
      const key = await license({ activation_limit: 1 });
      await activate({ license_key: key, identifier: 'a.com' });
      const refused = activate({ license_key: key, identifier: 'b.com' });
      await expect(refused).rejects.toEqual(refusedWith('ACTIVATION_LIMIT_REACHED', 403));
      await expect(refused).rejects.toMatchObject({
        details: { activation_limit: 1, activations_used: 1 },
      });
      expect((await detail(key)).rejected_attempts).toEqual([
        expect.objectContaining({ identifier: 'b.com', tries: 1, reason: 'limit_reached' }),
      ]);
    });
  });

  describe('spec 2.2 bundles', () => {
    test('a bundle key activates for each product of its bundle, and reports the bundle', async () => {
      const { license, activate } = service();
      const key = await license({ product_id: 20 });
      for (const productId of [10, 30, 20]) {
        expect(
          await activate({ license_key: key, identifier: 'shop.example', product_id: productId }),
        ).toMatchObject({ product: 'Bundle', activations_used: 1 });
      }
    });

    test('only one level is resolved: a bundle inside a bundle does not pass its products through', async () => {
      const { license, activate } = service();
      const key = await license({ product_id: 40 });
      await expect(
        activate({ license_key: key, identifier: 'a.com', product_id: 20 }),
      ).resolves.toMatchObject({ product: 'Outer bundle' });
      await expect(
        activate({ license_key: key, identifier: 'a.com', product_id: 10 }),
      ).rejects.toEqual(refusedWith('PRODUCT_MISMATCH', 403));
    });
  });
});

describe('spec 3.2 activation lifecycle', () => {
  test('activation is idempotent: the same normalised identifier uses no further slot, even when full', async () => {
    const { license, activate } = service();
    const key = await license({ activation_limit: 1 });
    const first = await activate({ license_key: key, identifier: 'example.com' });
    const again = await activate({ license_key: key, identifier: 'http://WWW.EXAMPLE.COM/x' });
    expect(again).toEqual(first);
    expect(again.activations_used).toBe(1);
  });

  test('device identifiers match case-insensitively and answer with the stored identifier', async () => {
    const { license, activate } = service();
    const key = await license({ activation_type: 'device' });
    await activate({ license_key: key, identifier: '  MacBook-Pro  ' });
    expect(await activate({ license_key: key, identifier: 'macbook-PRO' })).toMatchObject({
      identifier: 'MacBook-Pro',
      activations_used: 1,
    });
  });

  test('activation limit 0 means unlimited', async () => {
    const { license, activate, detail } = service();
    const key = await license({ activation_limit: 0 });
    for (let i = 0; i < 12; i++) await activate({ license_key: key, identifier: `site${i}.com` });
    expect((await detail(key)).activations_used).toBe(12);
  });

  test('20 simultaneous activations of distinct identifiers on a limit of 3 give exactly 3 successes', async () => {
    const { license, activate, detail } = service();
    const key = await license({ activation_limit: 3 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        activate({ license_key: key, identifier: `site-${i}.example` }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      expect(o.reason).toEqual(refusedWith('ACTIVATION_LIMIT_REACHED', 403));
    }
    const shown = await detail(key);
    expect(shown.activations_used).toBe(3);
    expect(shown.rejected_attempts).toHaveLength(17);
  });
});

describe('spec 4.2 validate', () => {
  describe('rule 1: unknown, inactive or expired keys get an answer with valid false', () => {
    test('an unknown key reports invalid with null and zero fields', async () => {
      const { validate } = service();
      expect(
        await validate({ license_key: 'unknown-key', identifier: 'a.com', product_id: 5 }),
      ).toEqual({
        valid: false,
        status: 'invalid',
        license_key: 'unknown-key',
        product: null,
        plan: null,
        activation_type: null,
        activation_limit: 0,
        activations_used: 0,
        expires_at: null,
        identifier_activated: false,
        lease_expires_at: null,
      });
      expect((await validate({ license_key: 'unknown-key' })).identifier_activated).toBe(false);
    });

    test.each(['suspended', 'revoked', 'cancelled', 'expired'] as const)(
      'a %s license reports its status with valid false',
      async (status) => {
        const { license, validate } = service();
        const key = await license({ status });
        expect(await validate({ license_key: key })).toMatchObject({ valid: false, status });
      },
    );

    test('an active license past its expiry date reports expired before the task runs', async () => {
      const { license, validate } = service();
      const key = await license({ expires_at: PAST });
      expect(await validate({ license_key: key })).toMatchObject({
        valid: false,
        status: 'expired',
        expires_at: PAST,
      });
    });

    test('an active license answers with every field of 4.2', async () => {
      const { license, validate } = service();
      const key = await license({ expires_at: FUTURE });
      expect(await validate({ license_key: key, product_id: 10 })).toEqual({
        valid: true,
        status: 'active',
        license_key: key,
        product: 'Plugin',
        plan: 'Agency',
        activation_type: 'domain',
        activation_limit: 3,
        activations_used: 0,
        expires_at: FUTURE,
        identifier_activated: true,
        lease_expires_at: null,
      });
    });
  });

  test('rule 2: validate never refuses with LICENSE_INVALID or LICENSE_EXPIRED', async () => {
    const { license, validate } = service();
    const revoked = await license({ status: 'revoked', expires_at: PAST });
    for (const key of [revoked, 'nope']) {
      await expect(validate({ license_key: key, identifier: 'a.com' })).resolves.toBeDefined();
    }
  });

  describe('rule 3: side effects', () => {
    test('a check without identifier updates last_check_at, last_check_ip and check_count', async () => {
      const { license, validate, detail } = service();
      const key = await license();
      await validate({ license_key: key });
      await validate({ license_key: key });
      expect(await detail(key)).toMatchObject({
        check_count: 2,
        last_check_ip: IP,
        last_check_at: NOW.toISOString(),
      });
    });

    test('a check with an activated identifier counts', async () => {
      const { license, activate, validate, detail } = service();
      const key = await license();
      await activate({ license_key: key, identifier: 'a.com' });
      const answer = await validate({ license_key: key, identifier: 'https://www.A.com/' });
      expect(answer.identifier_activated).toBe(true);
      expect((await detail(key)).check_count).toBe(1);
    });

    test.each([
      ['not activated', 'not-activated.com'],
      ['sent empty', ''],
    ])('a check with an identifier %s leaves the fields alone', async (_, identifier) => {
      const { license, activate, validate, detail } = service();
      const key = await license();
      await activate({ license_key: key, identifier: 'a.com' });
      expect((await validate({ license_key: key, identifier })).identifier_activated).toBe(false);
      expect(await detail(key)).toMatchObject({
        check_count: 0,
        last_check_at: null,
        last_check_ip: null,
      });
    });

    test('an expired license is still checked', async () => {
      const { license, validate, detail } = service();
      const key = await license({ expires_at: PAST });
      await validate({ license_key: key });
      expect((await detail(key)).check_count).toBe(1);
    });

    test('a validate delivered again (the same call) counts once, and answers as the first time; another call counts again', async () => {
      const { license, activate, validate, detail } = service();
      const key = await license();
      await activate({ license_key: key, identifier: 'a.com' });
      // RabbitMQ hands the request of a replica that died to another: the same call id.
      const call = waitingCall();
      const first = await validate({ license_key: key, identifier: 'a.com' }, call);
      expect(first.identifier_activated).toBe(true);
      expect(await validate({ license_key: key, identifier: 'a.com' }, call)).toEqual(first);
      expect((await detail(key)).check_count).toBe(1);
      await validate({ license_key: key, identifier: 'a.com' }, waitingCall());
      await validate({ license_key: key }, waitingCall());
      expect((await detail(key)).check_count).toBe(3);
    });

    test('a check decided on a fresh read (a bundle key for a product of its bundle) counts once per call too', async () => {
      const { license, validate, detail } = service();
      const key = await license({ product_id: 20 });
      const call = waitingCall();
      await validate({ license_key: key, product_id: 10 }, call);
      await validate({ license_key: key, product_id: 10 }, call);
      expect((await detail(key)).check_count).toBe(1);
      await validate({ license_key: key, product_id: 10 }, waitingCall());
      expect((await detail(key)).check_count).toBe(2);
    });
  });

  describe('rule 4: errors', () => {
    test('PRODUCT_MISMATCH (403) for a key that does not cover product_id, also when suspended; nothing changes', async () => {
      const { license, validate, detail } = service();
      for (const status of ['active', 'suspended'] as const) {
        const key = await license({ status });
        await expect(validate({ license_key: key, product_id: 11 })).rejects.toEqual(
          refusedWith('PRODUCT_MISMATCH', 403),
        );
        expect((await detail(key)).check_count).toBe(0);
      }
    });

    test('rule 3 on a bundle key validated for a product of its bundle: counted with no identifier or an activated one, not with one that is not activated', async () => {
      const { license, activate, validate, detail } = service();
      const key = await license({ product_id: 20 });
      await activate({ license_key: key, identifier: 'shop.example', product_id: 10 });
      await validate({ license_key: key, product_id: 10, identifier: 'elsewhere.example' });
      expect((await detail(key)).check_count).toBe(0);
      await validate({ license_key: key, product_id: 10 });
      await validate({ license_key: key, product_id: 30, identifier: 'shop.example' });
      expect((await detail(key)).check_count).toBe(2);
    });

    test('a bundle key validates for a product of its bundle, one level only', async () => {
      const { license, validate } = service();
      const key = await license({ product_id: 40 });
      expect(await validate({ license_key: key, product_id: 20 })).toMatchObject({ valid: true });
      await expect(validate({ license_key: key, product_id: 10 })).rejects.toEqual(
        refusedWith('PRODUCT_MISMATCH', 403),
      );
    });
  });
});

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
      identifier_activated: false,
    });
  });
});

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
