import { badSignature, signedEvent, type SignatureCheck, type StoreDelivery } from './delivery.js';
import { hmacSha256, macMatches } from './hmac.js';
import { oneTimestamp, signedTimeRefusal } from './signed-time.js';

/**
 * Paddle Billing's `Paddle-Signature` (`ts=<seconds>;h1=<hex HMAC of "ts:body">`, several `h1`
 * during Paddle's own secret rotation). Paddle's SDK verifier allows 5 s between signing and
 * checking, shorter than a retried delivery or a clock off by a few seconds, so the window here is
 * the same 300 s either way as Stripe's (`signedTimeRefusal`); tests cross-check the MAC with the
 * SDK's verifier.
 */
export function checkPaddleSignature(
  delivery: StoreDelivery,
  secrets: readonly string[],
  now: Date,
): SignatureCheck {
  const header = delivery.headers['paddle-signature'];
  if (!header) return badSignature('no Paddle-Signature header');
  const fields = header.split(';').map((part) => part.trim().split('='));
  const ts = oneTimestamp(fields.filter(([name]) => name === 'ts').map(([, v]) => v ?? ''));
  const macs = fields.filter(([name]) => name === 'h1').map(([, value]) => value ?? '');
  if (ts === null || macs.length === 0)
    return badSignature('Paddle-Signature lacks one ts and an h1');
  const stale = signedTimeRefusal(ts, now);
  if (stale) return badSignature(`Paddle-Signature: ${stale}`);
  const signed = Buffer.concat([Buffer.from(`${ts}:`), delivery.body]);
  for (const secret of secrets) {
    const expected = hmacSha256(secret, signed);
    if (macs.some((mac) => macMatches(expected, mac, 'hex'))) return signedEvent;
  }
  return badSignature('Paddle: no h1 matches a signing secret');
}
