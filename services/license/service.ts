import type { Connection } from 'mongoose';
import { CatalogProducts } from '../../libs/cache/index.js';
import { scheduleSettings, type Config, type ConfigVariable } from '../../libs/config/index.js';
import type { Logger } from '../../libs/logging/index.js';
import {
  databaseSettings,
  messageBusSettings,
  type ProcessSpec,
} from '../../libs/process/index.js';
import { DailyCounter, openMongoDailyCounts } from '../../libs/daily-counts/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import type { Transport } from '../../libs/transport/index.js';
import { countedEvents, licenseMetrics } from './overview/daily-counts.js';
import { publishedEvents } from './events.js';
import { createLicenseHandlers } from './handlers.js';
import { openMongoStores } from './mongo-stores.js';
import { startScheduler } from './lifecycle/scheduler.js';

/** The settings the license service reads (README: Configuration). */
export const licenseSettings = [
  'PRODUCT_CACHE_TTL_MS',
  'PLAN_CACHE_TTL_MS',
  'SCHEDULED_TASKS',
  'EXPIRY_TASK_EVERY',
  'LEASE_TASK_EVERY',
  'PRUNE_TASK_EVERY',
  'SCHEDULER_POLL_EVERY',
  'SCHEDULED_TASK_TIMEOUT',
] as const satisfies readonly ConfigVariable[];

/**
 * The license service as its own process (main.ts), which reaches RabbitMQ and its database itself:
 * the settings it reads, and those it cannot start without.
 */
export const licenseProcess = {
  name: 'license',
  settings: [...messageBusSettings, ...databaseSettings, ...licenseSettings],
  required: ['AMQP_URL', 'MONGODB_URL'],
} as const satisfies ProcessSpec;

/**
 * The license service: owns plans, licenses, activations and rejected activation attempts, and
 * runs their scheduled tasks (spec 2.5 and 3.1), and keeps the daily counts of what happens to
 * them. `stop` ends the scheduler and writes the counts held; the caller closes the connections
 * it opened.
 */
export async function licenseFromConfig(
  config: Pick<Config, (typeof licenseSettings)[number]>,
  deps: { db: Connection; transport: Transport; logger: Logger },
): Promise<{ stop(): Promise<void> }> {
  const schedule = scheduleSettings(config);
  const stores = await openMongoStores(deps.db, deps.logger);
  const products = new CatalogProducts(deps.transport, config.PRODUCT_CACHE_TTL_MS);
  await products.start();
  // The admin overview's daily counts, held in memory and written every second.
  const counts = new DailyCounter({
    store: await openMongoDailyCounts(deps.db, licenseMetrics),
    logger: deps.logger,
  });
  counts.start();
  // Domain events go out on the transport, durably, and to the log (libs/contracts/events/domain-events.ts),
  // and are counted.
  const events = countedEvents(
    publishedEvents(domainEventPublisher(deps.transport, deps.logger), deps.logger),
    counts,
  );
  await deps.transport.serve(
    'license',
    createLicenseHandlers({
      stores,
      products,
      clock: () => new Date(),
      schedule,
      events,
      counts,
      planCacheTtlMs: config.PLAN_CACHE_TTL_MS,
    }),
  );
  const scheduler = await startScheduler({
    db: deps.db,
    stores,
    events,
    logger: deps.logger,
    settings: schedule,
  });
  deps.logger.info('license service ready');
  return {
    stop: async () => {
      await scheduler.stop();
      // What was counted since the last write.
      await counts.stop();
    },
  };
}
