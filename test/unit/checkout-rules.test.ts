import {
  decideCheckout,
  licenseFileLease,
} from '../../services/license/activations/checkout-rules.js';
import type { LicenseState, LicensedProduct } from '../../services/license/rules.js';

const now = new Date('2026-06-01T12:00:00.750Z');
const DAY = 86_400;

type LeasedState = LicenseState & { lease_seconds: number | null };

function license(overrides: Partial<LeasedState> = {}): LeasedState {
  return {
    status: 'active',
    lease_seconds: null,
    expires_at: null,
    activation_type: 'domain',
    activation_limit: 2,
    activations: [{ identifier: 'shop.example', identifier_key: 'shop.example' }],
    activations_used: 1,
    activations_bytes: 0,
    exempt_identifiers: [],
    exempt_limit: 3,
    exempt_used: 0,
    ...overrides,
  };
}
const product: LicensedProduct = { id: 10, title: 'Plugin', bundle_items: [] };
const bundle: LicensedProduct = { id: 20, title: 'Bundle', bundle_items: [10, 30] };
const request = { identifier: 'shop.example', product_id: 10, ttl_seconds: 7 * DAY };

function decide(
  overrides: { license?: LeasedState | null; product?: LicensedProduct } = {},
  asked: Partial<typeof request> = {},
) {
  return decideCheckout({
    license: overrides.license === undefined ? license() : overrides.license,
    product: overrides.product ?? product,
    request: { ...request, ...asked },
    now,
  });
}

const code = (decision: ReturnType<typeof decideCheckout>) =>
  decision.ok ? 'issued' : decision.refusal.code;

describe('license files: refused as activate refuses (spec 4.1 order), then ACTIVATION_NOT_FOUND', () => {
  test('1. INVALID_REQUEST for an identifier that normalises to nothing, before the status', () => {
    expect(
      code(decide({ license: license({ status: 'revoked' }) }, { identifier: 'https://' })),
    ).toBe('INVALID_REQUEST');
  });

  test('2. LICENSE_INVALID for an unknown key, and for every status but active', () => {
    expect(code(decide({ license: null }))).toBe('LICENSE_INVALID');
    for (const status of ['expired', 'suspended', 'revoked', 'cancelled'] as const) {
      expect(code(decide({ license: license({ status }) }, { product_id: 99 }))).toBe(
        'LICENSE_INVALID',
      );
    }
  });

  test('3. PRODUCT_MISMATCH for a product the key does not cover, before the expiry', () => {
    const past = new Date('2026-01-01T00:00:00Z');
    expect(code(decide({ license: license({ expires_at: past }) }, { product_id: 11 }))).toBe(
      'PRODUCT_MISMATCH',
    );
  });

  test('a bundle key covers each product of the bundle', () => {
    expect(code(decide({ product: bundle }, { product_id: 30 }))).toBe('issued');
    expect(code(decide({ product: bundle }, { product_id: 40 }))).toBe('PRODUCT_MISMATCH');
  });

  test('4. LICENSE_EXPIRED for an active license past its date, before the identifier', () => {
    const expired = license({ expires_at: now });
    expect(code(decide({ license: expired }, { identifier: 'other.example' }))).toBe(
      'LICENSE_EXPIRED',
    );
  });

  test('5. ACTIVATION_NOT_FOUND for an identifier not activated on the license', () => {
    expect(code(decide({}, { identifier: 'other.example' }))).toBe('ACTIVATION_NOT_FOUND');
  });

  test('the identifier is normalised for the license type (spec 2.4) and answered as stored', () => {
    const decision = decide({}, { identifier: 'https://www.SHOP.example/path' });
    expect(decision).toMatchObject({ ok: true, identifier: 'shop.example' });
    const device = license({
      activation_type: 'device',
      activations: [{ identifier: 'MacBook-Pro', identifier_key: 'macbook-pro' }],
    });
    expect(decide({ license: device }, { identifier: ' macbook-pro ' })).toMatchObject({
      ok: true,
      identifier: 'MacBook-Pro',
    });
  });

  test('the file holds the license as validate reports it: active and valid', () => {
    expect(decide()).toMatchObject({ ok: true, status: 'active', valid: true });
  });
});

describe('license files: the lease', () => {
  const at = (iso: string) => new Date(iso);

  test('from now, in whole seconds, for the time to live asked', () => {
    expect(licenseFileLease(now, 3600, null)).toEqual({
      issuedAt: at('2026-06-01T12:00:00.000Z'),
      expiresAt: at('2026-06-01T13:00:00.000Z'),
    });
  });

  test("ending at the license's own expiry when that comes first, in whole seconds, never after it", () => {
    const expiry = at('2026-06-02T08:30:15.999Z');
    expect(licenseFileLease(now, 7 * DAY, expiry)).toEqual({
      issuedAt: at('2026-06-01T12:00:00.000Z'),
      expiresAt: at('2026-06-02T08:30:15.000Z'),
    });
    expect(licenseFileLease(now, 60, expiry).expiresAt).toEqual(at('2026-06-01T12:01:00.000Z'));
  });

  test("ending at the activation's lease end when that comes first, in whole seconds, never after it", () => {
    const leaseEnd = at('2026-06-01T12:10:00.500Z');
    expect(licenseFileLease(now, 7 * DAY, null, leaseEnd).expiresAt).toEqual(
      at('2026-06-01T12:10:00.000Z'),
    );
    expect(licenseFileLease(now, 60, null, leaseEnd).expiresAt).toEqual(
      at('2026-06-01T12:01:00.000Z'),
    );
  });

  test("on a plan with a lease, the file ends with the activation's lease as the checkout renews it", () => {
    const decision = decide({ license: license({ lease_seconds: 900 }) });
    const renewed = at('2026-06-01T12:15:00.000Z');
    expect(decision).toMatchObject({
      ok: true,
      lease: { issuedAt: at('2026-06-01T12:00:00.000Z'), expiresAt: renewed },
      activationLeaseEnd: renewed,
    });
    // A shorter time to live, or the license's expiry, still comes first; the lease is renewed.
    expect(decide({ license: license({ lease_seconds: 900 }) }, { ttl_seconds: 60 })).toMatchObject(
      { lease: { expiresAt: at('2026-06-01T12:01:00.000Z') }, activationLeaseEnd: renewed },
    );
  });

  test('without a lease, nothing is renewed and the file is the time to live asked', () => {
    expect(decide({}, { ttl_seconds: 60 })).toMatchObject({
      lease: { expiresAt: at('2026-06-01T12:01:00.000Z') },
      activationLeaseEnd: null,
    });
  });

  test('the decision carries the lease of the time to live asked and the license expiry', () => {
    const expiry = at('2026-06-03T00:00:00.000Z');
    const decision = decide({ license: license({ expires_at: expiry }) });
    expect(decision).toMatchObject({ ok: true, lease: { expiresAt: expiry } });
    expect(decide({}, { ttl_seconds: 60 })).toMatchObject({
      lease: { expiresAt: at('2026-06-01T12:01:00.000Z') },
    });
  });
});
