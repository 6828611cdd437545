import { badSignature, signedEvent, type SignatureCheck, type StoreDelivery } from './delivery.js';
import { hmacSha256, macMatches } from './hmac.js';

/**
 * Lemon Squeezy's `X-Signature`: the hex HMAC-SHA256 of the body. It carries no timestamp, so a
 * replayed delivery is stopped by the event's id instead (a hash of the body, stored once).
 */
export function checkLemonSqueezySignature(
  delivery: StoreDelivery,
  secrets: readonly string[],
): SignatureCheck {
  return checkBodyMac(delivery, secrets, 'x-signature', 'hex', 'Lemon Squeezy');
}

/** WooCommerce's unsigned ping when a webhook is created: a form body `webhook_id=<n>`. */
const wooCommercePing = /^webhook_id=\d{1,20}$/;

/**
 * WooCommerce's `X-WC-Webhook-Signature`: the base64 HMAC-SHA256 of the body. The ping WooCommerce
 * sends when the webhook is saved carries no signature; it is answered and nothing else.
 */
export function checkWooCommerceSignature(
  delivery: StoreDelivery,
  secrets: readonly string[],
): SignatureCheck {
  if (
    delivery.headers['x-wc-webhook-signature'] === undefined &&
    wooCommercePing.test(delivery.body.toString('latin1'))
  ) {
    return { ok: true, kind: 'ping' };
  }
  return checkBodyMac(delivery, secrets, 'x-wc-webhook-signature', 'base64', 'WooCommerce');
}

function checkBodyMac(
  delivery: StoreDelivery,
  secrets: readonly string[],
  header: string,
  encoding: 'hex' | 'base64',
  store: string,
): SignatureCheck {
  const sent = delivery.headers[header]?.trim();
  if (!sent) return badSignature(`no ${header} header`);
  for (const secret of secrets) {
    if (macMatches(hmacSha256(secret, delivery.body), sent, encoding)) return signedEvent;
  }
  return badSignature(`${store}: the signature matches no signing secret`);
}
