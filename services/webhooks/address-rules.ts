import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IPv6 blocks that carry an IPv4 address in their last 32 bits, and reach it: IPv4-mapped
 * (`::ffff:0:0/96`, a dual-stack socket connects to the IPv4 address) and NAT64's well-known
 * prefix (`64:ff9b::/96`, RFC 6052: a gateway translates to it; DNS64 answers it for names with
 * only an IPv4 address). Such an address is judged as the IPv4 address it carries.
 */
const CARRYING_IPV4 = ['::ffff:0:0/96', '64:ff9b::/96'].map((block) => ipaddr.parseCIDR(block));

/**
 * IPv6 blocks refused whatever they carry: IPv4-compatible (`::/96`, deprecated by RFC 4291,
 * which some stacks still route as IPv4), NAT64 local-use (`64:ff9b:1::/48`, RFC 8215: where its
 * IPv4 address lies depends on the local network's prefix), 6to4 (`2002::/16`, deprecated by
 * RFC 7526: a 6to4 router tunnels to the IPv4 address in bits 16 to 48) and Teredo
 * (`2001::/32`: a relay tunnels to the inverted IPv4 address in the last 32 bits). No receiver
 * needs one, and each can lead to an IPv4 address the checks above would refuse.
 */
const REFUSED_IPV6 = ['::/96', '64:ff9b:1::/48', '2002::/16', '2001::/32'].map((block) =>
  ipaddr.parseCIDR(block),
);

/**
 * An IPv6 address from its text, written first as a URL writes it (in hex): ipaddr.js reads the
 * dotted `::a.b.c.d` as IPv4-mapped, while it is the IPv4-compatible address, which is how Node
 * writes that address in its DNS answers.
 */
function parseIPv6(address: string): ipaddr.IPv6 {
  return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  if (CARRYING_IPV4.some((block) => address.match(block))) {
    return new ipaddr.IPv4(address.toByteArray().slice(12)).range() === 'unicast';
  }
  if (REFUSED_IPV6.some((block) => address.match(block))) return false;
  return address.range() === 'unicast';
}

/**
 * Whether a webhook may be sent to an IP address: only a public unicast one. Loopback, private
 * (RFC 1918, unique local), link-local (where cloud metadata services answer, 169.254.169.254),
 * carrier-grade NAT, unspecified, multicast, broadcast and reserved ranges are refused, as is
 * every IPv6 form of an IPv4 address (above). The ranges are ipaddr.js's: it names every
 * special-purpose block of the IANA registries.
 */
export function isPublicAddress(address: string): boolean {
  try {
    switch (isIP(address)) {
      case 4:
        return ipaddr.IPv4.parse(address).range() === 'unicast';
      case 6:
        return isPublicIPv6(parseIPv6(address));
      default:
        return false;
    }
  } catch {
    // An address no URL takes (one with a zone, `fe80::1%eth0`) is no public one.
    return false;
  }
}

/**
 * The IP address a URL's host is, or null for a name. A parsed URL writes every IPv4 form
 * (`2130706433`, `0x7f.1`) as four decimals and IPv6 in brackets, so no other form reaches here.
 */
export function literalAddress(hostname: string): string | null {
  const bare =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
}
