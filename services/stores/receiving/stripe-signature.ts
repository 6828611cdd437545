import Stripe from 'stripe';
import { SIGNATURE_TOLERANCE_SECONDS } from '../../../libs/contracts/stores/store-connections.js';
import { badSignature, signedEvent, type SignatureCheck, type StoreDelivery } from './delivery.js';
import { oneTimestamp, signedTimeRefusal } from './signed-time.js';

/**
 * Stripe's `Stripe-Signature` (`t=<seconds>,v1=<hex HMAC of "t.body">`), checked by Stripe's own
 * library on the raw body. Its tolerance bounds only a signature's age, so a `t` in the future
 * (an hour, ten years) would pass it: the timestamp is held to 300 s from `now` either way here
 * first (`signedTimeRefusal`). Each of the connection's secrets is tried, so events signed with
 * the old secret still pass during a rotation.
 */
export function checkStripeSignature(
  delivery: StoreDelivery,
  secrets: readonly string[],
  now: Date,
): SignatureCheck {
  const header = delivery.headers['stripe-signature'];
  if (!header) return badSignature('no Stripe-Signature header');
  const fields = header.split(',').map((part) => part.trim().split('='));
  const t = oneTimestamp(fields.filter(([name]) => name === 't').map(([, v]) => v ?? ''));
  if (t === null) return badSignature('Stripe-Signature lacks one t');
  const stale = signedTimeRefusal(t, now);
  if (stale) return badSignature(`Stripe-Signature: ${stale}`);
  // Declared nullable by the library's types, though it is always set in Node.
  const verifier = Stripe.webhooks.signature;
  if (!verifier) throw new Error("Stripe's signature verifier is missing.");
  let reason = 'no signing secret';
  for (const secret of secrets) {
    try {
      verifier.verifyHeader(
        delivery.body,
        header,
        secret,
        SIGNATURE_TOLERANCE_SECONDS,
        undefined,
        now.getTime(),
      );
      return signedEvent;
    } catch (error) {
      reason = error instanceof Error ? error.message.split('\n')[0]! : 'signature refused';
    }
  }
  return badSignature(`Stripe: ${reason}`);
}
