import { decideStoreEvent } from '../license-change-rules.js';
import type { StoreEvent } from '../store-events.js';
import type {
  KeptEndingRecord,
  NewKeptEnding,
  StoreLinkRecord,
  StoreServiceStores,
} from '../stores.js';
import type { MailMoment } from './buyer-mail.js';
import type { MadeChange } from './change-reports.js';
import { linkedLicense, makeChange } from './license-changes.js';
import { asFoundBy } from './store-lookups.js';
import type { StoreLicense, StoreLicenses } from './store-licenses.js';

/** The outcome's detail of an ending kept for the license its sale has not made yet. */
export const KEPT_DETAIL =
  'No license for its order or subscription yet: kept, and applied to the license its sale makes.';

/** The ending an event that found no license is kept as; null for an event that ends nothing. */
export function keptEndingOf(
  connectionId: number,
  event: StoreEvent,
  now: Date,
): NewKeptEnding | null {
  if (
    event.kind !== 'refunded' &&
    event.kind !== 'chargeback' &&
    event.kind !== 'subscription_ended'
  ) {
    return null;
  }
  return {
    connection_id: connectionId,
    event_id: event.eventId,
    order_id: event.orderId,
    subscription_id: event.subscriptionId,
    kind: event.kind,
    period_start: event.kind === 'refunded' ? event.periodStart : null,
    occurred_at: event.occurredAt,
    kept_at: now,
  };
}

/** A kept ending as the event it was kept from said it. */
function endingEvent(ending: KeptEndingRecord): StoreEvent {
  const base = {
    eventId: ending.event_id,
    occurredAt: ending.occurred_at,
    externalIds: [],
    orderId: ending.order_id,
    subscriptionId: ending.subscription_id,
    customer: null,
  };
  switch (ending.kind) {
    case 'refunded':
      return { ...base, kind: 'refunded', full: true, periodStart: ending.period_start };
    case 'chargeback':
      return { ...base, kind: 'chargeback' };
    case 'subscription_ended':
      return { ...base, kind: 'subscription_ended' };
  }
}

/** The orders and subscriptions an ending kept for the license of `link` may name. */
function refsOf(link: StoreLinkRecord, event: StoreEvent) {
  const ids = (...values: Array<string | null>) => [
    ...new Set(values.filter((id): id is string => id !== null)),
  ];
  return {
    order_ids: ids(link.order_id, event.orderId),
    subscription_ids: ids(link.subscription_id, event.subscriptionId),
  };
}

/**
 * Applies to the license of `link` the endings kept for its order or subscription, oldest first,
 * each as `decideStoreEvent` decides it now: after the sale that made the license, whatever the
 * times say (an ending follows its sale). The changes made and the moments to mail about are
 * added to `changed` and `moments`, and `link` takes the ending's time as its last applied. Each
 * is marked applied once its changes are made, so a later event that brings the license back (a
 * resubscription) is not undone by it again; made again after a failure before the mark, the
 * rules find its changes made and make none.
 */
export async function applyKeptEndings(
  deps: { stores: StoreServiceStores; licenses: StoreLicenses },
  link: StoreLinkRecord,
  license: StoreLicense,
  event: StoreEvent,
  made: { changed: MadeChange[]; moments: MailMoment[] },
): Promise<{ license: StoreLicense; changes: number }> {
  const pending = await deps.stores.endings.pending(link.connection_id, refsOf(link, event));
  let changes = 0;
  for (const ending of pending) {
    const kept = asFoundBy(endingEvent(ending), link);
    const decision = decideStoreEvent(kept, null, {
      ...linkedLicense(link, license),
      lastAppliedAt: null,
    });
    for (const change of decision.outcome === 'apply' ? decision.changes : []) {
      if (change.kind === 'create') continue;
      const before = license;
      const done = await makeChange(deps.licenses, change, before, link);
      license = done.license;
      changes++;
      if (done.action) made.changed.push({ action: done.action, before, after: license });
      if (done.moment) made.moments.push(done.moment);
    }
    const last = link.last_applied_at;
    if (!last || last.getTime() < ending.occurred_at.getTime()) {
      link.last_applied_at = ending.occurred_at;
    }
    await deps.stores.endings.markApplied(link.connection_id, ending.event_id, license.license_key);
  }
  return { license, changes };
}
