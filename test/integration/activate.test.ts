import { bootSystem, type TestSystem } from '../support/system.js';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const PAST = '2020-01-01T00:00:00.000Z';
const FUTURE = '2099-01-01T00:00:00.000Z';

const detail = (key: string) => system.transport.call('license.getLicense', { license_key: key });

describe('spec 4.1 POST /licenses/activate', () => {
  test('success returns exactly the fields of 4.1 with the normalised identifier', async () => {
    const { key, product, plan } = await system.license({ activation_limit: 3 });
    const res = await system.post('activate', {
      license_key: key,
      identifier: 'https://www.Example.com:8080/shop',
      product_id: product.id,
      name: 'Main shop',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      data: {
        status: 'active',
        license_key: key,
        product: product.title,
        plan: plan.name,
        activation_type: 'domain',
        activation_limit: 3,
        activations_used: 1,
        expires_at: null,
        identifier: 'example.com',
        lease_expires_at: null,
        entitlements: [],
        in_grace: false,
        grace_ends_at: null,
        updates_until: null,
      },
    });
  });

  test('expires_at is an ISO 8601 UTC timestamp when the license expires', async () => {
    const { key } = await system.license({ expires_at: FUTURE });
    const res = await system.post('activate', { license_key: key, identifier: 'a.com' });
    expect(res.body.data.expires_at).toBe(FUTURE);
  });

  test('dlid is accepted in place of license_key', async () => {
    const { key } = await system.license();
    const res = await system.post('activate', { dlid: key, identifier: 'dlid.example' });
    expect(res.status).toBe(200);
    expect(res.body.data.license_key).toBe(key);
  });

  test('the activation records name, IP and time (spec 2.3)', async () => {
    const { key } = await system.license();
    await system.post('activate', { license_key: key, identifier: 'shop.example', name: 'Shop' });
    const [activation] = (await detail(key)).activations;
    expect(activation).toMatchObject({ identifier: 'shop.example', name: 'Shop', ip: '127.0.0.1' });
    expect(Date.parse(activation!.activated_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  describe('errors, checked in order', () => {
    test('1. INVALID_REQUEST (400) for a missing license_key or identifier', async () => {
      const { key } = await system.license();
      for (const fields of [{ identifier: 'a.com' }, { license_key: key }, {}]) {
        const res = await system.post('activate', fields);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('INVALID_REQUEST');
        expect(typeof res.body.error.message).toBe('string');
      }
      expect((await detail(key)).activations_used).toBe(0);
    });

    test('1. INVALID_REQUEST for an identifier, name or key over 255 characters', async () => {
      const { key } = await system.license({ activation_type: 'device' });
      const long = 'x'.repeat(256);
      for (const fields of [
        { license_key: key, identifier: long },
        { license_key: key, identifier: 'pc', name: long },
        { license_key: long, identifier: 'pc' },
      ]) {
        const res = await system.post('activate', fields);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('INVALID_REQUEST');
      }
      const ok = await system.post('activate', { license_key: key, identifier: 'x'.repeat(255) });
      expect(ok.status).toBe(200);
    });

    test('1. INVALID_REQUEST for a domain that normalises to nothing, even on a revoked license', async () => {
      const { key } = await system.license({ status: 'revoked' });
      const res = await system.post('activate', { license_key: key, identifier: 'https://' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    });

    test('2. LICENSE_INVALID (403) for an unknown key', async () => {
      const res = await system.post('activate', {
        license_key: 'no-such-key',
        identifier: 'a.com',
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('LICENSE_INVALID');
    });

    test.each(['suspended', 'revoked', 'cancelled'] as const)(
      '2. LICENSE_INVALID for a %s license, before PRODUCT_MISMATCH; not recorded',
      async (status) => {
        const { key } = await system.license({ status });
        const res = await system.post('activate', {
          license_key: key,
          identifier: 'a.com',
          product_id: 999999,
        });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('LICENSE_INVALID');
        expect((await detail(key)).rejected_attempts).toEqual([]);
      },
    );

    test('3. PRODUCT_MISMATCH (403) when the key does not cover product_id, before LICENSE_EXPIRED', async () => {
      const { key } = await system.license({ expires_at: PAST });
      const res = await system.post('activate', {
        license_key: key,
        identifier: 'a.com',
        product_id: 999999,
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('PRODUCT_MISMATCH');
      expect((await detail(key)).rejected_attempts).toEqual([]);
    });

    test('4. LICENSE_EXPIRED (403) past expires_at', async () => {
      const { key } = await system.license({ expires_at: PAST, activation_limit: 0 });
      const res = await system.post('activate', { license_key: key, identifier: 'a.com' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('LICENSE_EXPIRED');
      expect((await detail(key)).activations_used).toBe(0);
    });

    test('4. LICENSE_EXPIRED comes before ACTIVATION_LIMIT_REACHED on a full license', async () => {
      const { key } = await system.license({ activation_limit: 1, expires_at: FUTURE });
      await system.post('activate', { license_key: key, identifier: 'a.com' });
      await system.transport.call('license.updateLicense', { license_key: key, expires_at: PAST });
      const res = await system.post('activate', { license_key: key, identifier: 'b.com' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('LICENSE_EXPIRED');
    });

    test('2. LICENSE_INVALID for a license whose stored status is expired (not active)', async () => {
      const { key } = await system.license({ status: 'expired', expires_at: PAST });
      const res = await system.post('activate', {
        license_key: key,
        identifier: 'a.com',
        product_id: 999999,
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('LICENSE_INVALID');
      // Spec 2.5: the license has expired, so the refusal is a rejected attempt.
      expect((await detail(key)).rejected_attempts).toEqual([
        expect.objectContaining({ identifier: 'a.com', tries: 1 }),
      ]);
    });

    test('5. ACTIVATION_LIMIT_REACHED (403) carries integer activation_limit and activations_used', async () => {
      const { key } = await system.license({ activation_limit: 1 });
      expect(
        (await system.post('activate', { license_key: key, identifier: 'a.com' })).status,
      ).toBe(200);
      const res = await system.post('activate', { license_key: key, identifier: 'b.com' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: {
          code: 'ACTIVATION_LIMIT_REACHED',
          message: expect.any(String),
          activation_limit: 1,
          activations_used: 1,
        },
      });
    });
  });
});

describe('spec 3.2 activation lifecycle', () => {
  test('activation is idempotent: the same normalised identifier uses no further slot', async () => {
    const { key } = await system.license({ activation_limit: 2 });
    const first = await system.post('activate', { license_key: key, identifier: 'example.com' });
    const again = await system.post('activate', {
      license_key: key,
      identifier: 'http://WWW.EXAMPLE.COM/other/path',
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.body.data.activations_used).toBe(1);
  });

  test('a domain with white space before its path is the same domain (spec 2.4)', async () => {
    const { key } = await system.license({ activation_limit: 2 });
    await system.post('activate', { license_key: key, identifier: 'example.com' });
    const res = await system.post('activate', {
      license_key: key,
      identifier: 'https://example.com /shop',
    });
    expect(res.body.data).toMatchObject({ identifier: 'example.com', activations_used: 1 });
  });

  test('an identifier already activated succeeds on a full license', async () => {
    const { key } = await system.license({ activation_limit: 1 });
    await system.post('activate', { license_key: key, identifier: 'a.com' });
    const res = await system.post('activate', { license_key: key, identifier: 'a.com' });
    expect(res.status).toBe(200);
    expect(res.body.data.activations_used).toBe(1);
  });

  test('activation limit 0 means unlimited', async () => {
    const { key } = await system.license({ activation_limit: 0 });
    for (let i = 0; i < 12; i++) {
      const res = await system.post('activate', { license_key: key, identifier: `site${i}.com` });
      expect(res.status).toBe(200);
      expect(res.body.data.activation_limit).toBe(0);
    }
    expect((await detail(key)).activations_used).toBe(12);
  });

  test('activations_used counts up with each new identifier', async () => {
    const { key } = await system.license({ activation_limit: 3 });
    const used = [];
    for (const identifier of ['a.com', 'b.com', 'c.com']) {
      used.push(
        (await system.post('activate', { license_key: key, identifier })).body.data
          .activations_used,
      );
    }
    expect(used).toEqual([1, 2, 3]);
  });
});

describe('spec 2.4 identifier normalisation per activation type', () => {
  test('device identifiers are trimmed only, and match case-insensitively', async () => {
    const { key } = await system.license({ activation_type: 'device', activation_limit: 2 });
    const first = await system.post('activate', {
      license_key: key,
      identifier: '  MacBook-Pro  ',
    });
    expect(first.body.data.identifier).toBe('MacBook-Pro');
    const again = await system.post('activate', { license_key: key, identifier: 'macbook-PRO' });
    expect(again.status).toBe(200);
    expect(again.body.data.identifier).toBe('MacBook-Pro');
    expect(again.body.data.activations_used).toBe(1);
  });

  test('instance identifiers keep their case and match case-insensitively', async () => {
    const { key } = await system.license({ activation_type: 'instance', activation_limit: 1 });
    const first = await system.post('activate', {
      license_key: key,
      identifier: 'Pod-A/Container-1',
    });
    expect(first.body.data.identifier).toBe('Pod-A/Container-1');
    const other = await system.post('activate', {
      license_key: key,
      identifier: 'pod-a/container-1',
    });
    expect(other.status).toBe(200);
    expect(other.body.data.activations_used).toBe(1);
  });

  test('seat identifiers (e-mail addresses) are lowercased', async () => {
    const { key } = await system.license({ activation_type: 'seat' });
    const res = await system.post('activate', { license_key: key, identifier: 'Jane@Example.COM' });
    expect(res.body.data.identifier).toBe('jane@example.com');
    expect(res.body.data.activation_type).toBe('seat');
  });

  test('the 255-character limit holds for the stored value: a seat that lower-casing lengthens past it is refused', async () => {
    const { key } = await system.license({ activation_type: 'seat' });
    // İ (U+0130) lower-cases to two code points: 200 sent, 400 once normalised.
    const res = await system.post('activate', {
      license_key: key,
      identifier: '\u0130'.repeat(200),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(/255 characters once normalised/),
    });
    expect((await detail(key)).activations_used).toBe(0);
  });

  test('whatever activate returns, deactivate accepts', async () => {
    const { key } = await system.license({ activation_type: 'seat', activation_limit: 0 });
    for (const identifier of ['\u0130'.repeat(127), '\u0130'.repeat(200), 'A'.repeat(255)]) {
      const activated = await system.post('activate', { license_key: key, identifier });
      if (activated.status !== 200) continue;
      const stored: string = activated.body.data.identifier;
      const removed = await system.post('deactivate', { license_key: key, identifier: stored });
      expect({ stored, status: removed.status }).toEqual({ stored, status: 200 });
    }
    expect((await detail(key)).activations_used).toBe(0);
  });

  test('every spelling of one website is one activation, stored in its ASCII form', async () => {
    const { key } = await system.license({ activation_limit: 10 });
    const spellings = [
      ['bücher.de', 'xn--bcher-kva.de', 'https://www.BÜCHER.de./shop'],
      ['example.com', 'example.com.', '\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com'],
    ];
    for (const [first, ...others] of spellings) {
      const activated = await system.post('activate', { license_key: key, identifier: first });
      expect(activated.status).toBe(200);
      for (const other of others) {
        const again = await system.post('activate', { license_key: key, identifier: other });
        expect(again.status).toBe(200);
        expect(again.body.data.identifier).toBe(activated.body.data.identifier);
      }
    }
    const license = await detail(key);
    expect(license.activations.map((a) => a.identifier).sort()).toEqual([
      'example.com',
      'xn--bcher-kva.de',
    ]);
  });

  test('the Unicode spelling matches the stored ASCII form on validate and deactivate', async () => {
    const { key } = await system.license();
    await system.post('activate', { license_key: key, identifier: 'xn--bcher-kva.de' });
    const validated = await system.post('validate', { license_key: key, identifier: 'Bücher.de' });
    expect(validated.body.data.identifier_activated).toBe(true);
    const removed = await system.post('deactivate', { license_key: key, identifier: 'bücher.de' });
    expect(removed.status).toBe(200);
    expect(removed.body.data.identifier).toBe('xn--bcher-kva.de');
  });

  test.each([
    '.',
    '..',
    '-',
    'javascript:alert(1)',
    '<script>alert(1)<',
    'example.com:abc',
    '\u200b',
    '\u200bexample.com',
  ])(
    'a domain that is not a website (%j) gets INVALID_REQUEST and changes nothing',
    async (identifier) => {
      const { key } = await system.license({ activation_limit: 1 });
      const res = await system.post('activate', { license_key: key, identifier });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect((await detail(key)).activations_used).toBe(0);
    },
  );
});

describe('spec 2.2 bundles', () => {
  test('a bundle key activates for each product of its bundle, and reports the bundle', async () => {
    const a = await system.transport.call('update-catalog.createProduct', { title: 'Addon A' });
    const b = await system.transport.call('update-catalog.createProduct', { title: 'Addon B' });
    const bundle = await system.transport.call('update-catalog.createProduct', {
      title: 'Everything Bundle',
      bundle_items: [a.id, b.id],
    });
    const { key } = await system.license({ product: bundle, activation_limit: 5 });
    for (const productId of [a.id, b.id, bundle.id]) {
      const res = await system.post('activate', {
        license_key: key,
        identifier: 'shop.example',
        product_id: productId,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.product).toBe('Everything Bundle');
      expect(res.body.data.activations_used).toBe(1);
    }
  });

  test('only one level is resolved: a bundle inside a bundle does not pass its products through', async () => {
    const { item: inner, inner: innerBundle, outer } = await system.nestedBundle();
    const { key } = await system.license({ product: outer });
    const covered = await system.post('activate', {
      license_key: key,
      identifier: 'a.com',
      product_id: innerBundle.id,
    });
    expect(covered.status).toBe(200);
    const notCovered = await system.post('activate', {
      license_key: key,
      identifier: 'a.com',
      product_id: inner.id,
    });
    expect(notCovered.status).toBe(403);
    expect(notCovered.body.error.code).toBe('PRODUCT_MISMATCH');
  });

  test('a single-product key does not cover another product', async () => {
    const other = await system.transport.call('update-catalog.createProduct', { title: 'Other' });
    const { key } = await system.license();
    const res = await system.post('activate', {
      license_key: key,
      identifier: 'a.com',
      product_id: other.id,
    });
    expect(res.body.error.code).toBe('PRODUCT_MISMATCH');
  });
});

describe('spec 2.5 rejected activation attempts', () => {
  test('a refusal on a full license records one row per identifier with a try count', async () => {
    const { key } = await system.license({ activation_limit: 1 });
    await system.post('activate', { license_key: key, identifier: 'kept.com' });
    await system.post('activate', { license_key: key, identifier: 'https://www.Refused.com' });
    await system.post('activate', { license_key: key, identifier: 'refused.com/again' });
    await system.post('activate', { license_key: key, identifier: 'other.com' });
    const attempts = (await detail(key)).rejected_attempts;
    expect(attempts).toHaveLength(2);
    expect(attempts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ identifier: 'refused.com', tries: 2 }),
        expect.objectContaining({ identifier: 'other.com', tries: 1 }),
      ]),
    );
    for (const attempt of attempts)
      expect(Number.isNaN(Date.parse(attempt.last_attempt_at))).toBe(false);
  });

  test('a refusal on an expired license records a row', async () => {
    const { key } = await system.license({ expires_at: PAST });
    await system.post('activate', { license_key: key, identifier: 'late.com' });
    expect((await detail(key)).rejected_attempts).toEqual([
      expect.objectContaining({ identifier: 'late.com', tries: 1 }),
    ]);
  });

  test('successful, invalid and mismatched activations record nothing', async () => {
    const { key } = await system.license();
    await system.post('activate', { license_key: key, identifier: 'ok.com' });
    await system.post('activate', { license_key: key, identifier: 'ok.com', product_id: 999999 });
    await system.post('activate', { license_key: key, identifier: 'https://' });
    expect((await detail(key)).rejected_attempts).toEqual([]);
  });
});
