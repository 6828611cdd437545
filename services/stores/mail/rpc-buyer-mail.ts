import type { Transport } from '../../../libs/transport/index.js';
import type { BuyerMail } from '../applying/buyer-mail.js';
import { buyerMessage } from './buyer-messages.js';
import type { Mailer } from './mailer.js';
import { doublingBackoff, sendWithRetries } from './sending.js';

/** Attempts of one message, the first included, and the waits between them. */
const MAIL_ATTEMPTS = 4;
const MAIL_BACKOFF = doublingBackoff(2_000, 30_000);

/**
 * The buyer's e-mail (docs/stores.md, "The buyer's e-mail"): what the license allows is read
 * from the license service when the message is written, so it says what the license is now; the
 * recipient is the store's customer, else the license's.
 */
export function buyerMailThrough(deps: {
  transport: Pick<Transport, 'call'>;
  mailer: Mailer;
  storeName: string;
  portalUrl: string;
}): BuyerMail {
  return {
    async send(moment, license, _connection, customer) {
      const detail = await deps.transport.call('license.getLicense', {
        license_key: license.license_key,
      });
      const email = customer?.email ?? detail.customer?.email ?? null;
      if (email === null) return { outcome: 'skipped', detail: 'the buyer has no e-mail address' };
      const plan = await deps.transport.call('license.getPlan', { id: detail.plan_id });
      const message = buyerMessage(moment, {
        storeName: deps.storeName,
        buyer: { email, name: customer?.name ?? detail.customer?.name ?? null },
        licenseKey: detail.license_key,
        productName: detail.product ?? `Product ${detail.product_id}`,
        plan: {
          name: plan.name,
          activationLimit: detail.activation_limit,
          activationType: detail.activation_type,
          entitlements: plan.entitlements,
        },
        expiresAt: detail.expires_at,
        portalUrl: deps.portalUrl,
      });
      const sent = await sendWithRetries(deps.mailer, message, {
        attempts: MAIL_ATTEMPTS,
        backoff: MAIL_BACKOFF,
      });
      switch (sent.outcome) {
        case 'sent':
          return { outcome: 'sent', detail: sent.messageId };
        case 'failed':
          return { outcome: 'failed', detail: `${sent.error} (${sent.attempts} attempts)` };
        case 'skipped':
          return { outcome: 'skipped', detail: sent.reason };
      }
    },
  };
}
