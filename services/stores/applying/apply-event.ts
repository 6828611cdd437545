import type { Logger } from '../../../libs/logging/index.js';
import { decideStoreEvent, type ProductMapping } from '../license-change-rules.js';
import { readStoreEvent } from '../readers/read-store-event.js';
import type { StoreEvent } from '../store-events.js';
import type {
  MailRecord,
  StoreConnectionRecord,
  StoreEventRecord,
  StoreLinkRecord,
  StoreMappingRecord,
  StoreServiceStores,
} from '../stores.js';
import type { BuyerMail, MailMoment } from './buyer-mail.js';
import {
  eventSource,
  reportChanges,
  type ChangeReports,
  type MadeChange,
} from './change-reports.js';
import { applyKeptEndings, KEPT_DETAIL, keptEndingOf } from './kept-endings.js';
import { linkedLicense, makeChange, newLink } from './license-changes.js';
import { LastingFailure, type StoreApi } from './store-api.js';
import { asFoundBy, buyerOf, linkOfEvent, withExternalIds } from './store-lookups.js';
import type { StoreLicense, StoreLicenses } from './store-licenses.js';

export interface ApplyDeps {
  stores: StoreServiceStores;
  licenses: StoreLicenses;
  mail: BuyerMail;
  storeApi: StoreApi;
  reports: ChangeReports;
  clock: () => Date;
  logger: Logger;
}

/** What applying an event did (its outcome is final: a failure is thrown). */
export interface Application {
  outcome: 'applied' | 'no_change' | 'stale' | 'unmapped' | 'unreadable';
  detail: string | null;
  license_key: string | null;
  mail: MailRecord[];
}

/**
 * Applies a received event to the license of its order or subscription (docs/stores.md, the
 * table): read again from its stored bytes, its mapping and linked license found, decided by
 * `decideStoreEvent`, and each change made through the license service. Throws when a call
 * fails: the applier tries again later, and a change already made is then decided as made. The
 * changes made are reported for the audit log, those of an attempt that failed half-way too.
 */
export async function applyStoreEvent(
  deps: ApplyDeps,
  record: StoreEventRecord,
): Promise<Application> {
  const { stores } = deps;
  const connection = await stores.connections.find(record.connection_id);
  if (!connection) throw new LastingFailure('The store connection was deleted.');
  const reading = readStoreEvent(connection.provider, {
    body: Buffer.from(record.body, 'base64'),
    headers: record.headers,
  });
  if (!reading.ok) return result('unreadable', reading.reason);
  const found = await linkOfEvent(
    deps,
    connection,
    await withExternalIds(deps, connection, reading.event),
  );
  const mapping = await stores.mappings.firstMapped(connection.id, found.event.externalIds);
  const decide = async (event: StoreEvent, link: StoreLinkRecord | null) => {
    const current =
      link && (await deps.licenses.findStoreLicense(storeReference(connection.id, link, event)));
    const linked = link && current ? linkedLicense(link, current) : null;
    const decision = decideStoreEvent(event, mapping && productMapping(mapping), linked);
    return { event, link, current, decision };
  };
  let { event, link, current, decision } = await decide(found.event, found.link);
  if (decision.outcome === 'keep') {
    await stores.endings.keep(keptEndingOf(connection.id, event, deps.clock())!);
    // The sale's event, applied meanwhile by another replica, may have made its license before
    // this ending was kept: looked for again after keeping it, so one of the two applies it.
    const late = await stores.links.find(connection.id, {
      order_id: event.orderId,
      subscription_id: event.subscriptionId,
    });
    if (!late) return result('no_change', KEPT_DETAIL);
    ({ event, link, current, decision } = await decide(asFoundBy(event, late), late));
    if (decision.outcome === 'keep') return result('no_change', KEPT_DETAIL);
  }
  if (decision.outcome === 'unmapped') {
    return result('unmapped', `No mapping names ${event.externalIds.join(', ') || 'its items'}.`);
  }
  // An event that changes nothing still brings the endings kept for its license, should the
  // attempt that made the license have stopped before it applied them.
  if (decision.outcome !== 'apply' && !(link && current)) {
    return result(decision.outcome, decisionDetail(decision));
  }
  const moments: MailMoment[] = [];
  const changed: MadeChange[] = [];
  let license = link && current;
  let kept: StoreLinkRecord | null = link && { ...link };
  let endings: number;
  try {
    for (const change of decision.outcome === 'apply' ? decision.changes : []) {
      if (change.kind === 'create') {
        const made = await deps.licenses.createStoreLicense({
          product_id: change.productId,
          plan_id: change.planId,
          expires_at: change.expiresAt,
          auto_renew: change.autoRenew,
          next_payment_at: change.nextPaymentAt,
          customer: await buyerOf(deps, connection, event),
          store: storeReference(connection.id, null, event),
        });
        license = made.license;
        // A license an earlier attempt made was reported by that attempt.
        if (made.created) changed.push({ action: 'createLicense', before: null, after: license });
        kept = newLink(connection.id, event, license);
        // Linked at once: should a later step fail, the retry finds the license made.
        await stores.links.save(kept);
        // Unlinked, a license already made was made by an attempt that stopped before its link,
        // and so before its e-mail: the buyer is told now (docs/stores.md, "E-mails").
        moments.push('created');
        continue;
      }
      const before = license!;
      const made = await makeChange(deps.licenses, change, before, kept!);
      license = made.license;
      if (made.action) changed.push({ action: made.action, before, after: license });
      if (made.moment) moments.push(made.moment);
    }
    const settled = await applyKeptEndings(deps, kept!, license!, event, { changed, moments });
    license = settled.license;
    endings = settled.changes;
  } finally {
    const source = { connection, event: eventSource(record, event) };
    reportChanges(deps.reports, source, changed, deps.clock());
  }
  if (decision.outcome !== 'apply' && endings === 0) {
    return result(decision.outcome, decisionDetail(decision));
  }
  const orderId = kept!.order_id ?? event.orderId;
  const subscriptionId = kept!.subscription_id ?? event.subscriptionId;
  await stores.links.save({
    ...kept!,
    order_id: orderId,
    subscription_id: subscriptionId,
    renewal_order_ids: withRenewalOrder(kept!.renewal_order_ids, orderId, event),
    resubscription_ids: withOther(kept!.resubscription_ids, subscriptionId, event.subscriptionId),
    status: license!.status,
    last_applied_at: laterOf(kept!.last_applied_at, event.occurredAt),
  });
  const mail: MailRecord[] = [];
  for (const moment of moments) {
    mail.push(
      endedBeforeMade(moments, license!)
        ? { outcome: 'skipped', moment, detail: ENDED_FIRST, at: deps.clock() }
        : await mailBuyer(deps, moment, license!, connection, event),
    );
  }
  return { outcome: 'applied', detail: null, license_key: license!.license_key, mail };
}

