import type { Connection } from 'mongoose';
import type { Config, ConfigVariable } from '../../libs/config/index.js';
import type { Logger } from '../../libs/logging/index.js';
import {
  databaseSettings,
  messageBusSettings,
  type ProcessSpec,
} from '../../libs/process/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import type { Transport } from '../../libs/transport/index.js';
import { StoreEventApplier } from './applying/applier.js';
import { noBuyerMail, type BuyerMail } from './applying/buyer-mail.js';
import { publishedChangeReports } from './applying/change-reports.js';
import type { StoreApi } from './applying/store-api.js';
import type { StoreLicenses } from './applying/store-licenses.js';
import { buyerMailSettings } from './mail/mail-settings.js';
import { createStoreHandlers } from './handlers.js';
import { openMongoStoreServiceStores } from './mongo-stores.js';
import type { StoreServiceStores } from './stores.js';

/** The settings the stores service reads (README: Configuration), beside the e-mail's. */
export const storesSettings = [
  'STORES_APPLY_LEASE_SECONDS',
  'STRIPE_API_URL',
  'PADDLE_API_URL',
] as const satisfies readonly ConfigVariable[];

/**
 * The stores service as its own process (main.ts), which reaches RabbitMQ and its database
 * itself: the settings it reads, and those it cannot start without.
 */
export const storesProcess = {
  name: 'stores',
  settings: [...messageBusSettings, ...databaseSettings, ...buyerMailSettings, ...storesSettings],
  required: ['AMQP_URL', 'MONGODB_URL'],
} as const satisfies ProcessSpec;

/** What the applier changes licenses, mails buyers and reads stores' APIs through. */
export interface StorePorts {
  licenses: StoreLicenses;
  mail?: BuyerMail;
  storeApi: StoreApi;
}

/**
 * The stores service (docs/stores.md): owns the store connections, their product mappings and
 * the events the stores delivered. It answers a delivery once the event is written, and applies
 * the pending events after, one at a time per replica under a lease, publishing the license
 * changes each made (`store.licenses_changed`) for the management service's audit log. `stop` ends the applying
 * (the event under way finishes); the caller closes the connections it opened, the transport
 * first, so no delivery is taken while the applier stops.
 */
export async function storesFromConfig(
  config: Pick<Config, (typeof storesSettings)[number]>,
  deps: {
    db: Connection;
    transport: Transport;
    logger: Logger;
    /** How often the applier looks for past-due licenses (default: every minute). */
    graceSweepMs?: number;
  },
  ports: StorePorts,
): Promise<{ stop(): Promise<void>; stores: StoreServiceStores }> {
  const { logger, transport } = deps;
  const stores = await openMongoStoreServiceStores(deps.db);
  const clock = () => new Date();
  const applier = new StoreEventApplier({
    stores,
    licenses: ports.licenses,
    mail: ports.mail ?? noBuyerMail,
    storeApi: ports.storeApi,
    reports: publishedChangeReports(domainEventPublisher(transport, logger)),
    clock,
    logger,
    leaseMs: config.STORES_APPLY_LEASE_SECONDS * 1000,
    graceSweepMs: deps.graceSweepMs,
  });
  const nudge = () => applier.nudge();
  await transport.serve('stores', createStoreHandlers({ stores, clock, logger, nudge }));
  applier.start();
  logger.info('stores service ready');
  return { stop: () => applier.stop(), stores };
}
