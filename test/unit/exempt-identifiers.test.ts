import { createSchema } from 'zod-openapi';
import {
  CreatePlanRequest,
  DEFAULT_EXEMPT_LIMIT,
  UpdatePlanRequest,
  ExemptIdentifierPattern,
  ExemptIdentifiers,
  ExemptLimit,
  MAX_EXEMPT_IDENTIFIERS,
  activationTypes,
  checkExemptPattern,
  type ActivationType,
} from '../../libs/contracts/index.js';
import {
  exemptPatternProblem,
  isExemptIdentifier,
  matchingExemptPattern,
} from '../../services/license/activations/exempt-rules.js';

/** The refusal message of a pattern, or null when it is accepted. */
function refusalOf(raw: string): string | null {
  const parsed = ExemptIdentifierPattern.safeParse(raw);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'no message');
}

const exempt = (activationType: ActivationType, pattern: string, identifier: string) =>
  isExemptIdentifier({ patterns: [pattern], identifier, activationType });

describe('exempt identifier patterns: accepted, stored trimmed and lowercased', () => {
  test.each([
    ['localhost', 'localhost', 'exact'],
    ['  LocalHost  ', 'localhost', 'exact'],
    ['127.0.0.1', '127.0.0.1', 'exact'],
    ['[::1]', '[::1]', 'exact'],
    ['QA@Example.COM', 'qa@example.com', 'exact'],
    ['MacBook-Pro/ABC:1', 'macbook-pro/abc:1', 'exact'],
    ['*.test', '*.test', 'leading'],
    ['*.Staging.Example.COM', '*.staging.example.com', 'leading'],
    ['\t*.local\n', '*.local', 'leading'],
    ['staging.*', 'staging.*', 'trailing'],
    ['DEV.*', 'dev.*', 'trailing'],
    ['192.168.*', '192.168.*', 'trailing'],
    ['*@example.com', '*@example.com', 'local-part'],
    ['*@Example.COM', '*@example.com', 'local-part'],
    ['a'.repeat(255), 'a'.repeat(255), 'exact'],
    [`*.${'a'.repeat(253)}`, `*.${'a'.repeat(253)}`, 'leading'],
  ])('%j is stored as %j (%s)', (raw, stored, kind) => {
    expect(ExemptIdentifierPattern.parse(raw)).toBe(stored);
    expect(checkExemptPattern(raw)).toEqual({
      pattern: stored,
      form: expect.objectContaining({ kind }),
    });
  });
});

describe('exempt identifier patterns: refused, naming the pattern and why', () => {
  test.each([
    // Would match every identifier, or names none.
    ['', /^"" is empty/],
    ['   ', /^"" is empty/],
    ['*', /^"\*" would match every identifier/],
    ['*.*', /^"\*\.\*" would match every identifier/],
    ['**', /^"\*\*" would match every identifier/],
    ['*.', /^"\*\." would match every identifier/],
    ['.*', /^"\.\*" would match every identifier/],
    ['*@*', /^"\*@\*" would match every identifier/],
    ['*@', /^"\*@" would match every identifier/],
    ['.', /^"\." names no label/],
    ['...', /^"\.\.\." names no label/],
    // Not one of the forms.
    ['sh*p.test', /^"sh\*p\.test" has a \* inside a label/],
    ['*test', /^"\*test" has a \* inside a label/],
    ['test*', /^"test\*" has a \* inside a label/],
    ['*-dev.example.com', /^"\*-dev\.example\.com" has a \* inside a label/],
    ['shop.*.test', /^"shop\.\*\.test" has a \* inside a label/],
    ['qa+*@example.com', /^"qa\+\*@example\.com" has a \* inside a label/],
    ['**.test', /^"\*\*\.test" has more than one \*/],
    ['*.test.*', /^"\*\.test\.\*" has more than one \*/],
    ['*.*.test', /^"\*\.\*\.test" has more than one \*/],
    ['*@*.example.com', /^"\*@\*\.example\.com" has more than one \*/],
    ['*@a@example.com', /^"\*@a@example\.com" has more than one @ after \*@/],
    ['.test', /^"\.test" has an empty label/],
    ['test.', /^"test\." has an empty label/],
    ['a..test', /^"a\.\.test" has an empty label/],
    ['*..test', /^"\*\.\.test" has an empty label/],
    ['staging..*', /^"staging\.\.\*" has an empty label/],
    ['*@example..com', /^"\*@example\.\.com" has an empty label/],
    // Characters.
    ['shop test', /^"shop test" contains white space/],
    ['*.my\tsite', /^"\*\.my\\u0009site" contains white space/],
    ['local\u00a0host', /contains white space/],
    ['\u200blocalhost', /^"\\u200blocalhost" contains invisible or control characters/],
    ['local\u0000host', /^"local\\u0000host" contains invisible or control characters/],
    ['a'.repeat(256), /^"a{40}…" is over 255 characters/],
    // Lower-casing lengthens İ to two characters: measured as stored.
    ['\u0130'.repeat(128), /is over 255 characters/],
  ])('%j is refused: %s', (raw, message) => {
    expect(refusalOf(raw)).toMatch(message);
    expect(checkExemptPattern(raw)).toEqual({ problem: expect.stringMatching(message) });
  });

  test('every refusal says what is allowed or what is wrong, not only that it is invalid', () => {
    expect(refusalOf('sh*p.test')).toMatch(/\*\.test.*staging\.\*.*\*@example\.com/);
  });
});

