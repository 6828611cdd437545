import type { ExpiryStrategy, ExpiryTerms, RenewalBasis } from '../../libs/contracts/index.js';
import { renewalExpiry } from '../../services/license/lifecycle/lifecycle-rules.js';
import {
  decideActivation,
  decideValidation,
} from '../../services/license/activations/activation-rules.js';
import { decideCheckout } from '../../services/license/activations/checkout-rules.js';
import { expiryStanding, graceEndsAt } from '../../services/license/lifecycle/expiry-rules.js';
import type { LicenseState, LicensedProduct } from '../../services/license/rules.js';

const DAY_MS = 86_400_000;
const expiresAt = new Date('2026-03-01T00:00:00.000Z');
const before = new Date(expiresAt.getTime() - DAY_MS);
const inGrace = new Date(expiresAt.getTime() + 2 * DAY_MS);
const afterGrace = new Date(expiresAt.getTime() + 30 * DAY_MS);
const graceEnd = new Date(expiresAt.getTime() + 7 * DAY_MS);

const terms = (expiry_strategy: ExpiryStrategy, grace_days = 7): ExpiryTerms => ({
  expiry_strategy,
  grace_days,
  renewal_basis: 'from_expiry',
});

function license(overrides: Partial<LicenseState & { lease_seconds: null }> = {}) {
  return {
    status: 'active' as const,
    lease_seconds: null,
    expires_at: expiresAt,
    activation_type: 'domain' as const,
    activation_limit: 5,
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

describe('expiry strategies: how a license stands against its expiry (expiryStanding)', () => {
  test('without terms, the spec: active before, expired and not valid after, no grace', () => {
    expect(expiryStanding(license(), before)).toMatchObject({ status: 'active', valid: true });
    expect(expiryStanding(license(), inGrace)).toEqual({
      status: 'expired',
      valid: false,
      use: 'expired',
      in_grace: false,
      grace_ends_at: null,
      updates_until: null,
      limitsVersions: false,
      usableUntil: expiresAt,
    });
    expect(expiryStanding(license({ status: 'expired' }), before).use).toBe('inactive');
  });

  test.each(['revoke', 'maintain', 'restrict'] as const)(
    '%s: within the grace days the license answers as active, in grace',
    (strategy) => {
      const standing = expiryStanding(license({ expiry: terms(strategy) }), inGrace);
      expect(standing).toMatchObject({
        status: 'active',
        valid: true,
        use: 'usable',
        in_grace: true,
        grace_ends_at: graceEnd,
        limitsVersions: false,
      });
      const ahead = expiryStanding(license({ expiry: terms(strategy) }), before);
      expect(ahead).toMatchObject({ in_grace: false, grace_ends_at: graceEnd, status: 'active' });
    },
  );

  test('past the grace: revoke expires, maintain keeps it valid and limits versions, restrict too but for existing activations only', () => {
    expect(expiryStanding(license({ expiry: terms('revoke') }), afterGrace)).toMatchObject({
      status: 'expired',
      valid: false,
      use: 'expired',
      updates_until: null,
      usableUntil: graceEnd,
    });
    expect(expiryStanding(license({ expiry: terms('maintain') }), afterGrace)).toMatchObject({
      status: 'expired',
      valid: true,
      use: 'usable',
      updates_until: expiresAt,
      limitsVersions: true,
      usableUntil: null,
    });
    expect(expiryStanding(license({ expiry: terms('restrict') }), afterGrace)).toMatchObject({
      status: 'expired',
      valid: true,
      use: 'existing-only',
      limitsVersions: true,
    });
  });

  test('a license stored expired by the task is past its grace; one without expiry is never limited', () => {
    const stored = license({ status: 'expired', expiry: terms('maintain') });
    expect(expiryStanding(stored, before)).toMatchObject({ valid: true, limitsVersions: true });
    const lifetime = license({ expires_at: null, expiry: terms('maintain') });
    expect(expiryStanding(lifetime, afterGrace)).toMatchObject({
      status: 'active',
      updates_until: null,
      grace_ends_at: null,
    });
    const suspended = license({ status: 'suspended', expiry: terms('maintain') });
    expect(expiryStanding(suspended, afterGrace)).toMatchObject({
      valid: false,
      use: 'inactive',
      updates_until: null,
    });
  });

  test('grace ends grace_days after the expiry; none without grace days or expiry', () => {
    expect(graceEndsAt(expiresAt, 7)).toEqual(graceEnd);
    expect(graceEndsAt(expiresAt, 0)).toBeNull();
    expect(graceEndsAt(null, 7)).toBeNull();
  });
});

describe('expiry strategies in activate, validate and license files', () => {
  const activate = (l: ReturnType<typeof license>, identifier: string, now: Date) =>
    decideActivation(l, product, { identifier, product_id: 10 }, now);
  const outcome = (d: ReturnType<typeof activate>) => (d.ok ? d.outcome : d.refusal.code);

  test('activate: revoke refuses past the grace, maintain activates, restrict keeps existing activations only', () => {
    expect(outcome(activate(license({ expiry: terms('revoke') }), 'new.example', inGrace))).toBe(
      'claim',
    );
    expect(outcome(activate(license({ expiry: terms('revoke') }), 'new.example', afterGrace))).toBe(
      'LICENSE_EXPIRED',
    );
    expect(
      outcome(activate(license({ expiry: terms('maintain') }), 'new.example', afterGrace)),
    ).toBe('claim');
    const restricted = activate(license({ expiry: terms('restrict') }), 'new.example', afterGrace);
    expect(restricted).toMatchObject({
      ok: false,
      refusal: { code: 'LICENSE_EXPIRED' },
      recordAttempt: { reason: 'expired', identifier: { identifier: 'new.example' } },
    });
    expect(
      outcome(activate(license({ expiry: terms('restrict') }), 'shop.example', afterGrace)),
    ).toBe('already-active');
  });

  test('validate: maintain and restrict answer valid and expired past the grace', () => {
    const report = (strategy: ExpiryStrategy, now: Date) =>
      decideValidation({
        license: license({ expiry: terms(strategy) }),
        product,
        request: { identifier: null, product_id: null },
        now,
      });
    expect(report('maintain', afterGrace)).toMatchObject({ status: 'expired', valid: true });
    expect(report('restrict', afterGrace)).toMatchObject({ status: 'expired', valid: true });
    expect(report('revoke', afterGrace)).toMatchObject({ status: 'expired', valid: false });
    expect(report('revoke', inGrace)).toMatchObject({ status: 'active', valid: true });
  });

  test('a license file lasts to the end of the grace on revoke, unbounded by the expiry on maintain', () => {
    const file = (strategy: ExpiryStrategy, now: Date) =>
      decideCheckout({
        license: license({ expiry: terms(strategy) }),
        product,
        request: { identifier: 'shop.example', product_id: 10, ttl_seconds: 30 * 86_400 },
        now,
      });
    const revoked = file('revoke', inGrace);
    expect(revoked.ok && revoked.lease.expiresAt).toEqual(graceEnd);
    const kept = file('maintain', afterGrace);
    expect(kept.ok && kept.lease.expiresAt).toEqual(new Date(afterGrace.getTime() + 30 * DAY_MS));
    expect(file('revoke', afterGrace)).toMatchObject({ ok: false });
  });
});

describe('renewal basis: where extend_days counts the new expiry from (renewalExpiry)', () => {
  const renew = (basis: RenewalBasis, old: Date | null, now: Date) =>
    renewalExpiry({ request: { extend_days: 30 }, expiresAt: old, basis, now });
  const plus30 = (date: Date) => new Date(date.getTime() + 30 * DAY_MS);

  test.each([
    ['from_expiry', before, expiresAt],
    ['from_expiry', afterGrace, expiresAt],
    ['from_now', before, before],
    ['from_now', afterGrace, afterGrace],
    ['from_now_if_expired', before, expiresAt],
    ['from_now_if_expired', afterGrace, afterGrace],
  ] as const)('%s at %s counts from %s', (basis, now, from) => {
    expect(renew(basis, expiresAt, now)).toEqual({ ok: true, expiresAt: plus30(from) });
  });

  test('a license without expiry counts from now; exactly one of expires_at and extend_days', () => {
    expect(renew('from_expiry', null, before)).toEqual({ ok: true, expiresAt: plus30(before) });
    const both = renewalExpiry({
      request: { extend_days: 1, expires_at: afterGrace },
      expiresAt,
      basis: 'from_expiry',
      now: before,
    });
    expect(both).toMatchObject({ ok: false, refusal: { code: 'INVALID_REQUEST' } });
    const neither = renewalExpiry({ request: {}, expiresAt, basis: 'from_now', now: before });
    expect(neither).toMatchObject({ ok: false, refusal: { code: 'INVALID_REQUEST' } });
    const sent = renewalExpiry({
      request: { expires_at: afterGrace },
      expiresAt,
      basis: 'from_now',
      now: before,
    });
    expect(sent).toEqual({ ok: true, expiresAt: afterGrace });
  });
});
