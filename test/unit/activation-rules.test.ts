import type { Refusal } from '../../libs/contracts/index.js';
import {
  decideActivation,
  decideDeactivation,
  decideValidation,
} from '../../services/license/activations/activation-rules.js';
import {
  coversProduct,
  effectiveStatus,
  limitBelowActivations,
  normaliseOrRefuse,
  type LicenseState,
  type LicensedProduct,
} from '../../services/license/rules.js';
import {
  MAX_ACTIVATION_BYTES,
  MAX_ACTIVATION_ENTRY_BYTES,
} from '../../services/license/records.js';

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
    // The slots in use are the activations given, unless a test says otherwise.
    activations_used: overrides.activations?.length ?? 0,
    activations_bytes: 0,
    exempt_identifiers: [],
    exempt_limit: 3,
    exempt_used: 0,
    ...overrides,
  };
}
const product: LicensedProduct = { id: 10, title: 'Plugin', bundle_items: [] };
const bundle: LicensedProduct = { id: 20, title: 'Bundle', bundle_items: [10, 30] };
const activation = (identifier: string) => ({
  identifier,
  identifier_key: identifier.toLowerCase(),
});

function refusal(decision: ReturnType<typeof decideActivation>): Refusal {
  if (decision.ok) throw new Error(`expected a refusal, got ${decision.outcome}`);
  return decision.refusal;
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
    expect(
      refusal(
        decideActivation(
          license({ status: 'revoked' }),
          product,
          { ...request, identifier: 'https://' },
          now,
        ),
      ),
    ).toEqual(expect.objectContaining({ code: 'INVALID_REQUEST' }));
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
      expect(!decision.ok && decision.recordAttempt).toBeNull();
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

  test('4. LICENSE_EXPIRED before ACTIVATION_LIMIT_REACHED, and recorded as expired', () => {
    const decision = decideActivation(
      license({ expires_at: past, activation_limit: 1, activations: [activation('a.com')] }),
      product,
      request,
      now,
    );
    expect(refusal(decision).code).toBe('LICENSE_EXPIRED');
    expect(!decision.ok && decision.recordAttempt).toEqual({
      identifier: expect.objectContaining({ identifier: 'example.com' }),
      reason: 'expired',
    });
  });

  test('2. a license whose stored status is expired is not active: LICENSE_INVALID, recorded as expired', () => {
    const decision = decideActivation(license({ status: 'expired' }), product, request, now);
    expect(refusal(decision).code).toBe('LICENSE_INVALID');
    expect(!decision.ok && decision.recordAttempt).toEqual({
      identifier: expect.objectContaining({ identifier: 'example.com' }),
      reason: 'expired',
    });
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
    expect(!decision.ok && decision.recordAttempt).toEqual({
      identifier: expect.objectContaining({ key: 'example.com' }),
      reason: 'limit_reached',
    });
  });

  test('5. ACTIVATION_LIMIT_REACHED too when the activations fill the license record, unlimited or not; recorded', () => {
    const full = MAX_ACTIVATION_BYTES - MAX_ACTIVATION_ENTRY_BYTES + 1;
    for (const activation_limit of [0, 1_000_000]) {
      const decision = decideActivation(
        license({ activation_limit, activations_used: 80_000, activations_bytes: full }),
        product,
        request,
        now,
      );
      const error = refusal(decision);
      expect(error.code).toBe('ACTIVATION_LIMIT_REACHED');
      expect(error.message).toMatch(/as many activations as one license can keep/);
      expect(error.details).toEqual({ activation_limit, activations_used: 80_000 });
      expect(!decision.ok && decision.recordAttempt).toEqual({
        identifier: expect.objectContaining({ key: 'example.com' }),
        reason: 'limit_reached',
      });
    }
    // Room for the largest activation there can be: claimed.
    expect(
      decideActivation(
        license({ activation_limit: 0, activations_bytes: full - 1 }),
        product,
        request,
        now,
      ),
    ).toMatchObject({ ok: true, outcome: 'claim' });
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
      ok: true,
      outcome: 'claim',
      identifier: { identifier: 'example.com', key: 'example.com' },
      exempt: false,
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
      ),
    ).toMatchObject({ ok: true, outcome: 'claim' });
  });

  test('the same identifier again is a success without a new slot, even on a full license', () => {
    const decision = decideActivation(
      license({ activation_limit: 1, activations: [activation('example.com')] }),
      product,
      { identifier: 'http://www.EXAMPLE.com', product_id: null },
      now,
    );
    expect(decision).toEqual({ ok: true, outcome: 'already-active', identifier: 'example.com' });
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
    expect(decision).toEqual({ ok: true, outcome: 'already-active', identifier: 'PC-One' });
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
      decideActivation(license(), bundle, { identifier: 'a.com', product_id: 30 }, now),
    ).toMatchObject({ ok: true, outcome: 'claim' });
  });
});