describe('exempt_identifiers: the list', () => {
  test('a new plan has no patterns unless given; a change of a plan leaves them unless sent', () => {
    const plan = { name: 'P', activation_type: 'domain', activation_limit: 1 };
    expect(CreatePlanRequest.parse(plan).exempt_identifiers).toEqual([]);
    expect(UpdatePlanRequest.parse({ id: 1, name: 'Q' })).toEqual({ id: 1, name: 'Q' });
  });

  test('patterns equal once normalised are kept once, in the order first sent', () => {
    expect(ExemptIdentifiers.parse(['*.TEST', 'localhost', ' *.test ', 'LOCALHOST'])).toEqual([
      '*.test',
      'localhost',
    ]);
  });

  test(`holds at most ${MAX_EXEMPT_IDENTIFIERS} patterns`, () => {
    const patterns = Array.from({ length: MAX_EXEMPT_IDENTIFIERS + 1 }, (_, i) => `site${i}.test`);
    expect(ExemptIdentifiers.parse(patterns.slice(0, -1))).toHaveLength(MAX_EXEMPT_IDENTIFIERS);
    const parsed = ExemptIdentifiers.safeParse(patterns);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('must hold at most 20 patterns');
  });

  test('a refused pattern is named by its place in the list', () => {
    const parsed = ExemptIdentifiers.safeParse(['localhost', '*']);
    expect(parsed.error?.issues[0]).toEqual(
      expect.objectContaining({ path: [1], message: expect.stringMatching(/^"\*" would match/) }),
    );
  });

  test('documents itself in OpenAPI, as request and as response', () => {
    for (const io of ['input', 'output'] as const) {
      expect(createSchema(ExemptIdentifiers, { io }).schema).toEqual(
        expect.objectContaining({
          type: 'array',
          maxItems: MAX_EXEMPT_IDENTIFIERS,
          description: expect.stringMatching(/at most 20/),
          items: expect.objectContaining({ type: 'string', description: expect.any(String) }),
        }),
      );
    }
  });
});

describe('exempt_limit', () => {
  test(`a new plan has ${DEFAULT_EXEMPT_LIMIT} unless given; a change of a plan leaves it unless sent`, () => {
    const plan = { name: 'P', activation_type: 'domain', activation_limit: 1 };
    expect(CreatePlanRequest.parse(plan).exempt_limit).toBe(3);
    expect(UpdatePlanRequest.parse({ id: 1, lease_seconds: 60 })).toEqual({
      id: 1,
      lease_seconds: 60,
    });
  });
  test.each([0, 1, 3, 1_000_000])('%d is accepted', (limit) => {
    expect(ExemptLimit.parse(limit)).toBe(limit);
  });
  test.each([-1, 1.5, 1_000_001, '3', null])('%j is refused', (limit) => {
    expect(ExemptLimit.safeParse(limit).success).toBe(false);
  });
  test('documents that 0 means none, not unlimited', () => {
    expect(createSchema(ExemptLimit, { io: 'input' }).schema).toEqual(
      expect.objectContaining({
        type: 'integer',
        minimum: 0,
        description: expect.stringMatching(/0 means none/),
      }),
    );
  });
});

