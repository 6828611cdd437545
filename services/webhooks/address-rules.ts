import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether a webhook may be sent to an IP address: only a public unicast one. Loopback, private
 * (RFC 1918, unique local), link-local (where cloud metadata services answer, 169.254.169.254),
 * carrier-grade NAT, unspecified, multicast, broadcast and reserved ranges are refused, and an
 * IPv4 address written as IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it is. The
 * ranges are ipaddr.js's: it names every special-purpose block of the IANA registries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
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