describe('spec 2.4 identifier normalisation: a refusal is a value', () => {
  test('an identifier that normalises to nothing is refused with INVALID_REQUEST, not thrown', () => {
    expect(normaliseOrRefuse('domain', 'https://')).toEqual({
      ok: false,
      refusal: { code: 'INVALID_REQUEST', message: expect.any(String), details: {} },
    });
  });

  test('a normalisable identifier gives the stored form and its case-insensitive key', () => {
    expect(normaliseOrRefuse('device', ' PC-One ')).toEqual({
      ok: true,
      identifier: { identifier: 'PC-One', key: 'pc-one' },
    });
  });
});

describe('spec 3.3 limit changes', () => {
  test('a limit below the activations in use is refused with ACTIVATION_LIMIT_TOO_LOW and both counts', () => {
    expect(limitBelowActivations({ activation_limit: 1, activations_used: 2 })).toEqual({
      code: 'ACTIVATION_LIMIT_TOO_LOW',
      message: expect.any(String),
      details: { activation_limit: 1, activations_used: 2 },
    });
  });
});

describe('spec 4.2 validate', () => {
  const validate = (
    state: LicenseState | null,
    request: { identifier?: string | null; product_id?: number | null } = {},
    licensed: LicensedProduct = product,
  ) =>
    decideValidation({
      license: state,
      product: state === null ? null : licensed,
      request: { identifier: request.identifier ?? null, product_id: request.product_id ?? null },
      now,
    });

  describe('rule 1: unknown, inactive or expired keys are answered with valid false', () => {
    test('an unknown key gets the unknown-key answer, whatever else is sent', () => {
      expect(validate(null, { identifier: 'a.com', product_id: 5 })).toEqual({
        ok: true,
        outcome: 'unknown-key',
      });
    });

    test.each(['suspended', 'revoked', 'cancelled', 'expired'] as const)(
      'a %s license reports its status with valid false',
      (status) => {
        expect(validate(license({ status }))).toMatchObject({
          outcome: 'report',
          status,
          valid: false,
        });
      },
    );

    test('an active license past its expiry date reports expired with valid false', () => {
      expect(validate(license({ expires_at: past }))).toMatchObject({
        outcome: 'report',
        status: 'expired',
        valid: false,
      });
    });

    test('an active license before its expiry date is valid', () => {
      expect(validate(license({ expires_at: future }))).toMatchObject({
        outcome: 'report',
        status: 'active',
        valid: true,
      });
    });
  });

  test('rule 2: validate never refuses with LICENSE_INVALID or LICENSE_EXPIRED', () => {
    const states = [
      null,
      license({ status: 'revoked', expires_at: past }),
      license({ status: 'expired' }),
      license({ expires_at: past }),
    ];
    for (const state of states) {
      expect(validate(state, { identifier: 'a.com' }).ok).toBe(true);
    }
  });

  describe('rule 3: what counts as a check', () => {
    test('a check without identifier counts, and reports identifier_activated true', () => {
      expect(validate(license())).toMatchObject({
        identifierActivated: true,
        countsAsCheck: true,
      });
    });

    test('a check with an activated identifier, in any spelling, counts', () => {
      const state = license({ activations: [activation('a.com')] });
      expect(validate(state, { identifier: 'https://www.A.com/' })).toMatchObject({
        identifierActivated: true,
        countsAsCheck: true,
      });
    });

    test.each([
      ['not activated', 'b.com'],
      ['sent empty', ''],
      ['that cannot be normalised', 'https://'],
    ])('a check with an identifier %s does not count', (_, identifier) => {
      const state = license({ activations: [activation('a.com')] });
      expect(validate(state, { identifier })).toMatchObject({
        identifierActivated: false,
        countsAsCheck: false,
      });
    });

    test('an expired license is still checked', () => {
      expect(validate(license({ expires_at: past }))).toMatchObject({ countsAsCheck: true });
    });
  });

  describe('rule 4: errors', () => {
    test('PRODUCT_MISMATCH for a key that does not cover product_id, also when suspended', () => {
      for (const status of ['active', 'suspended'] as const) {
        const decision = validate(license({ status }), { product_id: 99 });
        expect(!decision.ok && decision.refusal.code).toBe('PRODUCT_MISMATCH');
      }
    });

    test('a bundle key validates for a product of its bundle', () => {
      expect(validate(license(), { product_id: 30 }, bundle)).toMatchObject({ valid: true });
    });
  });
});

