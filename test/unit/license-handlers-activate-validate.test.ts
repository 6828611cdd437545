import {
  FUTURE,
  IP,
  NOW,
  PAST,
  refusedWith,
  service,
  waiting,
  waitingCall,
} from '../support/license-handler-harness.js';

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
      entitlements: [],
      in_grace: false,
      grace_ends_at: null,
      updates_until: null,
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
        entitlements: [],
        entitlements_missing: [],
        code: null,
        in_grace: false,
        grace_ends_at: null,
        updates_until: null,
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
        entitlements: [],
        entitlements_missing: [],
        code: null,
        in_grace: false,
        grace_ends_at: null,
        updates_until: null,
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
