import {
  DEFAULT_EXEMPT_LIMIT,
  ExemptLimit,
  LeaseSeconds,
  MAX_EXEMPT_LIMIT,
  MAX_LEASE_SECONDS,
} from '../../libs/contracts/index.js';
import { durationWords, leaseWords } from '../../libs/web/ui/words.js';
import {
  NEW_PLAN_TERMS,
  isExemptLimit,
  isLease,
  termsBody,
  termsDraftOf,
} from '../../services/management/console/plan-terms.js';

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
      }),
    ).toEqual({
      lease_seconds: 3600,
      exempt_identifiers: ['*.test', 'staging.*'],
      exempt_limit: 2,
    });
    expect(termsBody(NEW_PLAN_TERMS)).toEqual({
      lease_seconds: null,
      exempt_identifiers: [],
      exempt_limit: DEFAULT_EXEMPT_LIMIT,
    });
    const plan = {
      lease_seconds: 60,
      exempt_identifiers: ['localhost', '*.test'],
      exempt_limit: 0,
    };
    expect(termsBody(termsDraftOf(plan))).toEqual(plan);
  });

  test('a lease or exempt limit out of the API bounds cannot be sent', () => {
    expect(['', '1', String(MAX_LEASE_SECONDS)].every(isLease)).toBe(true);
    expect(['0', '1.5', '-1', 'x', String(MAX_LEASE_SECONDS + 1)].some(isLease)).toBe(false);
    expect(['0', '3', '1000000'].every(isExemptLimit)).toBe(true);
    expect(['', '-1', '2.5', '1000001'].some(isExemptLimit)).toBe(false);
  });
});