describe('matching: domain (normalised host, spec 2.4)', () => {
  test.each([
    // Exact.
    ['localhost', 'localhost', true],
    ['localhost', 'localhost.example.com', false],
    ['localhost', 'mylocalhost', false],
    ['127.0.0.1', '127.0.0.1', true],
    // `*.suffix`: one or more whole labels before the suffix.
    ['*.test', 'shop.test', true],
    ['*.test', 'a.b.test', true],
    ['*.test', 'test', false],
    ['*.test', 'evil-test', false],
    ['*.test', 'eviltest', false],
    ['*.test', 'shop.test.evil.com', false],
    ['*.test', 'shop.testing', false],
    ['*.staging.example.com', 'shop.staging.example.com', true],
    ['*.staging.example.com', 'staging.example.com', false],
    ['*.staging.example.com', 'shop.mystaging.example.com', false],
    ['*.staging.example.com', 'example.com', false],
    // `prefix.*`: one or more whole labels after the prefix.
    ['staging.*', 'staging.shop.example', true],
    ['staging.*', 'staging.x', true],
    ['dev.*', 'dev.anything', true],
    ['staging.*', 'staging', false],
    ['staging.*', 'mystaging.shop', false],
    ['staging.*', 'staging-shop.example', false],
    ['staging.*', 'shop.staging.example', false],
    ['192.168.*', '192.168.1.10', true],
    ['192.168.*', '192.169.1.10', false],
    // The address form is for seats: a site never has a local part.
    ['*@example.com', 'example.com', false],
  ])('%j vs %j: %s', (pattern, identifier, expected) => {
    expect(exempt('domain', pattern, identifier)).toBe(expected);
  });
});

describe('matching: device and instance (trimmed only, compared case-insensitively)', () => {
  test.each(['device', 'instance'] as const)('%s', (type) => {
    expect(exempt(type, 'build-agent', 'Build-Agent')).toBe(true);
    expect(exempt(type, 'build-agent', 'build-agent-2')).toBe(false);
    expect(exempt(type, '*.local', 'MacBook-Pro.LOCAL')).toBe(true);
    expect(exempt(type, '*.local', 'ci.runner.local')).toBe(true);
    expect(exempt(type, '*.local', 'local')).toBe(false);
    expect(exempt(type, '*.local', 'macbook-local')).toBe(false);
    expect(exempt(type, 'ci.*', 'CI.runner-7')).toBe(true);
    expect(exempt(type, 'ci.*', 'ci')).toBe(false);
    expect(exempt(type, 'ci.*', 'circle.runner')).toBe(false);
    // A * stands for whole labels, none of them empty.
    expect(exempt(type, '*.local', '.local')).toBe(false);
    expect(exempt(type, '*.local', 'a..local')).toBe(false);
    expect(exempt(type, 'ci.*', 'ci.')).toBe(false);
    expect(exempt(type, 'ci.*', 'ci.runner.')).toBe(false);
    // The address form is for seats.
    expect(exempt(type, '*@example.com', 'qa@example.com')).toBe(false);
  });
});

describe('matching: upper case is matched case-insensitively, whatever the type', () => {
  test.each([
    ['domain', '*.test', 'SHOP.TEST'],
    ['domain', 'staging.*', 'Staging.Shop.Example'],
    ['domain', 'localhost', 'LOCALHOST'],
    ['device', 'ci.*', 'CI.RUNNER'],
    ['instance', 'i-0abc', 'I-0ABC'],
    ['seat', '*@example.com', 'QA@EXAMPLE.COM'],
    ['seat', 'qa@example.com', 'QA@Example.com'],
  ] as const)('%s: %j matches %j', (type, pattern, identifier) => {
    expect(exempt(type, pattern, identifier)).toBe(true);
  });

  test('a pattern stored in another case (not normalised) still matches', () => {
    expect(exempt('device', 'Build-Agent', 'build-agent')).toBe(true);
    expect(exempt('device', ' *.LOCAL ', 'mac.local')).toBe(true);
  });
});

describe('matching: seat (e-mail addresses, lowercased)', () => {
  test.each([
    ['*@example.com', 'anyone@example.com', true],
    ['*@example.com', 'first.last+tag@example.com', true],
    ['*@example.com', '@example.com', false],
    ['*@example.com', 'example.com', false],
    ['*@example.com', 'myexample.com', false],
    ['*@example.com', 'anyone@sub.example.com', false],
    ['*@example.com', 'anyone@myexample.com', false],
    ['*@example.com', 'anyone@example.com.evil', false],
    ['*@example.com', 'anyone@example.community', false],
    ['*@example.com', 'a@b@example.com', false],
    ['qa@example.com', 'qa@example.com', true],
    ['qa@example.com', 'qa2@example.com', false],
    // Label wildcards are not for addresses: a local part may hold dots.
    ['*.test', 'anyone@shop.test', false],
    ['*.example.com', 'jane.doe@staging.example.com', false],
    ['jane.*', 'jane.doe@example.com', false],
  ])('%j vs %j: %s', (pattern, identifier, expected) => {
    expect(exempt('seat', pattern, identifier)).toBe(expected);
  });
});

