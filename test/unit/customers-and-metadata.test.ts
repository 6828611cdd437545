import {
  CreateLicenseRequest,
  Customer,
  MAX_METADATA_KEYS,
  Metadata,
  UpdateLicenseRequest,
  type ListCursor,
} from '../../libs/contracts/index.js';
import { checkEmailAddress } from '../../libs/identifier/index.js';
import { extendedExpiry } from '../../services/license/lifecycle/lifecycle-rules.js';
import { publishedData } from '../support/fake-services.js';
import {
  DAY,
  FUTURE,
  NOW,
  PAST,
  refusedWith,
  service,
  waiting,
} from '../support/license-handler-harness.js';

/**
 * Customers and metadata of licenses (docs/api-decisions.md, "Customers and metadata"): the
 * e-mail address in one form, the bounds of metadata, what the license service does with them,
 * and the admin's extension of an expiry by days.
 */

describe('a customer e-mail address in one form', () => {
  test.each([
    ['jane@example.com', 'jane@example.com'],
    ['  Jane.Doe@Example.COM\t', 'jane.doe@example.com'],
    ['JANE+news@Shop.Example.org', 'jane+news@shop.example.org'],
    ['jane@bücher.de', 'jane@xn--bcher-kva.de'],
    ['Jörg@BÜCHER.de', 'jörg@xn--bcher-kva.de'],
    ["o'brien@example.ie", "o'brien@example.ie"],
  ])('%j is stored as %j', (sent, stored) => {
    expect(checkEmailAddress(sent)).toEqual({ email: stored });
  });

  test.each([
    ['no @', 'jane.example.com'],
    ['two @', 'jane@doe@example.com'],
    ['nothing before the @', '@example.com'],
    ['nothing after the @', 'jane@'],
    ['a domain of one label', 'jane@localhost'],
    ['a domain that is an address', 'jane@[192.0.2.1]'],
    ['a domain with an underscore', 'jane@ex_ample.com'],
    ['a domain ending in a dot', 'jane@example.com.'],
    ['white space before the @', 'jane doe@example.com'],
    ['an invisible character', 'jane\u200b@example.com'],
    ['an invisible character in the domain', 'jane@exa\u200bmple.com'],
    ['a control character', 'jane\u0007@example.com'],
    ['65 characters before the @', `${'a'.repeat(65)}@example.com`],
    [
      '255 characters',
      `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`,
    ],
  ])('%s is refused, saying why', (_, sent) => {
    expect(checkEmailAddress(sent)).toEqual({ problem: expect.any(String) });
  });
});

describe('the bounds of metadata and customers', () => {
  const ok = (schema: { safeParse(value: unknown): { success: boolean } }, value: unknown) =>
    schema.safeParse(value).success;

  test('keys: an ASCII letter, then up to 39 letters, digits, _ or -', () => {
    for (const key of ['a', 'order_id', 'crm-id', 'X9', `k${'e'.repeat(39)}`]) {
      expect([key, ok(Metadata, { [key]: 'v' })]).toEqual([key, true]);
    }
    for (const key of [
      '',
      '_a',
      '-a',
      '1a',
      'a.b',
      'a b',
      '$set',
      '__proto__',
      'ä',
      `k${'e'.repeat(40)}`,
    ]) {
      expect([key, ok(Metadata, { [key]: 'v' })]).toEqual([key, false]);
    }
  });

  test('a __proto__ key, as JSON can send it, is refused rather than dropped', () => {
    expect(ok(Metadata, JSON.parse('{"__proto__": "v", "a": "b"}'))).toBe(false);
  });

  test(`at most ${MAX_METADATA_KEYS} keys`, () => {
    const entries = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect(ok(Metadata, entries(MAX_METADATA_KEYS))).toBe(true);
    expect(ok(Metadata, entries(MAX_METADATA_KEYS + 1))).toBe(false);
  });

  test('values: text of 1 to 255 characters, well-formed, without NUL', () => {
    for (const value of ['x', 'é'.repeat(255), '😀'.repeat(255), 'Kunde 7']) {
      expect(ok(Metadata, { k: value })).toBe(true);
    }
    for (const value of ['', '  ', 'x'.repeat(256), 'a\ud800', '\udc00b', 'a\u0000b', 7, null]) {
      expect(ok(Metadata, { k: value })).toBe(false);
    }
  });

  test('a customer: an address (checked by the license service) and a name, or none', () => {
    expect(Customer.parse({ email: 'jane@example.com' })).toEqual({
      email: 'jane@example.com',
      name: null,
    });
    for (const customer of [
      { email: '' },
      { email: 'jane@example.com', name: '' },
      { email: 'jane@example.com', name: 'a\ud800' },
      { email: 'a\udc00@example.com' },
      { email: 'jane@example.com', phone: '1' },
    ]) {
      expect(ok(Customer, customer)).toBe(false);
    }
    expect(CreateLicenseRequest.parse({ product_id: 1, plan_id: 1 })).toMatchObject({
      customer: null,
      metadata: {},
    });
    expect(ok(UpdateLicenseRequest, { license_key: 'K', customer: null })).toBe(true);
  });
});

describe('an expiry extended by days', () => {
  test('moves the expiry it has, ahead or past, by whole days', () => {
    expect(extendedExpiry(new Date(FUTURE), 30)).toEqual({
      ok: true,
      expiresAt: new Date(Date.parse(FUTURE) + 30 * DAY),
    });
    expect(extendedExpiry(new Date(PAST), 1)).toEqual({
      ok: true,
      expiresAt: new Date(Date.parse(PAST) + DAY),
    });
  });

  test('a license that never expires has nothing to extend: refused', () => {
    expect(extendedExpiry(null, 30)).toEqual({
      ok: false,
      refusal: expect.objectContaining({ code: 'INVALID_REQUEST' }),
    });
  });
});

