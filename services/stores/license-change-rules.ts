import type { LicenseStatus } from '../../libs/contracts/index.js';
import type { StoreEvent } from './store-events.js';

/** What a mapping says a store's price, variant or product sells. */
export interface ProductMapping {
  readonly productId: number;
  readonly planId: number;
  /**
   * How a subscription's renewal reaches the license (spec 3.3): `gateway` leaves limit and type
   * as they are, `checkout` resets them to the plan's.
   */
  readonly renewal: 'gateway' | 'checkout';
  /** How long a one-off order's license runs; null: it does not expire. */
  readonly durationDays: number | null;
}

/** The license an order or subscription already has, as the rules need to know it. */
export interface LinkedLicense {
  readonly licenseKey: string;
  readonly status: LicenseStatus;
  readonly planId: number;
  readonly expiresAt: Date | null;
  /** Whether it says it renews: automatically, or on a next payment date. */
  readonly renews: boolean;
  /** When the store reported a failed payment not followed by a paid one; null otherwise. */
  readonly pastDueSince: Date | null;
  /** When the last event applied to it happened (the store's time). */
  readonly lastAppliedAt: Date | null;
  /**
   * Whether it is its subscription's already: false while only the order that started the
   * subscription made it (that order's event came before the subscription's).
   */
  readonly subscribed: boolean;
}

/** One change of a license, made through the license service's usual rules. */
export type LicenseChange =
  | {
      readonly kind: 'create';
      readonly productId: number;
      readonly planId: number;
      readonly expiresAt: Date | null;
      readonly autoRenew: boolean;
      readonly nextPaymentAt: Date | null;
    }
  | {
      readonly kind: 'renew';
      readonly source: 'gateway' | 'checkout';
      readonly expiresAt: Date;
      readonly nextPaymentAt: Date | null;
    }
  | { readonly kind: 'status'; readonly status: LicenseStatus }
  | {
      readonly kind: 'auto_renew';
      readonly autoRenew: boolean;
      readonly nextPaymentAt: Date | null;
    }
  | { readonly kind: 'plan'; readonly planId: number }
  | { readonly kind: 'expiry'; readonly expiresAt: Date }
  /** The subscription's past-due mark, kept by the stores service (suspension follows grace). */
  | { readonly kind: 'past_due'; readonly since: Date | null };

export type StoreDecision =
  | { readonly outcome: 'apply'; readonly changes: readonly LicenseChange[] }
  /** No mapping for any id the event carries: shown to admins, applied again once mapped. */
  | { readonly outcome: 'unmapped' }
  /** Older than an event already applied to the license: it does not undo it. */
  | { readonly outcome: 'stale' }
  | { readonly outcome: 'no_change'; readonly reason: string }
  /**
   * An ending (a full refund, a chargeback, the subscription ended) that finds no license: stores
   * retry out of order, so it is kept for the license its sale's event makes when it arrives.
   */
  | { readonly outcome: 'keep'; readonly reason: string };

const keep = (reason: string): StoreDecision => ({ outcome: 'keep', reason });
const noChange = (reason: string): StoreDecision => ({ outcome: 'no_change', reason });
const apply = (...changes: LicenseChange[]): StoreDecision => ({ outcome: 'apply', changes });

const DAY_MS = 86_400_000;

/**
 * What a store event does to the license of its order or subscription (docs/stores.md,
 * the table): `mapping` is the first of the event's ids an admin mapped (null when none is),
 * `license` the license already made for its order or subscription (null when none was).
 */
export function decideStoreEvent(
  event: StoreEvent,
  mapping: ProductMapping | null,
  license: LinkedLicense | null,
): StoreDecision {
  if (license?.lastAppliedAt && event.occurredAt.getTime() < license.lastAppliedAt.getTime()) {
    return { outcome: 'stale' };
  }
  switch (event.kind) {
    case 'order_paid':
      if (license) return noChange('the order already has its license');
      if (!mapping) return { outcome: 'unmapped' };
      return apply({
        kind: 'create',
        productId: mapping.productId,
        planId: mapping.planId,
        expiresAt:
          mapping.durationDays === null
            ? null
            : new Date(event.occurredAt.getTime() + mapping.durationDays * DAY_MS),
        autoRenew: false,
        nextPaymentAt: null,
      });
    case 'subscription_paid':
      return decidePayment(event, mapping, license);
    case 'payment_failed':
      if (!license) return noChange('no license for this subscription');
      if (license.pastDueSince) return noChange('already past due');
      return apply({ kind: 'past_due', since: event.occurredAt });
    case 'cancel_scheduled':
      if (!license) return noChange('no license for this subscription');
      return apply({ kind: 'auto_renew', autoRenew: false, nextPaymentAt: null });
    case 'cancel_withdrawn':
      if (!license) return noChange('no license for this subscription');
      return apply({ kind: 'auto_renew', autoRenew: true, nextPaymentAt: event.nextPaymentAt });
    case 'subscription_ended':
      return decideEnd(license);
    case 'plan_changed':
      if (!license) return noChange('no license for this subscription');
      if (!mapping) return { outcome: 'unmapped' };
      if (mapping.planId === license.planId) return noChange('the license is on that plan');
      return apply({ kind: 'plan', planId: mapping.planId });
    case 'refunded':
      return decideRefund(event, license);
    case 'chargeback':
      if (!license) return keep('no license for this order yet');
      if (license.status === 'revoked') return noChange('the license is already revoked');
      return apply({ kind: 'status', status: 'revoked' });
    case 'resumed':
      return decideResumption(event, license);
    case 'other':
      return noChange(`${event.type} does not change a license`);
  }
}

