import {
  checkIdentifier,
  identifierKey,
  normaliseIdentifier,
} from '../../libs/identifier/index.js';

describe('spec 2.4 identifier normalisation', () => {
  describe('domain: scheme, leading www., port and path are stripped, then lowercased', () => {
    test.each([
      ['example.com', 'example.com'],
      ['https://example.com', 'example.com'],
      ['http://www.example.com/', 'example.com'],
      ['HTTPS://WWW.Example.COM:8443/shop/?a=1#top', 'example.com'],
      ['www.example.com:8080', 'example.com'],
      ['Example.com/path/to/page', 'example.com'],
      ['ftp://user:secret@www.example.org/x', 'example.org'],
      ['//www.example.net/x', 'example.net'],
      ['  https://shop.example.com  ', 'shop.example.com'],
      ['sub.www.example.com', 'sub.www.example.com'],
      ['http://[2001:DB8::1]:8080/x', '[2001:db8::1]'],
      ['localhost:3000', 'localhost'],
      ['https://example.com /x', 'example.com'],
      ['https:/example.com/x', 'example.com'],
      ['http:example.com', 'example.com'],
      ['httpsite.com', 'httpsite.com'],
    ])('%s → %s', (raw, expected) => {
      expect(normaliseIdentifier('domain', raw)).toBe(expected);
    });

    test.each([
      'https://',
      'http://www.',
      'www.',
      ':8080',
      '/path',
      '   ',
      'exa mple.com',
      'https:/',
    ])('a domain that normalises to nothing (%j) is refused (null)', (raw) => {
      expect(normaliseIdentifier('domain', raw)).toBeNull();
    });
  });

  describe('domain: every spelling of one host maps to one form (IDNA, ASCII stored)', () => {
    test.each([
      ['bücher.de', 'xn--bcher-kva.de'],
      ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
      ['https://www.Bücher.de/shop', 'xn--bcher-kva.de'],
      ['XN--BCHER-KVA.DE', 'xn--bcher-kva.de'],
      ['example.com.', 'example.com'],
      ['https://www.example.com.:443/', 'example.com'],
      ['\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com', 'example.com'],
      ['\uff37\uff37\uff37.example.com', 'example.com'],
      ['a\u3002b.com', 'a.b.com'],
      ['faß.de', 'xn--fa-hia.de'],
      ['127.0.0.1', '127.0.0.1'],
      ['http://192.168.1.10:8080/wp', '192.168.1.10'],
      ['[2001:DB8:0::1]', '[2001:db8::1]'],
      ['2001:db8::1', '[2001:db8::1]'],
      ['a'.repeat(63) + '.com', 'a'.repeat(63) + '.com'],
    ])('%s → %s', (raw, expected) => {
      expect(normaliseIdentifier('domain', raw)).toBe(expected);
    });

    test('spellings of one site share one identifier', () => {
      const spellings = ['bücher.de', 'xn--bcher-kva.de', 'BÜCHER.DE.', 'https://www.bücher.de/'];
      expect(new Set(spellings.map((s) => normaliseIdentifier('domain', s)))).toEqual(
        new Set(['xn--bcher-kva.de']),
      );
    });
  });

  describe('domain: what is not a website is refused', () => {
    test.each([
      '.',
      '..',
      '-',
      'javascript:alert(1)',
      '<script>alert(1)<',
      'example.com:abc',
      '\u200b',
      '\u200bexample.com',
      'exam\u00adple.com',
      'exa\ufeffmple.com',
      'ex\u200dample.com',
      'exa\u202emple.com',
      'a..b.com',
      '-example.com',
      'example-.com',
      'under_score.com',
      'a'.repeat(64) + '.com',
      `${'a'.repeat(60)}.`.repeat(5) + 'com', // 308 characters
      'xn--zz.com',
      '[2001:db8::1]x',
      '[not-an-address]',
      '1.2.3.4.5',
    ])('%j is refused', (raw) => {
      expect(normaliseIdentifier('domain', raw)).toBeNull();
      expect(checkIdentifier('domain', raw)).toEqual({ problem: expect.any(String) });
    });

    test('invisible characters are named as the reason', () => {
      expect(checkIdentifier('domain', '\u200bexample.com')).toEqual({
        problem: expect.stringMatching(/invisible/),
      });
    });
  });

  describe('spec 2.3: at most 255 characters, measured on the normalised value', () => {
    test('a seat identifier that lower-casing lengthens past 255 characters is refused', () => {
      const raw = '\u0130'.repeat(200); // İ lower-cases to two code points
      expect(Array.from(raw)).toHaveLength(200);
      expect(checkIdentifier('seat', raw)).toEqual({
        problem: expect.stringMatching(/255 characters once normalised/),
      });
    });

    test('a normalised identifier of exactly 255 characters is kept', () => {
      const raw = 'A'.repeat(255);
      expect(normaliseIdentifier('seat', raw)).toBe('a'.repeat(255));
      expect(normaliseIdentifier('device', raw)).toBe(raw);
    });
  });

  describe('device and instance: trimmed only', () => {
    test.each(['device', 'instance'] as const)('%s keeps case, paths and schemes', (type) => {
      expect(normaliseIdentifier(type, '  MacBook-Pro/ABC:1  ')).toBe('MacBook-Pro/ABC:1');
      expect(normaliseIdentifier(type, 'https://www.X.com')).toBe('https://www.X.com');
    });
    test('white space only normalises to nothing', () => {
      expect(normaliseIdentifier('device', '   ')).toBeNull();
    });
  });

  describe('seat: lowercased', () => {
    test('an e-mail address is lowercased', () => {
      expect(normaliseIdentifier('seat', 'Jane.Doe@Example.COM')).toBe('jane.doe@example.com');
    });
  });

  describe('identifiers are compared case-insensitively', () => {
    test('identifiers differing only in letter case share one key', () => {
      expect(identifierKey('Device-ABC')).toBe(identifierKey('device-abc'));
      expect(identifierKey('Device-ABC')).not.toBe(identifierKey('device-abd'));
    });
  });
});