describe('spec 4.3 deactivate: errors in their order (docs/api-decisions.md)', () => {
  const deactivate = (
    state: LicenseState | null,
    request: { identifier: string; product_id?: number | null },
  ) =>
    decideDeactivation({
      license: state,
      product: state === null ? null : product,
      request: { identifier: request.identifier, product_id: request.product_id ?? null },
    });
  const refusalOf = (decision: ReturnType<typeof decideDeactivation>) =>
    decision.ok ? 'released' : decision.refusal.code;

  test('1. INVALID_REQUEST for an identifier that normalises to nothing, before PRODUCT_MISMATCH', () => {
    expect(refusalOf(deactivate(license(), { identifier: 'https://', product_id: 99 }))).toBe(
      'INVALID_REQUEST',
    );
  });

  test('2. LICENSE_INVALID for an unknown key', () => {
    expect(refusalOf(deactivate(null, { identifier: 'a.com' }))).toBe('LICENSE_INVALID');
  });

  test('3. PRODUCT_MISMATCH before ACTIVATION_NOT_FOUND', () => {
    expect(refusalOf(deactivate(license(), { identifier: 'a.com', product_id: 99 }))).toBe(
      'PRODUCT_MISMATCH',
    );
  });

  test('4. ACTIVATION_NOT_FOUND for an identifier that is not activated', () => {
    const state = license({ activations: [activation('a.com')] });
    expect(refusalOf(deactivate(state, { identifier: 'b.com' }))).toBe('ACTIVATION_NOT_FOUND');
  });

  test('an activated identifier, matched after normalisation, is released', () => {
    const state = license({ activations: [activation('example.com')] });
    expect(deactivate(state, { identifier: 'https://www.EXAMPLE.com/', product_id: 10 })).toEqual({
      ok: true,
      identifier: { identifier: 'example.com', key: 'example.com' },
    });
  });

  test.each([
    ['past its expiry date', { expires_at: past }],
    ['expired', { status: 'expired' as const }],
    ['suspended', { status: 'suspended' as const }],
    ['revoked', { status: 'revoked' as const }],
    ['cancelled', { status: 'cancelled' as const }],
  ])(
    'deactivating works on a license that is %s, so a customer can free a slot',
    (_, overrides) => {
      const state = license({ ...overrides, activations: [activation('a.com')] });
      expect(deactivate(state, { identifier: 'a.com' }).ok).toBe(true);
    },
  );
});
