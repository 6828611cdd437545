import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 of `message` with `secret`, as raw bytes. */
export function hmacSha256(secret: string, message: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(message).digest();
}

/**
 * Whether `sent`, in the encoding the store uses, is the expected MAC. The comparison takes the
 * same time wherever the first difference is, so a forger learns nothing from the answer's timing.
 */
export function macMatches(expected: Buffer, sent: string, encoding: 'hex' | 'base64'): boolean {
  const pattern = encoding === 'hex' ? /^[0-9a-fA-F]+$/ : /^[A-Za-z0-9+/]+={0,2}$/;
  if (!pattern.test(sent)) return false;
  const decoded = Buffer.from(sent, encoding);
  return decoded.length === expected.length && timingSafeEqual(decoded, expected);
}
