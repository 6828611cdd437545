import type { StoreCustomer } from '../store-events.js';
import type { StoreConnectionRecord } from '../stores.js';
import type { StoreLicense } from './store-licenses.js';

/** The moments of a store-made license its buyer is e-mailed about (a connection's `emails`). */
export type MailMoment = 'created' | 'renewed' | 'suspended' | 'cancelled';

export interface MailResult {
  outcome: 'sent' | 'failed' | 'skipped';
  detail: string | null;
}

/** Sends the buyer the e-mail of a moment of their license; never throws for a failed sending. */
export interface BuyerMail {
  send(
    moment: MailMoment,
    license: StoreLicense,
    connection: StoreConnectionRecord,
    customer: StoreCustomer | null,
  ): Promise<MailResult>;
}

/** No e-mail is sent: what the service runs with until one is set up. */
export const noBuyerMail: BuyerMail = {
  send: async () => ({ outcome: 'skipped', detail: 'no e-mail is set up' }),
};
