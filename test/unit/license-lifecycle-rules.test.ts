import type { LicenseStatus } from '../../libs/contracts/index.js';
import {
  decidePlanChange,
  decideRenewal,
  statusAfterRenewal,
  type RenewableLicense,
  type RenewalDecision,
  type RenewalSource,
} from '../../services/license/lifecycle/lifecycle-rules.js';
import { identifierSearchKeys, searchText } from '../../services/license/rules.js';

const now = new Date('2026-06-01T12:00:00Z');
const later = new Date('2027-06-01T00:00:00Z');

function license(overrides: Partial<RenewableLicense> = {}): RenewableLicense {
  return { status: 'active', plan_id: 1, pending_plan_id: null, ...overrides };
}

const renew = (
  licenseOverrides: Partial<RenewableLicense>,
  source: RenewalSource,
  expiresAt = later,
): RenewalDecision =>
  decideRenewal({
    license: license(licenseOverrides),
    request: { source, expires_at: expiresAt },
    now,
  });

describe('spec 3.3 renewals: the status after a renewal (docs/api-decisions.md)', () => {
  test.each([
    ['expired', 'active'],
    ['active', 'active'],
    ['suspended', 'suspended'],
    ['revoked', null],
    ['cancelled', null],
  ] as const)('a license stored as %s becomes %s', (status, after) => {
    expect(statusAfterRenewal(status)).toBe(after);
  });
});

describe('spec 3.3 renewals: decideRenewal', () => {
  const sources: RenewalSource[] = ['checkout', 'gateway'];
  const renewable: Array<[LicenseStatus, LicenseStatus]> = [
    ['expired', 'active'],
    ['active', 'active'],
    ['suspended', 'suspended'],
  ];

  describe.each(sources)('%s renewal', (source) => {
    test.each(renewable)('a license stored as %s is renewed as %s', (status, after) => {
      expect(renew({ status }, source)).toMatchObject({ ok: true, status: after });
    });

    test.each(['revoked', 'cancelled'] as const)(
      'a %s license is refused with LICENSE_INVALID: a terminal state, a new license is issued',
      (status) => {
        expect(renew({ status }, source)).toEqual({
          ok: false,
          refusal: expect.objectContaining({ code: 'LICENSE_INVALID' }),
        });
      },
    );
  });

  test('checkout resets limit and type to the pending plan change when there is one', () => {
    expect(renew({ plan_id: 1, pending_plan_id: 2 }, 'checkout')).toMatchObject({ planId: 2 });
  });

  test("checkout resets limit and type to the license's own plan without a pending change", () => {
    expect(renew({ plan_id: 1, pending_plan_id: null }, 'checkout')).toMatchObject({ planId: 1 });
  });

  test('gateway leaves plan, limit, type and a pending change as they are', () => {
    expect(renew({ plan_id: 1, pending_plan_id: 2 }, 'gateway')).toEqual({
      ok: true,
      status: 'active',
      planId: null,
    });
  });

  describe('the new expiry date must be after now', () => {
    test.each([
      ['now itself', now],
      ['a date before now', new Date(now.getTime() - 1)],
    ])('%s is INVALID_REQUEST', (_, expiresAt) => {
      for (const source of sources) {
        expect(renew({}, source, expiresAt)).toEqual({
          ok: false,
          refusal: expect.objectContaining({ code: 'INVALID_REQUEST' }),
        });
      }
    });

    test('a millisecond after now is accepted', () => {
      expect(renew({}, 'gateway', new Date(now.getTime() + 1)).ok).toBe(true);
    });

    test('it is checked before the status: a revoked license with a past date is INVALID_REQUEST', () => {
      expect(renew({ status: 'revoked' }, 'checkout', now)).toMatchObject({
        refusal: { code: 'INVALID_REQUEST' },
      });
    });
  });
});

describe('plan changes: one that leaves activations over the new limit or changes the type is made only when confirmed (docs/api-decisions.md)', () => {
  const instances = { activation_type: 'instance' as const, activation_limit: 0 };
  const single = { id: 2, name: 'Single site', activation_type: 'domain' as const };
  const change = (used: number, plan: { activation_limit: number }, confirmed = false) =>
    decidePlanChange({
      license: { ...instances, activations_used: used },
      plan: { ...single, ...plan },
      confirmed,
    });

  test('six instance activations moved to one domain: refused with every fact of the change', () => {
    const decision = change(6, { activation_limit: 1 });
    expect(decision.ok).toBe(false);
    if (decision.ok) return;
    expect(decision.refusal.code).toBe('CONFIRMATION_REQUIRED');
    expect(decision.refusal.details).toEqual({
      plan_id: 2,
      plan: 'Single site',
      activation_type: 'instance',
      new_activation_type: 'domain',
      type_changes: true,
      activation_limit: 0,
      new_activation_limit: 1,
      activations_used: 6,
      activations_over_limit: 5,
    });
    expect(decision.refusal.message).toMatch(
      /leaves 6 activations on a limit of 1, 5 over it .* and changes the activation type from instance to domain/,
    );
  });

  test('confirmed, the same change is made, with the same facts', () => {
    expect(change(6, { activation_limit: 1 }, true)).toEqual({
      ok: true,
      effects: expect.objectContaining({ activations_over_limit: 5, type_changes: true }),
    });
  });

  test('a change of type alone needs confirming; activations within the limit do not', () => {
    const decision = change(1, { activation_limit: 3 });
    expect(!decision.ok && decision.refusal.details).toMatchObject({
      type_changes: true,
      activations_over_limit: 0,
    });
    expect(
      decidePlanChange({
        license: { activation_type: 'domain', activation_limit: 5, activations_used: 3 },
        plan: { ...single, activation_limit: 3 },
        confirmed: false,
      }),
    ).toMatchObject({ ok: true, effects: { activations_over_limit: 0, type_changes: false } });
  });

  test('an unlimited plan leaves no activation over its limit', () => {
    expect(
      decidePlanChange({
        license: { activation_type: 'domain', activation_limit: 1, activations_used: 40 },
        plan: { ...single, activation_limit: 0 },
        confirmed: false,
      }),
    ).toMatchObject({ ok: true, effects: { activations_over_limit: 0 } });
  });
});

describe('admin search: the text searched (spec 2.4 normalisation for comparison)', () => {
  test('a website address gives its domain form, and the other types their own', () => {
    expect(identifierSearchKeys('https://www.Shop.example/x').sort()).toEqual(
      ['shop.example', 'https://www.shop.example/x'].sort(),
    );
  });

  test('device and instance identifiers are trimmed, seats lower-cased, all compared by key', () => {
    expect(identifierSearchKeys('  PC-One  ')).toEqual(['pc-one']);
    expect(identifierSearchKeys('Ann@Example.com')).toContain('ann@example.com');
  });

  test('a type that cannot take the text adds no key', () => {
    // Not a website, but a valid device name.
    expect(identifierSearchKeys('my laptop')).toEqual(['my laptop']);
  });

  test('the key prefix is the text without surrounding white space', () => {
    expect(searchText(' 3f2a ')).toEqual({
      keyPrefix: '3f2a',
      identifierKeys: expect.arrayContaining(['3f2a']),
      customerEmail: null,
      exactTexts: [' 3f2a ', '3f2a'],
    });
  });
});