function decidePayment(
  event: Extract<StoreEvent, { kind: 'subscription_paid' }>,
  mapping: ProductMapping | null,
  license: LinkedLicense | null,
): StoreDecision {
  if (!license) {
    if (!mapping) return { outcome: 'unmapped' };
    return apply({
      kind: 'create',
      productId: mapping.productId,
      planId: mapping.planId,
      expiresAt: event.periodEnd,
      autoRenew: true,
      nextPaymentAt: event.nextPaymentAt,
    });
  }
  const changes: LicenseChange[] = [];
  const ended = isTerminal(license.status);
  // A subscription paid again after it ended, or after its failed payments suspended it, has
  // its key back: the store's resubscription never makes a second license.
  // An admin's own suspension stays: only the one that followed failed payments is lifted.
  if (ended || license.pastDueSince) {
    if (license.status !== 'active' && license.status !== 'expired') {
      changes.push({ kind: 'status', status: 'active' });
    }
    if (license.pastDueSince) changes.push({ kind: 'past_due', since: null });
  }
  const renewing = {
    kind: 'auto_renew',
    autoRenew: true,
    nextPaymentAt: event.nextPaymentAt,
  } as const;
  // The order that started the subscription made the license (Lemon Squeezy's `order_created`,
  // WooCommerce's parent order, come first): the subscription's payment makes it the
  // subscription's, to the period paid, renewing, whatever the order's mapping gave it.
  if (!license.subscribed) {
    if (license.expiresAt?.getTime() !== event.periodEnd.getTime()) {
      changes.push({ kind: 'expiry', expiresAt: event.periodEnd });
    }
    return apply(...changes, renewing);
  }
  // Paid for a price or variant another plan is mapped to: the same key moves to that plan
  // (Lemon Squeezy tells a variant change by nothing but the subscription it sends).
  if (mapping && mapping.planId !== license.planId) {
    changes.push({ kind: 'plan', planId: mapping.planId });
  }
  if (license.expiresAt === null || event.periodEnd.getTime() > license.expiresAt.getTime()) {
    const source = event.payment === 'renewal' && mapping ? mapping.renewal : 'gateway';
    changes.push({
      kind: 'renew',
      source,
      expiresAt: event.periodEnd,
      nextPaymentAt: event.nextPaymentAt,
    });
  }
  // Subscribed again after it ended: it renews again, as the new subscription does.
  if (ended) changes.push(renewing);
  return changes.length ? apply(...changes) : noChange('the period is already paid');
}

/**
 * The subscription ended: its license is `cancelled` and no longer says it renews, so neither the
 * portal nor the console shows a next payment for a subscription the store has ended.
 */
function decideEnd(license: LinkedLicense | null): StoreDecision {
  if (!license) return keep('no license for this subscription yet');
  const changes: LicenseChange[] = [];
  if (!isTerminal(license.status)) changes.push({ kind: 'status', status: 'cancelled' });
  if (license.renews) changes.push({ kind: 'auto_renew', autoRenew: false, nextPaymentAt: null });
  return changes.length ? apply(...changes) : noChange(`the license is already ${license.status}`);
}

function decideRefund(
  event: Extract<StoreEvent, { kind: 'refunded' }>,
  license: LinkedLicense | null,
): StoreDecision {
  if (!license) {
    return event.full
      ? keep('no license for this order yet')
      : noChange('no license for this order');
  }
  if (!event.full) return noChange('a partial refund is recorded and changes nothing');
  if (event.periodStart === null) {
    if (license.status === 'revoked') return noChange('the license is already revoked');
    return apply({ kind: 'status', status: 'revoked' });
  }
  // A renewal refunded: the license loses that period only.
  if (license.expiresAt && license.expiresAt.getTime() > event.periodStart.getTime()) {
    return apply(
      { kind: 'expiry', expiresAt: event.periodStart },
      { kind: 'auto_renew', autoRenew: false, nextPaymentAt: null },
    );
  }
  return noChange('the refunded period is no longer on the license');
}

function decideResumption(
  event: Extract<StoreEvent, { kind: 'resumed' }>,
  license: LinkedLicense | null,
): StoreDecision {
  if (!license) return noChange('no license for this subscription');
  if (license.status === 'revoked') return noChange('a revoked license is not resumed');
  const changes: LicenseChange[] = [];
  if (license.status !== 'active') changes.push({ kind: 'status', status: 'active' });
  if (event.periodEnd && (!license.expiresAt || event.periodEnd > license.expiresAt)) {
    changes.push({
      kind: 'renew',
      source: 'gateway',
      expiresAt: event.periodEnd,
      nextPaymentAt: event.nextPaymentAt,
    });
  }
  changes.push({ kind: 'auto_renew', autoRenew: true, nextPaymentAt: event.nextPaymentAt });
  return apply(...changes);
}

function isTerminal(status: LicenseStatus): boolean {
  return status === 'cancelled' || status === 'revoked';
}

/**
 * Whether a past-due subscription's license is now suspended: once the connection's
 * `grace_days` have passed since the store reported the failed payment.
 */
export function graceHasPassed(pastDueSince: Date, graceDays: number, now: Date): boolean {
  return now.getTime() >= pastDueSince.getTime() + graceDays * DAY_MS;
}
