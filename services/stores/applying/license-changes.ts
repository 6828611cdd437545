import type { StoreLicenseAction } from '../../../libs/contracts/index.js';
import type { LicenseChange, LinkedLicense } from '../license-change-rules.js';
import type { StoreEvent } from '../store-events.js';
import type { StoreLinkRecord } from '../stores.js';
import type { MailMoment } from './buyer-mail.js';
import type { StoreLicense, StoreLicenses } from './store-licenses.js';

/**
 * What carrying out one change did: the license after it, the moment to mail about, and the
 * change the audit log is told of (the admin route's operation id that makes the same; null for
 * the past-due mark, which the license does not carry).
 */
export interface ChangeMade {
  license: StoreLicense;
  created: boolean;
  moment: MailMoment | null;
  action: StoreLicenseAction | null;
}

/**
 * One change of `decideStoreEvent` made through the license service (`create` aside, which
 * needs the event's store references), or, for the past-due mark, on the link alone.
 */
export async function makeChange(
  licenses: StoreLicenses,
  change: Exclude<LicenseChange, { kind: 'create' }>,
  license: StoreLicense,
  link: StoreLinkRecord,
): Promise<ChangeMade> {
  const license_key = license.license_key;
  const made = (
    action: StoreLicenseAction | null,
    after: StoreLicense,
    moment: MailMoment | null = null,
  ): ChangeMade => ({ license: after, created: false, moment, action });
  switch (change.kind) {
    case 'renew':
      return made(
        'renewLicense',
        await licenses.renew({
          license_key,
          expires_at: change.expiresAt,
          source: change.source,
          next_payment_at: change.nextPaymentAt,
        }),
        'renewed',
      );
    case 'status': {
      const after = await licenses.update({ license_key, status: change.status });
      // Active again: a later failed payment's grace may suspend it again.
      if (change.status === 'active') link.grace_suspended_at = null;
      return made('updateLicense', after, change.status === 'cancelled' ? 'cancelled' : null);
    }
    case 'auto_renew':
      return made(
        'updateLicense',
        await licenses.update({
          license_key,
          auto_renew: change.autoRenew,
          next_payment_at: change.nextPaymentAt,
        }),
      );
    case 'plan':
      return made('changePlan', await licenses.changePlan({ license_key, plan_id: change.planId }));
    case 'expiry':
      return made(
        'updateLicense',
        await licenses.update({ license_key, expires_at: change.expiresAt }),
      );
    case 'past_due':
      link.past_due_since = change.since;
      if (change.since === null) link.grace_suspended_at = null;
      return made(null, license);
  }
}

/** The link of a license just made for the event's order or subscription. */
export function newLink(
  connectionId: number,
  event: StoreEvent,
  license: StoreLicense,
): StoreLinkRecord {
  return {
    connection_id: connectionId,
    order_id: event.orderId,
    subscription_id: event.subscriptionId,
    renewal_order_ids: [],
    resubscription_ids: [],
    license_key: license.license_key,
    status: license.status,
    past_due_since: null,
    last_applied_at: null,
    grace_suspended_at: null,
  };
}

/** The license of a link as the rules know it. */
export function linkedLicense(link: StoreLinkRecord, license: StoreLicense): LinkedLicense {
  return {
    licenseKey: license.license_key,
    status: license.status,
    planId: license.plan_id,
    expiresAt: license.expires_at,
    renews: license.auto_renew || license.next_payment_at !== null,
    pastDueSince: link.past_due_since,
    lastAppliedAt: link.last_applied_at,
    subscribed: link.subscription_id !== null,
  };
}
