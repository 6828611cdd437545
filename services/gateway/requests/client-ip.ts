import { isIP } from 'node:net';
import type { Request } from 'express';

/**
 * The client's address as shown in admin: IPv4 without the IPv6-mapped prefix. With TRUST_PROXY,
 * `req.ip` comes from X-Forwarded-For, which a client can fill with anything; only an IP address
 * is taken from it, otherwise the connection's own address is recorded.
 */
export function clientIp(req: Request): string {
  const address = (ip: string | undefined) => {
    if (ip === undefined) return undefined;
    // A link-local address may carry a zone (`fe80::1%eth0`), which names our interface.
    const [withoutZone = ''] = ip.split('%', 1);
    const plain = withoutZone.startsWith('::ffff:') ? withoutZone.slice(7) : withoutZone;
    return isIP(plain) !== 0 ? plain : undefined;
  };
  return address(req.ip) ?? address(req.socket.remoteAddress) ?? '';
}
