import type { StoreProvider } from '../../../libs/contracts/stores/store-connections.js';
import { checkLemonSqueezySignature, checkWooCommerceSignature } from './body-hmac-signature.js';
import type { SignatureCheck, StoreDelivery } from './delivery.js';
import { checkPaddleSignature } from './paddle-signature.js';
import { checkStripeSignature } from './stripe-signature.js';

/**
 * Checks a delivery's signature in its store's own scheme, on the raw body, before anything of it
 * is parsed. `secrets` are the connection's current secret and, during a rotation, the previous.
 */
export function checkStoreSignature(
  provider: StoreProvider,
  delivery: StoreDelivery,
  secrets: readonly string[],
  now: Date,
): SignatureCheck {
  switch (provider) {
    case 'stripe':
      return checkStripeSignature(delivery, secrets, now);
    case 'paddle':
      return checkPaddleSignature(delivery, secrets, now);
    case 'lemonsqueezy':
      return checkLemonSqueezySignature(delivery, secrets);
    case 'woocommerce':
      return checkWooCommerceSignature(delivery, secrets);
  }
}
