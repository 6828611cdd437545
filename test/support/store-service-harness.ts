import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import type { StoreLicensesChanged } from '../../libs/contracts/index.js';
import type { ReceiveStoreEventRequest } from '../../libs/contracts/stores/received-store-events.js';
import type {
  CreateStoreConnectionRequest,
  StoreProvider,
} from '../../libs/contracts/stores/store-connections.js';
import { createLogger, type Logger } from '../../libs/logging/index.js';
import { StoreEventApplier } from '../../services/stores/applying/applier.js';
import type { StoreApi } from '../../services/stores/applying/store-api.js';
import { createStoreHandlers } from '../../services/stores/handlers.js';
import { fakeBuyerMail, fakeStoreLicenses } from './fake-store-licenses.js';
import { waitingCall } from './license-handler-harness.js';
import { memoryStoreServiceStores } from './store-service-memory-stores.js';

export const SECRET = 'whsec_current_secret_123';

/**
 * The headers a store sends with `body`, signed with `secret` at `now` as that store signs
 * (docs/stores.md, the signature table); WooCommerce's with its topic and a delivery id.
 */
export function signedHeaders(
  provider: StoreProvider,
  body: Buffer,
  now: Date,
  secret = SECRET,
  wooTopic = 'order.updated',
): Record<string, string> {
  const seconds = Math.floor(now.getTime() / 1000);
  const hmac = (data: Buffer | string, encoding: 'hex' | 'base64') =>
    createHmac('sha256', secret).update(data).digest(encoding);
  switch (provider) {
    case 'stripe':
      return {
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({
          payload: body.toString(),
          secret,
          timestamp: seconds,
        }),
      };
    case 'paddle':
      return {
        'paddle-signature': `ts=${seconds};h1=${hmac(Buffer.concat([Buffer.from(`${seconds}:`), body]), 'hex')}`,
      };
    case 'lemonsqueezy':
      return { 'x-signature': hmac(body, 'hex') };
    case 'woocommerce':
      return {
        'x-wc-webhook-signature': hmac(body, 'base64'),
        'x-wc-webhook-topic': wooTopic,
        'x-wc-webhook-delivery-id': 'b6b7a6d3c3e14f0f',
      };
  }
}

const noStoreApi = async (): Promise<never> => {
  throw new Error('no store API in this test');
};

/**
 * The stores service's handlers and an applier on in-memory stores, a fake license service and
 * buyer mail, at a clock the test moves; `reported` holds the license changes it reported for the
 * audit log, as it would publish them. Of the stores' APIs, what `storeApi` gives answers; any
 * other call fails.
 */
export function storeServiceHarness(
  options: { storeApi?: Partial<StoreApi>; logger?: Logger } = {},
) {
  const stores = memoryStoreServiceStores();
  const licenses = fakeStoreLicenses();
  const mail = fakeBuyerMail();
  let now = new Date('2026-11-28T12:00:00Z');
  const clock = () => new Date(now);
  const logger = options.logger ?? createLogger('test', 'silent');
  const reported: Array<{ changes: StoreLicensesChanged; at: Date }> = [];
  const applierDeps = {
    stores,
    licenses: licenses.port,
    mail: mail.mail,
    storeApi: {
      checkoutSessionPriceIds: noStoreApi,
      paidInvoice: noStoreApi,
      paddleCustomer: noStoreApi,
      ...options.storeApi,
    },
    reports: {
      licensesChanged: (changes: StoreLicensesChanged, at: Date) => {
        reported.push({ changes: structuredClone(changes), at });
      },
    },
    clock,
    logger,
    leaseMs: 60_000,
  };
  const newApplier = () => new StoreEventApplier(applierDeps);
  const handlers = createStoreHandlers({ stores, clock, logger, nudge: () => {} });
  return {
    stores,
    licenses,
    mail,
    reported,
    handlers,
    clock,
    applierDeps,
    applier: newApplier(),
    newApplier,
    setNow(date: Date) {
      now = new Date(date);
    },
    async connect(provider: StoreProvider, settings: Partial<CreateStoreConnectionRequest> = {}) {
      return handlers['stores.createConnection'](
        {
          name: `${provider} shop`,
          provider,
          mode: 'live',
          signing_secret: SECRET,
          api_key: null,
          grace_days: 3,
          emails: { created: true, renewed: true, suspended: true, cancelled: true },
          ...settings,
        },
        waitingCall(),
      );
    },
    async map(
      connectionId: number,
      externalId: string,
      planId = 20,
      durationDays: number | null = null,
    ) {
      return handlers['stores.createMapping'](
        {
          connection_id: connectionId,
          external_id: externalId,
          product_id: 10,
          plan_id: planId,
          renewal: 'gateway',
          duration_days: durationDays,
        },
        waitingCall(),
      );
    },
    /** Delivers `body` to the connection, signed as its store signs at the clock's time. */
    async deliver(
      connection: { id: number; provider: StoreProvider },
      body: Buffer,
      headers: ReceiveStoreEventRequest['headers'] = signedHeaders(
        connection.provider,
        body,
        clock(),
      ),
    ) {
      return handlers['stores.receiveEvent'](
        { connection_id: connection.id, body: body.toString('base64'), headers },
        waitingCall(),
      );
    },
  };
}