describe('a pattern never matches everything', () => {
  const unrelated: Record<ActivationType, string[]> = {
    domain: [
      'example.com',
      'shop.example.org',
      'a.b.c.example.net',
      '203.0.113.7',
      '[2001:db8::1]',
    ],
    device: ['macbook-pro', 'DESKTOP-1234', 'phone.home.lan', 'a@b', '*'],
    seat: ['jane@example.org', 'bob@shop.example.net', 'x@y', 'localhost.test', 'staging.x'],
    instance: ['i-0abc123', 'pod-7f9c.cluster', 'node-1'],
  };
  const accepted = [
    'localhost',
    '*.test',
    '*.local',
    '*.staging.example.com',
    'staging.*',
    'dev.*',
    '*@example.com',
    '*@staging.example.com',
  ];

  test.each(activationTypes)('no accepted pattern matches unrelated %s identifiers', (type) => {
    for (const identifier of unrelated[type]) {
      expect(
        matchingExemptPattern({ patterns: accepted, identifier, activationType: type }),
      ).toBeNull();
    }
  });

  test.each(['*', '*.*', '**', '', 'sh*p.test', '*@*', 'a..b'])(
    'a refused pattern (%j) matches nothing, even when stored anyway',
    (pattern) => {
      for (const type of activationTypes) {
        for (const identifier of [...unrelated[type], 'shop.test', 'a.b', 'x@y', '*', '']) {
          expect(
            isExemptIdentifier({ patterns: [pattern], identifier, activationType: type }),
          ).toBe(false);
        }
      }
    },
  );

  test('no patterns, nothing exempt', () => {
    expect(
      isExemptIdentifier({ patterns: [], identifier: 'localhost', activationType: 'domain' }),
    ).toBe(false);
  });

  test('the first pattern that matches is named, in its stored form', () => {
    expect(
      matchingExemptPattern({
        patterns: ['localhost', ' *.TEST ', 'shop.*'],
        identifier: 'shop.test',
        activationType: 'domain',
      }),
    ).toBe('*.test');
  });
});

describe('patterns a plan of a type refuses, since they could never match there', () => {
  test.each([
    ['domain', 'localhost'],
    ['domain', '*.test'],
    ['domain', 'staging.*'],
    ['domain', '*.xn--bcher-kva.de'],
    ['domain', '192.168.*'],
    ['domain', '[::1]'],
    ['device', '*.local'],
    ['device', 'MacBook-Pro/ABC:1'],
    ['instance', 'ci.*'],
    ['seat', '*@example.com'],
    ['seat', 'qa@example.com'],
  ] as const)('%s: %j is accepted', (type, pattern) => {
    expect(exemptPatternProblem(type, pattern)).toBeNull();
  });

  test.each([
    ['seat', '*.test', /^"\*\.test" cannot match an e-mail address.*\*@example\.com/],
    ['seat', 'staging.*', /^"staging\.\*" cannot match an e-mail address/],
    ['domain', '*@example.com', /^"\*@example\.com" is for seat plans/],
    ['device', '*@example.com', /^"\*@example\.com" is for seat plans/],
    ['instance', '*@example.com', /is for seat plans/],
    [
      'domain',
      'www.example.com',
      /^"www\.example\.com" never matches a website.*write "example\.com"/,
    ],
    ['domain', 'www.*', /^"www\.\*" never matches a website.*form$/],
    ['domain', 'https://shop.test', /never matches a website.*write "shop\.test"/],
    ['domain', 'shop.test:8080', /never matches a website.*write "shop\.test"/],
    ['domain', '*.bücher.de', /never matches a website.*write "\*\.xn--bcher-kva\.de"/],
    ['domain', 'bücher.*', /never matches a website.*write "xn--bcher-kva\.\*"/],
    ['domain', 'under_score.*', /^"under_score\.\*" cannot match any website/],
    ['domain', '*.0.0.1', /cannot match any website/],
    ['device', 'sh*p', /has a \* inside a label/],
  ] as const)('%s: %j is refused: %s', (type, pattern, message) => {
    expect(exemptPatternProblem(type, pattern)).toMatch(message);
  });
});
