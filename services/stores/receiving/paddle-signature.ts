import { SIGNATURE_TOLERANCE_SECONDS } from '../../../libs/contracts/store-connections.js';
import { badSignature, signedEvent, type SignatureCheck, type StoreDelivery } from './delivery.js';
import { hmacSha256, macMatches } from './hmac.js';

/**
 * Paddle Billing's `Paddle-Signature` (`ts=<seconds>;h1=<hex HMAC of "ts:body">`, several `h1`
 * during Paddle's own secret rotation). Paddle's SDK verifier allows 5 s between signing and
 * checking, shorter than a retried delivery or a clock off by a few seconds, so the window here is
 * the same 300 s as Stripe's; tests cross-check the MAC with the SDK's verifier.
 */
export function checkPaddleSignature(
  delivery: StoreDelivery,
  secrets: readonly string[],
  now: Date,
): SignatureCheck {
  const header = delivery.headers['paddle-signature'];
  if (!header) return badSignature('no Paddle-Signature header');
  const fields = header.split(';').map((part) => part.trim().split('='));
  const timestamps = fields.filter(([name]) => name === 'ts').map(([, value]) => value ?? '');
  const macs = fields.filter(([name]) => name === 'h1').map(([, value]) => value ?? '');
  const ts = timestamps.length === 1 ? timestamps[0]! : '';
  if (!/^\d{1,12}$/.test(ts) || macs.length === 0) {
    return badSignature('Paddle-Signature lacks one ts and an h1');
  }
  const age = Math.floor(now.getTime() / 1000) - Number(ts);
  if (Math.abs(age) > SIGNATURE_TOLERANCE_SECONDS) {
    return badSignature(`Paddle-Signature is ${age} s from now`);
  }
  const signed = Buffer.concat([Buffer.from(`${ts}:`), delivery.body]);
  for (const secret of secrets) {
    const expected = hmacSha256(secret, signed);
    if (macs.some((mac) => macMatches(expected, mac, 'hex'))) return signedEvent;
  }
  return badSignature('Paddle: no h1 matches a signing secret');
}