describe('the license service: customers, metadata, extensions, lists', () => {
  const create = (s: ReturnType<typeof service>, planId: number, fields: object) =>
    s.handlers['license.createLicense'](
      {
        product_id: 10,
        plan_id: planId,
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

  test('a license is issued with its customer normalised and its metadata; the event carries neither', async () => {
    const s = service();
    const plan = await s.plan();
    const license = await create(s, plan.id, {
      customer: { email: ' Jane@Example.COM ', name: 'Jane' },
      metadata: { order_id: 'A-1' },
    });
    expect(license).toMatchObject({
      customer: { email: 'jane@example.com', name: 'Jane' },
      metadata: { order_id: 'A-1' },
    });
    const event = JSON.stringify(publishedData(s.events.published, 'license.created'));
    expect(event).not.toContain('jane@example.com');
    expect(event).not.toContain('A-1');
  });

  test('an address that cannot be one is refused naming customer.email, and nothing is written', async () => {
    const s = service();
    const plan = await s.plan();
    const key = await s.license({ plan_id: plan.id });
    const writes = s.stores.writes();
    const bad = { email: 'jane@localhost', name: null };
    await expect(create(s, plan.id, { customer: bad })).rejects.toEqual(
      expect.objectContaining({
        code: 'INVALID_REQUEST',
        message: expect.stringMatching(/^customer\.email: /),
      }),
    );
    await expect(
      s.handlers['license.updateLicense'](
        { license_key: key, customer: bad, status: 'suspended' },
        waiting,
      ),
    ).rejects.toEqual(refusedWith('INVALID_REQUEST', 400));
    expect(s.stores.writes()).toBe(writes);
    expect((await s.detail(key)).status).toBe('active');
  });

  test('an extension and an expiry date together are refused; an extension of a license without expiry too', async () => {
    const s = service();
    const key = await s.license({ expires_at: FUTURE });
    const never = await s.license();
    await expect(
      s.handlers['license.updateLicense'](
        { license_key: key, extend_expiry_days: 1, expires_at: FUTURE },
        waiting,
      ),
    ).rejects.toEqual(refusedWith('INVALID_REQUEST', 400));
    await expect(
      s.handlers['license.updateLicense']({ license_key: never, extend_expiry_days: 1 }, waiting),
    ).rejects.toEqual(refusedWith('INVALID_REQUEST', 400));
    await expect(
      s.handlers['license.updateLicense'](
        { license_key: 'no-such-key', extend_expiry_days: 1 },
        waiting,
      ),
    ).rejects.toEqual(refusedWith('NOT_FOUND', 404));
    expect((await s.detail(key)).expires_at).toBe(FUTURE);
  });

  test('the search finds a customer by address in any spelling and a metadata value, in the order asked', async () => {
    const s = service();
    const plan = await s.plan();
    const jane = await create(s, plan.id, {
      customer: { email: 'jane@example.com', name: null },
      metadata: { order_id: 'A-1' },
      expires_at: FUTURE,
    });
    const amy = await create(s, plan.id, {
      customer: { email: 'amy@example.com', name: null },
      metadata: { invoice: 'A-1' },
      expires_at: PAST,
    });
    const search = (q: string | null, sort: '-created_at' | 'customer_email' | '-expires_at') =>
      s.handlers['license.searchLicenses'](
        { product_id: null, plan_id: null, status: null, q, sort, page: 1, per_page: 50 },
        waiting,
      );
    const keys = async (q: string | null, sort: Parameters<typeof search>[1]) =>
      (await search(q, sort)).licenses.map((l) => l.license_key);
    expect(await keys('JANE@example.com', '-created_at')).toEqual([jane.license_key]);
    expect(await keys('A-1', 'customer_email')).toEqual([amy.license_key, jane.license_key]);
    expect(await keys('A-1', '-expires_at')).toEqual([jane.license_key, amy.license_key]);
  });

  test('an export reads the list a batch at a time, every batch as of the instant it started', async () => {
    const s = service();
    const plan = await s.plan();
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) {
      keys.push(
        (
          await create(s, plan.id, {
            expires_at: new Date(NOW.getTime() + (i + 1) * DAY).toISOString(),
          })
        ).license_key,
      );
    }
    // As of a week later every license has passed its date: each is reported expired.
    const asOf = new Date(NOW.getTime() + 7 * DAY).toISOString();
    const read: string[][] = [];
    let after: ListCursor | null = null;
    for (let round = 0; round < 10; round++) {
      const batch: Awaited<ReturnType<(typeof s.handlers)['license.exportLicenses']>> =
        await s.handlers['license.exportLicenses'](
          {
            product_id: null,
            plan_id: null,
            status: 'expired',
            q: null,
            sort: 'expires_at',
            after,
            limit: 2,
            as_of: asOf,
          },
          waiting,
        );
      read.push(batch.licenses.map((l) => `${l.license_key} ${l.status}`));
      if (batch.next === null) break;
      after = batch.next;
    }
    expect(read).toEqual([
      [`${keys[0]} expired`, `${keys[1]} expired`],
      [`${keys[2]} expired`, `${keys[3]} expired`],
      [`${keys[4]} expired`],
    ]);
  });
});
