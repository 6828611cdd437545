import {
  DEFAULT_EXEMPT_LIMIT,
  ExemptLimit,
  LeaseSeconds,
  MAX_EXEMPT_LIMIT,
  MAX_LEASE_SECONDS,
} from '../../libs/contracts/index.js';
import { durationWords, leaseWords } from '../../libs/web/ui/words.js';
import {
  REFUSAL_MEANINGS,
  addRefusalWords,
  overLimitNote,
  planChangeConsequences,
  planChangeEffectsOf,
  planChoiceWords,
  refusalMeaning,
  rejectionWords,
} from '../../services/management/console/shared/words/license-words.js';
import {
  NEW_PLAN_TERMS,
  isExemptLimit,
  isLease,
  isTrialDays,
  termsBody,
  termsDraftOf,
} from '../../services/management/console/pages/catalog/plan-terms.js';

describe("the web pages' words for leases, and the console's plan form", () => {
  test('the bounds the pages use are those the API checks', () => {
    expect(ExemptLimit.safeParse(MAX_EXEMPT_LIMIT).success).toBe(true);
    expect(ExemptLimit.safeParse(MAX_EXEMPT_LIMIT + 1).success).toBe(false);
    expect(LeaseSeconds.safeParse(MAX_LEASE_SECONDS).success).toBe(true);
    expect(LeaseSeconds.safeParse(MAX_LEASE_SECONDS + 1).success).toBe(false);
  });

  test('a lease is said exactly, in the largest units, with its seconds once past a minute', () => {
    expect(durationWords(1)).toBe('1 second');
    expect(durationWords(90)).toBe('1 minute 30 seconds');
    expect(durationWords(3600)).toBe('1 hour');
    expect(durationWords(129_600)).toBe('1 day 12 hours');
    expect(leaseWords(45)).toBe('45 seconds');
    expect(leaseWords(3600)).toBe('1 hour (3600 s)');
  });

  test('the plan form sends the lease (empty: none), the patterns one a line, and the limit', () => {
    expect(
      termsBody({
        lease: '3600',
        exemptIdentifiers: ' *.test \r\n\nstaging.*\n',
        exemptLimit: '2',
        trialDays: '14',
      }),
    ).toEqual({
      lease_seconds: 3600,
      exempt_identifiers: ['*.test', 'staging.*'],
      exempt_limit: 2,
      trial_days: 14,
    });
    expect(termsBody(NEW_PLAN_TERMS)).toEqual({
      lease_seconds: null,
      exempt_identifiers: [],
      exempt_limit: DEFAULT_EXEMPT_LIMIT,
      trial_days: null,
    });
    const plan = {
      lease_seconds: 60,
      exempt_identifiers: ['localhost', '*.test'],
      exempt_limit: 0,
      trial_days: 30,
    };
    expect(termsBody(termsDraftOf(plan))).toEqual(plan);
  });

  test('a lease or exempt limit out of the API bounds cannot be sent', () => {
    expect(['', '1', String(MAX_LEASE_SECONDS)].every(isLease)).toBe(true);
    expect(['0', '1.5', '-1', 'x', String(MAX_LEASE_SECONDS + 1)].some(isLease)).toBe(false);
    expect(['0', '3', '1000000'].every(isExemptLimit)).toBe(true);
    expect(['', '-1', '2.5', '1000001'].some(isExemptLimit)).toBe(false);
    expect(['', '1', '365'].every(isTrialDays)).toBe(true);
    expect(['0', '366', '1.5', 'x'].some(isTrialDays)).toBe(false);
  });
});

describe("the console's words for a license's changes and refusals", () => {
  const sixInstances = {
    plan_id: 2,
    plan: 'Single site',
    activation_type: 'instance' as const,
    new_activation_type: 'domain' as const,
    type_changes: true,
    activation_limit: 0,
    new_activation_limit: 1,
    activations_used: 6,
    activations_over_limit: 5,
  };

  test('a plan in a chooser is said with its type and limit', () => {
    expect(
      planChoiceWords({ name: 'Single site', activation_type: 'domain', activation_limit: 1 }),
    ).toBe('Single site (domain, limit 1)');
    expect(
      planChoiceWords({ name: 'Fleet', activation_type: 'instance', activation_limit: 0 }),
    ).toBe('Fleet (instance, unlimited)');
  });

  test('a plan change that needs confirming says how many activations stay over the limit and how the type changes', () => {
    expect(planChangeEffectsOf(sixInstances)).toEqual(sixInstances);
    expect(planChangeEffectsOf({ ...sixInstances, type_changes: 'yes' })).toBeNull();
    expect(planChangeConsequences(sixInstances)).toEqual([
      'The license has 6 activations and Single site allows 1. All 6 stay, 5 over the limit, ' +
        'and no new activation is accepted until 5 are removed.',
      'Its activation type changes from instance to domain: what is activated stays as it was ' +
        'taken (as instances), and new activations are taken as websites.',
    ]);
    expect(
      planChangeConsequences({ ...sixInstances, type_changes: false, activations_over_limit: 0 }),
    ).toEqual([]);
    expect(overLimitNote({ activation_limit: 1, activations_used: 6 })).toBe(
      ' (5 over the limit: no new activation until 5 are removed)',
    );
    expect(overLimitNote({ activation_limit: 0, activations_used: 6 })).toBe('');
  });

  test('a rejected attempt says why it was refused, and when it was an Add in the console', () => {
    expect(rejectionWords({ reason: 'limit_reached', source: 'api' })).toBe(
      'Full: every activation slot was in use',
    );
    expect(rejectionWords({ reason: 'expired', source: 'admin' })).toBe(
      'Expired: the license had expired (an Add in this console)',
    );
    expect(rejectionWords({ reason: null, source: null })).toMatch(/before reasons were kept/);
  });

  test("an Add refused for the license's state says what to do, not what an API client is told", () => {
    const revoked = addRefusalWords('LICENSE_INVALID', { status: 'revoked', expires_at: null });
    expect(revoked).toBe(
      'This license is revoked, so no activation can be added, now or later. Issue a new ' +
        'license instead.',
    );
    expect(revoked).not.toMatch(/key is not valid/);
    expect(addRefusalWords('LICENSE_INVALID', { status: 'suspended', expires_at: null })).toMatch(
      /Set its status to Active/,
    );
    expect(addRefusalWords('LICENSE_EXPIRED', { status: 'active', expires_at: null })).toMatch(
      /has expired.*Renew it/,
    );
    expect(addRefusalWords('ACTIVATION_EXISTS', { status: 'active', expires_at: null })).toBeNull();
  });

  test('a refused download tells no key, an unknown key and a revoked license apart', () => {
    const invalid = { reason: 'LICENSE_INVALID' };
    expect(refusalMeaning({ ...invalid, license_key: null, license_status: null })).toBe(
      'No license key was sent.',
    );
    expect(refusalMeaning({ ...invalid, license_key: 'nope', license_status: 'invalid' })).toBe(
      'No license has this key.',
    );
    expect(refusalMeaning({ ...invalid, license_key: 'k', license_status: 'revoked' })).toBe(
      'The license is revoked.',
    );
    // Logged before the status was kept: every cause is named.
    expect(refusalMeaning({ ...invalid, license_key: 'k', license_status: null })).toBe(
      REFUSAL_MEANINGS.LICENSE_INVALID,
    );
    expect(
      refusalMeaning({ reason: 'LICENSE_EXPIRED', license_key: 'k', license_status: 'expired' }),
    ).toBe('The license has expired.');
  });
});
