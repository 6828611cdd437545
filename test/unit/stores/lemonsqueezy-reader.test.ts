import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readLemonSqueezyEvent } from '../../../services/stores/readers/lemonsqueezy-reader.js';
import type { StoreEvent, StoreEventFacts } from '../../../services/stores/store-events.js';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/lemonsqueezy/${name}.json`, import.meta.url));
const delivery = (body: Buffer | string) => ({
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  headers: { 'content-type': 'application/json', 'x-event-name': 'order_created' },
});
const at = (iso: string) => new Date(iso);
const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');

const ada = { id: '3391', email: 'ada@example.com', name: 'Ada Lovelace' };
const order = { orderId: '1402', subscriptionId: null, externalIds: ['455'], customer: ada };
const subscription = {
  orderId: '1410',
  subscriptionId: '8811',
  externalIds: ['470'],
  customer: ada,
};
const invoice = { orderId: null, subscriptionId: '8811', externalIds: [], customer: ada };

type Row = [
  fixture: string,
  links: Omit<StoreEvent, 'eventId' | 'occurredAt' | 'kind'>,
  occurredAt: string,
  facts: StoreEventFacts,
];

const rows: Row[] = [
  ['order_created', order, '2026-05-01T10:00:02Z', { kind: 'order_paid' }],
  [
    'order_created_pending',
    order,
    '2026-05-01T10:00:02Z',
    { kind: 'other', type: 'order_created' },
  ],
  [
    'order_refunded_full',
    order,
    '2026-05-03T08:30:00Z',
    { kind: 'refunded', full: true, periodStart: null },
  ],
  [
    'order_refunded_partial',
    order,
    '2026-05-03T08:30:00Z',
    { kind: 'refunded', full: false, periodStart: null },
  ],
  [
    'subscription_created',
    subscription,
    '2026-05-01T10:00:06Z',
    {
      kind: 'subscription_paid',
      payment: 'first',
      periodEnd: at('2026-06-01T10:00:00Z'),
      nextPaymentAt: at('2026-06-01T10:00:00Z'),
    },
  ],
  [
    'subscription_updated_renewed',
    subscription,
    '2026-06-01T10:00:09Z',
    {
      kind: 'subscription_paid',
      payment: 'renewal',
      periodEnd: at('2026-07-01T10:00:00Z'),
      nextPaymentAt: at('2026-07-01T10:00:00Z'),
    },
  ],
  [
    'subscription_updated_cancelled',
    subscription,
    '2026-05-20T12:00:00Z',
    { kind: 'cancel_scheduled' },
  ],
  [
    'subscription_updated_past_due',
    subscription,
    '2026-06-01T10:05:00Z',
    { kind: 'payment_failed' },
  ],
  [
    'subscription_updated_paused',
    subscription,
    '2026-05-15T09:00:00Z',
    { kind: 'other', type: 'subscription_updated (paused)' },
  ],
  [
    'subscription_updated_expired',
    subscription,
    '2026-06-01T10:00:30Z',
    { kind: 'subscription_ended' },
  ],
  ['subscription_cancelled', subscription, '2026-05-20T12:00:00Z', { kind: 'cancel_scheduled' }],
  ['subscription_expired', subscription, '2026-06-01T10:00:30Z', { kind: 'subscription_ended' }],
  [
    'subscription_resumed',
    subscription,
    '2026-05-22T08:00:00Z',
    { kind: 'cancel_withdrawn', nextPaymentAt: at('2026-06-01T10:00:00Z') },
  ],
  [
    'subscription_unpaused',
    subscription,
    '2026-07-15T08:00:00Z',
    {
      kind: 'resumed',
      periodEnd: at('2026-08-01T10:00:00Z'),
      nextPaymentAt: at('2026-08-01T10:00:00Z'),
    },
  ],
  [
    'subscription_payment_success_initial',
    invoice,
    '2026-05-01T10:00:07Z',
    { kind: 'other', type: 'subscription_payment_success (initial)' },
  ],
  [
    'subscription_payment_success_renewal',
    invoice,
    '2026-06-01T10:00:08Z',
    { kind: 'other', type: 'subscription_payment_success (renewal)' },
  ],
  ['subscription_payment_failed', invoice, '2026-06-01T10:05:00Z', { kind: 'payment_failed' }],
  [
    'subscription_payment_refunded_renewal',
    invoice,
    '2026-06-03T09:00:00Z',
    { kind: 'refunded', full: true, periodStart: at('2026-06-01T10:00:00Z') },
  ],
  [
    'subscription_payment_refunded_initial_partial',
    invoice,
    '2026-05-02T09:00:00Z',
    { kind: 'refunded', full: false, periodStart: null },
  ],
  [
    'license_key_created',
    { orderId: null, subscriptionId: null, externalIds: [], customer: ada },
    '2026-05-01T10:00:03Z',
    { kind: 'other', type: 'license_key_created' },
  ],
];

describe('Stores: Lemon Squeezy events read as store events', () => {
  test.each(rows)('%s', (name, links, occurredAt, facts) => {
    const body = fixture(name);
    expect(readLemonSqueezyEvent(delivery(body))).toEqual({
      ok: true,
      event: { eventId: sha256(body), occurredAt: at(occurredAt), ...links, ...facts },
    });
  });

  test('the event id is the hash of the body: the same bytes sent again have the same id', () => {
    const body = fixture('order_created');
    const first = readLemonSqueezyEvent(delivery(body));
    const again = readLemonSqueezyEvent(delivery(Buffer.from(body)));
    const other = readLemonSqueezyEvent(delivery(fixture('order_refunded_full')));
    expect(first.ok && again.ok && first.event.eventId === again.event.eventId).toBe(true);
    expect(first.ok && other.ok && first.event.eventId !== other.event.eventId).toBe(true);
  });

  test('a refund without refunded_amount (older payloads) is full when the status says so', () => {
    const body = JSON.parse(fixture('order_refunded_full').toString()) as {
      data: { attributes: Record<string, unknown> };
    };
    delete body.data.attributes.refunded_amount;
    const full = readLemonSqueezyEvent(delivery(JSON.stringify(body)));
    expect(full.ok && full.event).toMatchObject({ kind: 'refunded', full: true });
    body.data.attributes.status = 'paid';
    const partial = readLemonSqueezyEvent(delivery(JSON.stringify(body)));
    expect(partial.ok && partial.event).toMatchObject({ kind: 'refunded', full: false });
  });

  test('an event without updated_at happened when its object was created', () => {
    const body = JSON.parse(fixture('order_created').toString()) as {
      data: { attributes: Record<string, unknown> };
    };
    delete body.data.attributes.updated_at;
    const reading = readLemonSqueezyEvent(delivery(JSON.stringify(body)));
    expect(reading.ok && reading.event.occurredAt).toEqual(at('2026-05-01T10:00:00Z'));
  });
});

describe('Stores: a Lemon Squeezy body that cannot be read is refused with its reason', () => {
  type Body = { meta: Record<string, unknown>; data: { attributes: Record<string, unknown> } };
  const edited = (name: string, edit: (body: Body) => void) => {
    const body = JSON.parse(fixture(name).toString()) as Body;
    edit(body);
    return delivery(JSON.stringify(body));
  };

  test.each([
    ['not JSON', delivery('event_name=order_created'), 'Lemon Squeezy: the body is not JSON'],
    [
      'no event name',
      edited('order_created', (body) => delete body.meta.event_name),
      'Lemon Squeezy: meta.event_name',
    ],
    [
      'an order without its item',
      edited('order_created', (body) => delete body.data.attributes.first_order_item),
      'Lemon Squeezy: data.attributes.first_order_item',
    ],
    [
      'a subscription without its variant',
      edited('subscription_created', (body) => delete body.data.attributes.variant_id),
      'Lemon Squeezy: data.attributes.variant_id',
    ],
    [
      'an invoice without its subscription',
      edited('subscription_payment_failed', (body) => delete body.data.attributes.subscription_id),
      'Lemon Squeezy: data.attributes.subscription_id',
    ],
    [
      'a date that is not ISO 8601',
      edited('subscription_created', (body) => (body.data.attributes.renews_at = 'next month')),
      'Lemon Squeezy: data.attributes.renews_at',
    ],
    [
      'a new subscription with no renewal date',
      edited('subscription_created', (body) => (body.data.attributes.renews_at = null)),
      'Lemon Squeezy: subscription_created has no renews_at',
    ],
  ])('%s', (_, sent, reason) => {
    const reading = readLemonSqueezyEvent(sent);
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.reason).toMatch(new RegExp(`^${reason}`));
  });
});
