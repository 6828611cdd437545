import { identifierKey, normaliseIdentifier } from '../../libs/identifier/index.js';

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
