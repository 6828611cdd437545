import { isPublicAddress, literalAddress } from '../../services/webhooks/address-rules.js';
import { destinationProblem, postWebhook } from '../../services/webhooks/destination.js';

/**
 * docs/webhooks.md, "Endpoints": a webhook goes to public addresses only, and no IPv6 form of
 * an IPv4 address reaches one the IPv4 rules refuse.
 */

const guarded = { allowPrivate: false };

describe('where webhooks may be sent', () => {
  test.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['fd00:ec2::254', false],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  test('a URL host is an address whatever way it was written, or a name', () => {
    expect(literalAddress(new URL('http://2130706433/').hostname)).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://0x7f.1/').hostname)).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://[::1]/').hostname)).toBe('::1');
    expect(literalAddress(new URL('http://[::127.0.0.1]/').hostname)).toBe('::7f00:1');
    expect(literalAddress(new URL('http://hooks.example/').hostname)).toBeNull();
  });
});

describe('IPv6 forms of IPv4 addresses', () => {
  // Each as a URL writes it (hex) and, where Node writes DNS answers otherwise, as Node does.
  const refused: Array<[form: string, address: string]> = [
    ['IPv4-mapped loopback', '::ffff:7f00:1'],
    ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped metadata', '::ffff:a9fe:a9fe'],
    ['IPv4-mapped private', '::ffff:a00:1'],
    ['IPv4-compatible loopback', '::7f00:1'],
    ['IPv4-compatible loopback, dotted', '::127.0.0.1'],
    ['IPv4-compatible metadata', '::a9fe:a9fe'],
    ['IPv4-compatible metadata, dotted', '::169.254.169.254'],
    ['IPv4-compatible private', '::a00:1'],
    ['IPv4-compatible public, refused outright', '::808:808'],
    ['IPv4-compatible public, dotted', '::8.8.8.8'],
    ['IPv4-translated (RFC 6145) loopback', '::ffff:0:7f00:1'],
    ['NAT64 well-known prefix, loopback', '64:ff9b::7f00:1'],
    ['NAT64 well-known prefix, metadata', '64:ff9b::a9fe:a9fe'],
    ['NAT64 well-known prefix, private', '64:ff9b::c0a8:101'],
    ['NAT64 local-use, loopback', '64:ff9b:1::7f00:1'],
    ['NAT64 local-use, public, refused outright', '64:ff9b:1:808:808::'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['6to4 of metadata', '2002:a9fe:a9fe::1'],
    ['6to4 of a public address, refused outright', '2002:808:808::1'],
    ['Teredo, client loopback (inverted)', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['Teredo, client metadata (inverted)', '2001:0:4136:e378:8000:63bf:5601:5601'],
    ['Teredo, client public, refused outright', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
  ];

  test.each(refused)('%s (%s) is refused among DNS answers', (_form, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  test.each(refused)('%s (%s) is refused at registration', async (_form, address) => {
    const problem = await destinationProblem(`http://[${address}]/hook`, guarded);
    expect(problem).toMatch(/not a public address/);
  });

  test.each(refused)(
    '%s (%s) is refused at an attempt, which sends nothing',
    async (_form, address) => {
      const outcome = await postWebhook(`http://[${address}]:9/hook`, {}, '{}', guarded);
      expect(outcome).toMatchObject({
        status: null,
        error: expect.stringMatching(/^refused: .* is not a public address/),
      });
    },
  );

  test.each([
    ['public IPv4', '93.184.215.14'],
    ['public IPv6', '2a00:1450:4001:80b::200e'],
    ['public IPv6 of a DNS service', '2606:4700:4700::1111'],
    ['IPv4-mapped public', '::ffff:5db8:d70e'],
    ['NAT64 well-known prefix of a public IPv4 (DNS64)', '64:ff9b::5db8:d70e'],
  ])('%s (%s) still passes', async (_form, address) => {
    expect(isPublicAddress(address)).toBe(true);
    const url = address.includes(':') ? `https://[${address}]/hook` : `https://${address}/hook`;
    expect(await destinationProblem(url, guarded)).toBeNull();
  });
});