const ENDED_FIRST = 'the store ended the sale before this event made its license';

/**
 * Whether a license made by this event was ended at once by an ending kept for it: its buyer,
 * refunded or charged back before the key was sent, is sent no key for a license already ended.
 */
function endedBeforeMade(moments: readonly MailMoment[], license: StoreLicense): boolean {
  return (
    moments.includes('created') && (license.status === 'revoked' || license.status === 'cancelled')
  );
}

function decisionDetail(decision: { outcome: 'stale' } | { reason: string }): string {
  return 'reason' in decision
    ? decision.reason
    : 'Older than the last event applied to its license.';
}

function result(outcome: Application['outcome'], detail: string): Application {
  return { outcome, detail, license_key: null, mail: [] };
}

function storeReference(connectionId: number, link: StoreLinkRecord | null, event: StoreEvent) {
  return {
    connection_id: connectionId,
    order_id: link?.order_id ?? event.orderId,
    subscription_id: link?.subscription_id ?? event.subscriptionId,
    customer_id: event.customer?.id ?? null,
  };
}

function productMapping(mapping: StoreMappingRecord): ProductMapping {
  return {
    productId: mapping.product_id,
    planId: mapping.plan_id,
    renewal: mapping.renewal,
    durationDays: mapping.duration_days,
  };
}

const laterOf = (a: Date | null, b: Date) => (a && a.getTime() > b.getTime() ? a : b);

/** The renewal orders kept on a link, with the event's when it is a later order of its subscription. */
function withRenewalOrder(kept: string[], orderId: string | null, event: StoreEvent): string[] {
  return event.subscriptionId === null ? kept : withOther(kept, orderId, event.orderId);
}

/** `kept`, with `id` when it is another than the link's own `linked` and not kept yet. */
function withOther(kept: string[], linked: string | null, id: string | null): string[] {
  return id === null || id === linked || kept.includes(id) ? kept : [...kept, id];
}

/** The buyer's e-mail of a moment, unless the connection turned it off; a failure is recorded. */
export async function mailBuyer(
  deps: Pick<ApplyDeps, 'mail' | 'clock' | 'logger'>,
  moment: MailMoment,
  license: StoreLicense,
  connection: StoreConnectionRecord,
  event: StoreEvent | null,
): Promise<MailRecord> {
  if (!connection.emails[moment]) {
    return {
      outcome: 'skipped',
      moment,
      detail: 'turned off for this connection',
      at: deps.clock(),
    };
  }
  try {
    const sent = await deps.mail.send(moment, license, connection, event?.customer ?? null);
    return { ...sent, moment, at: deps.clock() };
  } catch (error) {
    deps.logger.warn({ err: error, moment }, 'the buyer e-mail failed');
    return { outcome: 'failed', moment, detail: (error as Error).message, at: deps.clock() };
  }
}
