import type { LicensingError } from '../../libs/contracts/index.js';
import {
  coversProduct,
  decideActivation,
  effectiveStatus,
  type LicenseState,
  type LicensedProduct,
} from '../../services/license/rules.js';

const now = new Date('2026-06-01T12:00:00Z');
const past = new Date('2026-05-01T00:00:00Z');
const future = new Date('2027-01-01T00:00:00Z');

function license(overrides: Partial<LicenseState> = {}): LicenseState {
  return {
    status: 'active',
    expires_at: null,
    activation_type: 'domain',
    activation_limit: 2,
    activations: [],
    ...overrides,
  };
}
const product: LicensedProduct = { id: 10, title: 'Plugin', bundle_items: [] };
const bundle: LicensedProduct = { id: 20, title: 'Bundle', bundle_items: [10, 30] };
const activation = (identifier: string) => ({
  identifier,
  identifier_key: identifier.toLowerCase(),
});

function refusal(decision: ReturnType<typeof decideActivation>): LicensingError {
  if (decision.outcome !== 'refuse') throw new Error(`expected a refusal, got ${decision.outcome}`);
  return decision.error;
}

describe('spec 3.1 effective status', () => {
  test('an active license past its expiry date reports expired', () => {
    expect(effectiveStatus({ status: 'active', expires_at: past }, now)).toBe('expired');
  });
  test('an active license before its expiry date, or without one, is active', () => {
    expect(effectiveStatus({ status: 'active', expires_at: future }, now)).toBe('active');
    expect(effectiveStatus({ status: 'active', expires_at: null }, now)).toBe('active');
  });
  test('other statuses are reported as stored', () => {
    expect(effectiveStatus({ status: 'suspended', expires_at: past }, now)).toBe('suspended');
  });
  test('expiry is reached at the exact expiry instant', () => {
    expect(effectiveStatus({ status: 'active', expires_at: now }, now)).toBe('expired');
  });
});

describe('spec 2.2 bundles: product coverage', () => {
  test('a license covers its own product', () => {
    expect(coversProduct(product, 10)).toBe(true);
    expect(coversProduct(product, 11)).toBe(false);
  });
  test('a bundle license covers each product in the bundle and the bundle itself', () => {
    expect(coversProduct(bundle, 10)).toBe(true);
    expect(coversProduct(bundle, 30)).toBe(true);
    expect(coversProduct(bundle, 20)).toBe(true);
    expect(coversProduct(bundle, 40)).toBe(false);
  });
});

describe('spec 4.1 activate: errors in their order', () => {
  const request = { identifier: 'example.com', product_id: null };

  test('1. INVALID_REQUEST for a domain that normalises to nothing, before the status check', () => {
    expect(() =>
      decideActivation(
        license({ status: 'revoked' }),
        product,
        { ...request, identifier: 'https://' },
        now,
      ),
    ).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
  });

  test('2. LICENSE_INVALID for an unknown key', () => {
    expect(refusal(decideActivation(null, null, request, now)).code).toBe('LICENSE_INVALID');
  });

  test.each(['suspended', 'revoked', 'cancelled'] as const)(
    '2. LICENSE_INVALID for a %s license, before PRODUCT_MISMATCH',
    (status) => {
      const decision = decideActivation(
        license({ status }),
        product,
        { ...request, product_id: 99 },
        now,
      );
      expect(refusal(decision).code).toBe('LICENSE_INVALID');
      expect(decision.outcome === 'refuse' && decision.recordAttempt).toBeNull();
    },
  );

  test('3. PRODUCT_MISMATCH before LICENSE_EXPIRED', () => {
    const decision = decideActivation(
      license({ expires_at: past }),
      product,
      { ...request, product_id: 99 },
      now,
    );
    expect(refusal(decision).code).toBe('PRODUCT_MISMATCH');
  });

  test('4. LICENSE_EXPIRED before ACTIVATION_LIMIT_REACHED, and recorded', () => {
    const decision = decideActivation(
      license({ expires_at: past, activation_limit: 1, activations: [activation('a.com')] }),
      product,
      request,
      now,
    );
    expect(refusal(decision).code).toBe('LICENSE_EXPIRED');
    expect(decision.outcome === 'refuse' && decision.recordAttempt?.identifier).toBe('example.com');
  });

  test('2. a license whose stored status is expired is not active: LICENSE_INVALID, recorded', () => {
    const decision = decideActivation(license({ status: 'expired' }), product, request, now);
    expect(refusal(decision).code).toBe('LICENSE_INVALID');
    expect(decision.outcome === 'refuse' && decision.recordAttempt?.identifier).toBe('example.com');
  });

  test('2. a stored expired status is refused before PRODUCT_MISMATCH', () => {
    const decision = decideActivation(
      license({ status: 'expired' }),
      product,
      { ...request, product_id: 99 },
      now,
    );
    expect(refusal(decision).code).toBe('LICENSE_INVALID');
  });

  test('5. ACTIVATION_LIMIT_REACHED carries activation_limit and activations_used, and is recorded', () => {
    const decision = decideActivation(
      license({ activation_limit: 2, activations: [activation('a.com'), activation('b.com')] }),
      product,
      request,
      now,
    );
    const error = refusal(decision);
    expect(error.code).toBe('ACTIVATION_LIMIT_REACHED');
    expect(error.details).toEqual({ activation_limit: 2, activations_used: 2 });
    expect(decision.outcome === 'refuse' && decision.recordAttempt?.key).toBe('example.com');
  });
});

describe('spec 3.2 activation lifecycle', () => {
  test('a new identifier below the limit claims a slot, normalised', () => {
    const decision = decideActivation(
      license(),
      product,
      { identifier: 'https://WWW.Example.com/', product_id: 10 },
      now,
    );
    expect(decision).toEqual({
      outcome: 'claim',
      identifier: { identifier: 'example.com', key: 'example.com' },
    });
  });

  test('limit 0 means unlimited', () => {
    const many = Array.from({ length: 50 }, (_, i) => activation(`site${i}.com`));
    expect(
      decideActivation(
        license({ activation_limit: 0, activations: many }),
        product,
        { identifier: 'x.com', product_id: null },
        now,
      ).outcome,
    ).toBe('claim');
  });

  test('the same identifier again is a success without a new slot, even on a full license', () => {
    const decision = decideActivation(
      license({ activation_limit: 1, activations: [activation('example.com')] }),
      product,
      { identifier: 'http://www.EXAMPLE.com', product_id: null },
      now,
    );
    expect(decision).toEqual({ outcome: 'already-active', identifier: 'example.com' });
  });

  test('device identifiers match case-insensitively and answer with the stored identifier', () => {
    const decision = decideActivation(
      license({
        activation_type: 'device',
        activations: [{ identifier: 'PC-One', identifier_key: 'pc-one' }],
      }),
      product,
      { identifier: 'pc-ONE', product_id: null },
      now,
    );
    expect(decision).toEqual({ outcome: 'already-active', identifier: 'PC-One' });
  });

  test('spec 3.3: a limit below the activations in use refuses new activations', () => {
    const decision = decideActivation(
      license({ activation_limit: 1, activations: [activation('a.com'), activation('b.com')] }),
      product,
      { identifier: 'c.com', product_id: null },
      now,
    );
    expect(refusal(decision).code).toBe('ACTIVATION_LIMIT_REACHED');
  });

  test('a bundle key activates for a product of its bundle', () => {
    expect(
      decideActivation(license(), bundle, { identifier: 'a.com', product_id: 30 }, now).outcome,
    ).toBe('claim');
  });
});
