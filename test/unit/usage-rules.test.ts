import type { UsesReset } from '../../libs/contracts/index.js';
import type { LicenseState, LicensedProduct } from '../../services/license/rules.js';
import {
  NEVER_RESETS,
  checkUsage,
  decideUncounted,
  usagePeriodStart,
  usageResetsAt,
  usesInPeriod,
} from '../../services/license/usage/usage-rules.js';

const at = (iso: string) => new Date(iso);

describe('usagePeriodStart and usageResetsAt: periods in UTC', () => {
  test.each<[UsesReset, string, string, string | null]>([
    ['daily', '2026-06-01T12:00:00.000Z', '2026-06-01T00:00:00.000Z', '2026-06-02T00:00:00.000Z'],
    ['daily', '2026-06-30T23:59:59.999Z', '2026-06-30T00:00:00.000Z', '2026-07-01T00:00:00.000Z'],
    ['daily', '2026-12-31T00:00:00.000Z', '2026-12-31T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['monthly', '2026-06-15T08:00:00.000Z', '2026-06-01T00:00:00.000Z', '2026-07-01T00:00:00.000Z'],
    ['monthly', '2026-12-31T23:00:00.000Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['monthly', '2028-02-29T10:00:00.000Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
    ['never', '2026-06-15T08:00:00.000Z', '1970-01-01T00:00:00.000Z', null],
  ])('%s at %s: the period started at %s and ends at %s', (reset, now, start, end) => {
    expect(usagePeriodStart(reset, at(now)).toISOString()).toBe(start);
    expect(usageResetsAt(reset, at(now))?.toISOString() ?? null).toBe(end);
  });

  test('a time of day given with an offset is read in UTC', () => {
    const lateInUtc = at('2026-06-02T01:30:00+02:00');
    expect(usagePeriodStart('daily', lateInUtc).toISOString()).toBe('2026-06-01T00:00:00.000Z');
  });
});

describe('usesInPeriod: the stored uses count only in their own period', () => {
  const june1 = at('2026-06-01T00:00:00.000Z');
  test('the current period: the stored uses', () => {
    expect(usesInPeriod({ uses: 7, period_start: june1 }, new Date(june1))).toBe(7);
  });
  test('an earlier period, or none stored: 0', () => {
    expect(usesInPeriod({ uses: 7, period_start: at('2026-05-31T00:00:00.000Z') }, june1)).toBe(0);
    expect(usesInPeriod({ uses: 0, period_start: null }, NEVER_RESETS)).toBe(0);
  });
});

function license(overrides: Partial<LicenseState> = {}): LicenseState {
  return {
    status: 'active',
    expires_at: null,
    activation_type: 'device',
    activation_limit: 2,
    activations: [{ identifier: 'laptop', identifier_key: 'laptop' }],
    activations_used: 1,
    activations_bytes: 0,
    exempt_identifiers: [],
    exempt_limit: 3,
    exempt_used: 0,
    ...overrides,
  };
}
const product: LicensedProduct = { id: 10, title: 'Plugin', bundle_items: [] };
const metered = { max_uses: 50, uses_reset: 'daily' as const };
const now = at('2026-06-01T12:00:00.000Z');

describe('checkUsage: refused as activate refuses, then the identifier, then the plan', () => {
  const check = (
    overrides: {
      license?: LicenseState | null;
      plan?: { max_uses: number | null; uses_reset: UsesReset };
      identifier?: string | null;
      product_id?: number;
    } = {},
  ) => {
    const decision = checkUsage({
      license: overrides.license === undefined ? license() : overrides.license,
      product,
      plan: overrides.plan ?? metered,
      request: { identifier: overrides.identifier ?? null, product_id: overrides.product_id ?? 10 },
      now,
    });
    return decision.ok
      ? { maxUses: decision.maxUses, reset: decision.reset }
      : decision.refusal.code;
  };

  test('a usable license of a plan with a cap: its cap and period', () => {
    expect(check()).toEqual({ maxUses: 50, reset: 'daily' });
    expect(check({ identifier: 'LAPTOP' })).toEqual({ maxUses: 50, reset: 'daily' });
  });

  test('in the order of spec 4.1, each before the next', () => {
    const expired = { expires_at: at('2026-05-01T00:00:00.000Z') };
    expect(check({ license: null })).toBe('LICENSE_INVALID');
    expect(check({ license: license({ status: 'suspended', ...expired }), product_id: 11 })).toBe(
      'LICENSE_INVALID',
    );
    expect(check({ license: license(expired), product_id: 11 })).toBe('PRODUCT_MISMATCH');
    expect(check({ license: license(expired), identifier: 'desktop' })).toBe('LICENSE_EXPIRED');
    expect(check({ identifier: 'desktop', plan: { max_uses: null, uses_reset: 'never' } })).toBe(
      'ACTIVATION_NOT_FOUND',
    );
    expect(check({ plan: { max_uses: null, uses_reset: 'never' } })).toBe('INVALID_REQUEST');
  });

  test('an identifier that normalises to nothing is INVALID_REQUEST, as activate says', () => {
    expect(check({ license: license({ activation_type: 'domain' }), identifier: '...' })).toBe(
      'INVALID_REQUEST',
    );
  });
});

describe('decideUncounted: why the conditional write took nothing', () => {
  const june1 = at('2026-06-01T00:00:00.000Z');
  const decide = (
    stored: { uses: number; period_start: Date | null },
    seen: boolean,
    increment = 1,
  ) => decideUncounted({ stored, seen, periodStart: june1, increment, maxUses: 50 });

  test('a key counted already: the uses as they are now', () => {
    expect(decide({ uses: 12, period_start: june1 }, true)).toEqual({
      outcome: 'repeated',
      uses: 12,
    });
    expect(decide({ uses: 12, period_start: at('2026-05-31T00:00:00.000Z') }, true)).toEqual({
      outcome: 'repeated',
      uses: 0,
    });
  });

  test('no room left in the period: USAGE_LIMIT_REACHED with the uses and the cap', () => {
    const decision = decide({ uses: 48, period_start: june1 }, false, 3);
    expect(decision).toMatchObject({
      outcome: 'limit',
      uses: 48,
      refusal: { code: 'USAGE_LIMIT_REACHED', details: { uses: 48, max_uses: 50 } },
    });
    expect(decide({ uses: 0, period_start: null }, false, 51)).toMatchObject({ outcome: 'limit' });
  });

  test('room left: the counter changed meanwhile, so the write is tried again', () => {
    expect(decide({ uses: 47, period_start: june1 }, false, 3)).toEqual({ outcome: 'retry' });
    expect(decide({ uses: 50, period_start: at('2026-05-31T00:00:00.000Z') }, false)).toEqual({
      outcome: 'retry',
    });
  });
});
