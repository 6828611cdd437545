import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readWooCommerceEvent } from '../../../services/stores/readers/woocommerce-reader.js';
import type { StoreEvent, StoreEventFacts } from '../../../services/stores/store-events.js';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/woocommerce/${name}.json`, import.meta.url));
const delivery = (topic: string | undefined, body: Buffer | string, deliveryId?: string) => ({
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  headers: {
    'content-type': 'application/json',
    'x-wc-webhook-source': 'https://shop.example.com/',
    'x-wc-webhook-topic': topic,
    'x-wc-webhook-id': '14',
    'x-wc-webhook-delivery-id': deliveryId ?? 'f1d2e3c4b5a69788',
  },
});
const at = (iso: string) => new Date(iso);

const grace = { id: '77', email: 'grace@example.com', name: 'Grace Hopper' };
// The variable product's variation before its product; the simple product alone.
const order = {
  orderId: '5120',
  subscriptionId: null,
  externalIds: ['884', '880', '902'],
  customer: grace,
};
const renewal = { orderId: '5300', subscriptionId: '5121', externalIds: ['890'], customer: grace };
const subscription = {
  orderId: '5119',
  subscriptionId: '5121',
  externalIds: ['890'],
  customer: grace,
};
const nothing = { externalIds: [], customer: null };

type Row = [
  fixture: string,
  topic: string,
  links: Omit<StoreEvent, 'eventId' | 'occurredAt' | 'kind'>,
  occurredAt: string,
  facts: StoreEventFacts,
];

const rows: Row[] = [
  ['order_processing', 'order.updated', order, '2026-05-01T10:00:05Z', { kind: 'order_paid' }],
  ['order_completed', 'order.updated', order, '2026-05-01T12:00:00Z', { kind: 'order_paid' }],
  [
    'order_pending',
    'order.created',
    order,
    '2026-05-01T10:00:00Z',
    { kind: 'other', type: 'order.created (pending)' },
  ],
  [
    'order_refunded',
    'order.updated',
    order,
    '2026-05-04T09:00:00Z',
    { kind: 'refunded', full: true, periodStart: null },
  ],
  [
    'order_partially_refunded',
    'order.updated',
    order,
    '2026-05-04T09:00:00Z',
    { kind: 'refunded', full: false, periodStart: null },
  ],
  [
    'renewal_order_processing',
    'order.updated',
    renewal,
    '2026-06-01T10:00:07Z',
    { kind: 'other', type: "order.updated (subscription's order, processing)" },
  ],
  [
    'renewal_order_refunded',
    'order.updated',
    renewal,
    '2026-06-05T09:00:00Z',
    { kind: 'refunded', full: true, periodStart: at('2026-06-01T10:00:00Z') },
  ],
  [
    'switch_order_refunded',
    'order.updated',
    { ...renewal, orderId: '5400' },
    '2026-06-10T09:00:00Z',
    { kind: 'refunded', full: false, periodStart: null },
  ],
  [
    'order_deleted',
    'order.deleted',
    { ...nothing, orderId: '5120', subscriptionId: null },
    '1970-01-01T00:00:00Z',
    { kind: 'other', type: 'order.deleted' },
  ],
  [
    'subscription_active',
    'subscription.created',
    subscription,
    '2026-05-01T10:00:06Z',
    {
      kind: 'subscription_paid',
      payment: 'first',
      periodEnd: at('2026-06-01T10:00:02Z'),
      nextPaymentAt: at('2026-06-01T10:00:02Z'),
    },
  ],
  [
    'subscription_pending',
    'subscription.created',
    subscription,
    '2026-05-01T10:00:02Z',
    { kind: 'other', type: 'subscription.created (pending)' },
  ],
  [
    'subscription_renewed',
    'subscription.updated',
    subscription,
    '2026-06-01T10:00:08Z',
    {
      kind: 'subscription_paid',
      payment: 'renewal',
      periodEnd: at('2026-07-01T10:00:02Z'),
      nextPaymentAt: at('2026-07-01T10:00:02Z'),
    },
  ],
  [
    'subscription_on_hold',
    'subscription.updated',
    subscription,
    '2026-06-01T10:00:09Z',
    { kind: 'payment_failed' },
  ],
  [
    'subscription_pending_cancel',
    'subscription.updated',
    subscription,
    '2026-05-20T08:00:00Z',
    { kind: 'cancel_scheduled' },
  ],
  [
    'subscription_cancelled',
    'subscription.updated',
    subscription,
    '2026-06-01T10:00:03Z',
    { kind: 'subscription_ended' },
  ],
  [
    'subscription_expired',
    'subscription.updated',
    subscription,
    '2027-05-01T10:00:03Z',
    { kind: 'subscription_ended' },
  ],
  [
    'subscription_switched',
    'subscription.switched',
    { ...subscription, externalIds: ['893', '890'] },
    '2026-05-10T10:00:00Z',
    { kind: 'plan_changed' },
  ],
  [
    'product_updated',
    'product.updated',
    { ...nothing, orderId: null, subscriptionId: null },
    '2026-05-11T09:30:00Z',
    { kind: 'other', type: 'product.updated' },
  ],
];

describe('Stores: WooCommerce events read as store events', () => {
  test.each(rows)('%s (%s)', (name, topic, links, occurredAt, facts) => {
    const body = fixture(name);
    const eventId = `f1d2e3c4b5a69788:${createHash('sha256').update(body).digest('hex')}`;
    expect(readWooCommerceEvent(delivery(topic, body))).toEqual({
      ok: true,
      event: { eventId, occurredAt: at(occurredAt), ...links, ...facts },
    });
  });

  test('events sent within one second (one delivery id) have their own ids; a resend has the same', () => {
    const idOf = (name: string) => {
      const reading = readWooCommerceEvent(delivery('order.updated', fixture(name)));
      return reading.ok ? reading.event.eventId : null;
    };
    expect(idOf('order_processing')).not.toBe(idOf('order_completed'));
    expect(idOf('order_processing')).toBe(idOf('order_processing'));
  });

  type Body = Record<string, unknown>;
  const edited = (name: string, edit: (body: Body) => void) => {
    const body = JSON.parse(fixture(name).toString()) as Body;
    edit(body);
    return JSON.stringify(body);
  };

  test('an active subscription that stops after its last period is paid until its end', () => {
    const body = edited('subscription_renewed', (sub) => {
      sub.next_payment_date_gmt = '';
      sub.end_date_gmt = '2026-07-01T10:00:02';
    });
    const reading = readWooCommerceEvent(delivery('subscription.updated', body));
    expect(reading.ok && reading.event).toMatchObject({
      kind: 'subscription_paid',
      periodEnd: at('2026-07-01T10:00:02Z'),
      nextPaymentAt: null,
    });
  });

  test('a renewal order whose subscription id is a number is linked to it as well', () => {
    const body = edited('renewal_order_refunded', (order) => {
      order.meta_data = [{ id: 9101, key: '_subscription_renewal', value: 5121 }];
    });
    const reading = readWooCommerceEvent(delivery('order.updated', body));
    expect(reading.ok && reading.event.subscriptionId).toBe('5121');
  });

  test("a guest's order names the buyer by the billing address alone", () => {
    const body = edited('order_processing', (order) => (order.customer_id = 0));
    const reading = readWooCommerceEvent(delivery('order.updated', body));
    expect(reading.ok && reading.event.customer).toEqual({ ...grace, id: null });
  });
});

describe('Stores: a WooCommerce delivery that cannot be read is refused with its reason', () => {
  const edited = (name: string, edit: (body: Record<string, unknown>) => void) => {
    const body = JSON.parse(fixture(name).toString()) as Record<string, unknown>;
    edit(body);
    return JSON.stringify(body);
  };

  test.each([
    [
      'no delivery id',
      delivery('order.updated', fixture('order_processing'), ' '),
      'WooCommerce: no X-WC-Webhook-Delivery-ID header',
    ],
    [
      'no topic',
      delivery(undefined, fixture('order_processing')),
      'WooCommerce: no X-WC-Webhook-Topic header',
    ],
    ['not JSON', delivery('order.updated', 'webhook_id=14'), 'WooCommerce: the body is not JSON'],
    [
      'an order without its line items',
      delivery(
        'order.updated',
        edited('order_processing', (order) => delete order.line_items),
      ),
      'WooCommerce: line_items',
    ],
    [
      'an order total that is not an amount',
      delivery(
        'order.updated',
        edited('order_processing', (order) => (order.total = 'forty')),
      ),
      'WooCommerce: total',
    ],
    [
      'a subscription without its status',
      delivery(
        'subscription.updated',
        edited('subscription_active', (sub) => delete sub.status),
      ),
      'WooCommerce: status',
    ],
    [
      'a date without its time',
      delivery(
        'subscription.updated',
        edited('subscription_active', (sub) => (sub.next_payment_date_gmt = '2026-06-01')),
      ),
      'WooCommerce: next_payment_date_gmt',
    ],
    [
      'an order without a date',
      delivery(
        'order.updated',
        edited('order_processing', (order) => {
          delete order.date_created_gmt;
          delete order.date_modified_gmt;
        }),
      ),
      'WooCommerce: 5120 has no date_modified_gmt or date_created_gmt',
    ],
  ])('%s', (_, sent, reason) => {
    const reading = readWooCommerceEvent(sent);
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.reason.startsWith(reason)).toBe(true);
  });
});
