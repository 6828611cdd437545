import type { Connection } from 'mongoose';
import type { Config, ConfigVariable } from '../../libs/config/index.js';
import type { Logger } from '../../libs/logging/index.js';
import {
  databaseSettings,
  messageBusSettings,
  type ProcessSpec,
} from '../../libs/process/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { createWebhookHandlers } from './handlers.js';
import { takeDomainEvent } from './intake.js';
import { openMongoWebhookStores } from './mongo-stores.js';
import { DeliverySender } from './sender.js';

/** The settings the webhooks service reads (README: Configuration). */
export const webhooksSettings = [
  'WEBHOOK_RETRY_SCHEDULE',
  'WEBHOOK_ALLOW_PRIVATE_URLS',
  'WEBHOOK_DELIVERY_RETENTION_DAYS',
] as const satisfies readonly ConfigVariable[];

/**
 * The webhooks service as its own process (main.ts), which reaches RabbitMQ and its database
 * itself: the settings it reads, and those it cannot start without.
 */
export const webhooksProcess = {
  name: 'webhooks',
  settings: [...messageBusSettings, ...databaseSettings, ...webhooksSettings],
  required: ['AMQP_URL', 'MONGODB_URL'],
} as const satisfies ProcessSpec;

/**
 * The webhooks service (docs/webhooks.md): owns the endpoints and their deliveries. It takes the
 * domain events the other services publish, writes a delivery per endpoint that wants each before
 * the event is acknowledged, and sends them, signed, retrying on WEBHOOK_RETRY_SCHEDULE. `stop`
 * ends the sending (attempts under way finish); the caller closes the connections it opened,
 * the transport first, so no event is taken while the sender stops.
 */
export async function webhooksFromConfig(
  config: Pick<Config, (typeof webhooksSettings)[number]>,
  deps: { db: Connection; transport: Transport; logger: Logger },
): Promise<{ stop(): Promise<void> }> {
  const { logger, transport } = deps;
  const stores = await openMongoWebhookStores(deps.db, config.WEBHOOK_DELIVERY_RETENTION_DAYS);
  const clock = () => new Date();
  const policy = { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS };
  if (policy.allowPrivate) {
    logger.warn(
      'WEBHOOK_ALLOW_PRIVATE_URLS is true: webhooks may be sent to loopback and private addresses',
    );
  }
  const sender = new DeliverySender({
    stores,
    schedule: config.WEBHOOK_RETRY_SCHEDULE,
    policy,
    logger,
    clock,
  });
  const nudge = () => sender.nudge();
  await transport.serve('webhooks', createWebhookHandlers({ stores, policy, clock, nudge }));
  await transport.consumeDomainEvents('webhooks', async (event) => {
    if ((await takeDomainEvent(event, { stores, clock })) > 0) nudge();
  });
  sender.start();
  logger.info('webhooks service ready');
  return { stop: () => sender.stop() };
}
