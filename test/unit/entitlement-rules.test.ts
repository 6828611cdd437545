import {
  entitlementInUse,
  isLive,
  liveEntitlements,
  missingEntitlements,
  undefinedCodes,
} from '../../services/license/entitlements/entitlement-rules.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const at = (iso: string) => new Date(iso);

describe('live entitlements: the plan’s and the license’s own unexpired ones', () => {
  test('a license’s own entitlement is live until its expiry, exclusive; null never expires', () => {
    expect(isLive({ expires_at: null }, NOW)).toBe(true);
    expect(isLive({ expires_at: at('2026-06-01T12:00:00.001Z') }, NOW)).toBe(true);
    expect(isLive({ expires_at: NOW }, NOW)).toBe(false);
    expect(isLive({ expires_at: at('2020-01-01T00:00:00Z') }, NOW)).toBe(false);
  });

  test('the plan’s and the unexpired own ones, sorted, each once', () => {
    expect(
      liveEntitlements({
        planCodes: ['pro', 'addon-b'],
        grants: [
          { code: 'updates-3y', expires_at: at('2027-01-01T00:00:00Z') },
          { code: 'lapsed', expires_at: at('2025-01-01T00:00:00Z') },
          { code: 'pro', expires_at: null },
          { code: 'addon-a', expires_at: null },
        ],
        now: NOW,
      }),
    ).toEqual(['addon-a', 'addon-b', 'pro', 'updates-3y']);
  });

  test('a plan code stays live whatever the license’s own grant of it says', () => {
    expect(
      liveEntitlements({
        planCodes: ['pro'],
        grants: [{ code: 'pro', expires_at: at('2020-01-01T00:00:00Z') }],
        now: NOW,
      }),
    ).toEqual(['pro']);
  });

  test('none at all: an empty list', () => {
    expect(liveEntitlements({ planCodes: [], grants: [], now: NOW })).toEqual([]);
  });
});

describe('missing entitlements: those asked about that are not live', () => {
  test('sorted, each once; none asked, none missing', () => {
    expect(missingEntitlements(['a', 'c'], ['d', 'a', 'b', 'd'])).toEqual(['b', 'd']);
    expect(missingEntitlements(['a'], [])).toEqual([]);
    expect(missingEntitlements([], ['x'])).toEqual(['x']);
    expect(missingEntitlements(['a', 'b'], ['b', 'a'])).toEqual([]);
  });
});

describe('codes a plan or a license is given must be defined', () => {
  test('the undefined ones, in the order given', () => {
    expect(undefinedCodes(['z', 'a', 'm'], ['a'])).toEqual(['z', 'm']);
    expect(undefinedCodes(['a'], ['a', 'b'])).toEqual([]);
  });
});

describe('an entitlement in use is not deleted', () => {
  test('refused while a plan or a license grants it, with how many of each', () => {
    expect(entitlementInUse('pro', { plans: 0, licenses: 0 })).toBeNull();
    expect(entitlementInUse('pro', { plans: 2, licenses: 0 })).toMatchObject({
      code: 'ENTITLEMENT_IN_USE',
      details: { plans: 2, licenses: 0 },
    });
    expect(entitlementInUse('pro', { plans: 0, licenses: 1 })?.code).toBe('ENTITLEMENT_IN_USE');
  });
});
