import type { Connection } from 'mongoose';
import { CatalogProducts } from '../../libs/cache/index.js';
import {
  embeddedStorageDirectory,
  type Config,
  type ConfigVariable,
} from '../../libs/config/index.js';
import { listen } from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { ReadinessProbe } from '../../libs/observability/index.js';
import {
  databaseSettings,
  messageBusSettings,
  type ProcessSpec,
} from '../../libs/process/index.js';
import { DailyCounter, openMongoDailyCounts } from '../../libs/daily-counts/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import type { Transport } from '../../libs/transport/index.js';
import { countedDownloadEvents, downloadMetrics } from './daily-counts.js';
import { startEmbeddedStorage } from './embedded-storage/embedded-storage.js';
import { publishedDownloadEvents } from './events.js';
import { createDownloadHandlers } from './handlers.js';
import { createDownloadApp } from './uploads/http.js';
import { DownloadLogWriter } from './download-log/log.js';
import { openMongoDownloadLog } from './download-log/mongo-stores.js';
import { PackageStorage } from './storage.js';
import { TicketSigner } from './uploads/tickets.js';

/** Uploads of large packages take a while; a connection that stalls is still closed. */
const UPLOAD_REQUEST_TIMEOUT_MS = 60 * 60_000;
const IDLE_TIMEOUT_MS = 60_000;

/** The settings the download service reads (README: Configuration). */
export const downloadSettings = [
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_BUCKET',
  'S3_REGION',
  'S3_PUBLIC_ENDPOINT',
  'STORAGE_DIR',
  'DATA_DIR',
  'HOST',
  'DOWNLOAD_PORT',
  'DOWNLOAD_SERVICE_URL',
  'DOWNLOAD_SIGNING_KEY',
  'MAX_UPLOAD_BYTES',
  'DOWNLOAD_LOG_BATCH_MS',
  'PRODUCT_CACHE_TTL_MS',
  'SPARKLE_PRIVATE_KEY',
  'SPARKLE_PRIVATE_KEY_FILE',
] as const satisfies readonly ConfigVariable[];

/**
 * The download service as its own process (main.ts), which reaches RabbitMQ and its database
 * itself: the settings it reads, and those it cannot start without.
 */
export const downloadProcess = {
  name: 'download',
  settings: [...messageBusSettings, ...databaseSettings, ...downloadSettings],
  required: ['AMQP_URL', 'DOWNLOAD_SIGNING_KEY', 'MONGODB_URL'],
} as const satisfies ProcessSpec;

export interface RunningDownloadService {
  /** Where the gateway and management reach this service's HTTP port. */
  url: string;
  storage: PackageStorage;
  stop(): Promise<void>;
}

/**
 * The download service (docs/architecture.md): owns the package storage (an S3 bucket; the
 * embedded s3rver when S3_ENDPOINT is unset) and the download log. It decides downloads and
 * hands out upload URLs over RPC, and moves the bytes on its own HTTP port (DOWNLOAD_PORT on
 * HOST). `readiness` gets its package storage; the caller closes the connections it opened.
 */
export async function downloadFromConfig(
  config: Pick<Config, (typeof downloadSettings)[number]>,
  deps: { db: Connection; transport: Transport; logger: Logger; readiness: ReadinessProbe },
): Promise<RunningDownloadService> {
  const { logger } = deps;
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) {
      await step().catch((error: unknown) => logger.warn({ err: error }, 'stopping failed'));
    }
  };
  try {
    const tickets = new TicketSigner(config.DOWNLOAD_SIGNING_KEY);
    let endpoint = config.S3_ENDPOINT;
    let credentials = { accessKey: config.S3_ACCESS_KEY, secretKey: config.S3_SECRET_KEY };
    if (!endpoint) {
      const embedded = await startEmbeddedStorage(embeddedStorageDirectory(config), {
        onInternalError: (error, request) =>
          logger.error({ err: error, ...request }, 'embedded package storage failed a request'),
      });
      stops.push(embedded.stop);
      endpoint = embedded.endpoint;
      credentials = { accessKey: embedded.accessKey, secretKey: embedded.secretKey };
      logger.info({ directory: embedded.directory }, 'embedded package storage started');
    }
    const storage = await PackageStorage.connect({
      endpoint,
      ...credentials,
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      ...(config.S3_PUBLIC_ENDPOINT ? { publicEndpoint: config.S3_PUBLIC_ENDPOINT } : {}),
      servesClients: Boolean(config.S3_ENDPOINT),
    });

    const downloadLog = await openMongoDownloadLog(deps.db);
    // The admin overview's daily counts, held in memory and written every second.
    const counts = new DailyCounter({
      store: await openMongoDailyCounts(deps.db, downloadMetrics),
      logger,
    });
    counts.start();
    // Written last: what the log's last entries counted.
    stops.push(() => counts.stop());
    const logWriter = new DownloadLogWriter({
      store: downloadLog,
      // The log's entries, once written, as domain events (libs/contracts/events/domain-events.ts), counted.
      events: countedDownloadEvents(
        publishedDownloadEvents(domainEventPublisher(deps.transport, logger), logger),
        counts,
      ),
      logger,
      batchMs: config.DOWNLOAD_LOG_BATCH_MS,
    });
    // Last of the service's own steps, after the byte port has closed.
    stops.push(() => logWriter.close());

    const server = await listen(
      createDownloadApp({
        storage,
        tickets,
        logger,
        maxUploadBytes: config.MAX_UPLOAD_BYTES,
      }),
      config.DOWNLOAD_PORT,
      config.HOST,
      logger,
      { requestTimeoutMs: UPLOAD_REQUEST_TIMEOUT_MS, idleTimeoutMs: IDLE_TIMEOUT_MS },
    );
    stops.push(server.close);
    const url = (config.DOWNLOAD_SERVICE_URL ?? server.url).replace(/\/+$/, '');

    const products = new CatalogProducts(deps.transport, config.PRODUCT_CACHE_TTL_MS);
    await products.start();
    await deps.transport.serve(
      'download',
      createDownloadHandlers({
        downloadLog,
        logWriter,
        storage,
        transport: deps.transport,
        products,
        tickets,
        baseUrl: url,
        counts,
        sparkleKey: config.SPARKLE_PRIVATE_KEY,
        maxSignBytes: config.MAX_UPLOAD_BYTES,
      }),
    );
    deps.readiness.add({ name: 'object_storage', check: () => storage.check() });
    logger.info(
      {
        url,
        bucket: config.S3_BUCKET,
        // The public half only: which key signs macOS packages, for the seller to compare.
        sparkle_public_key: config.SPARKLE_PRIVATE_KEY?.publicKey ?? null,
      },
      'download service ready',
    );
    return { url, storage, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
