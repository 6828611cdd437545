import type { Connection } from 'mongoose';
import { CatalogProducts } from '../../libs/cache/index.js';
import { embeddedStorageDirectory, type Config } from '../../libs/config/index.js';
import { listen } from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { startEmbeddedStorage } from './embedded-storage.js';
import { createDownloadHandlers } from './handlers.js';
import { createDownloadApp } from './http.js';
import { DownloadLogWriter } from './log.js';
import { openMongoDownloadLog } from './mongo-stores.js';
import { PackageStorage } from './storage.js';
import { TicketSigner } from './tickets.js';

/** Uploads of large packages take a while; a connection that stalls is still closed. */
const UPLOAD_REQUEST_TIMEOUT_MS = 60 * 60_000;
const IDLE_TIMEOUT_MS = 60_000;

export type DownloadSettings = Pick<
  Config,
  | 'S3_ENDPOINT'
  | 'S3_ACCESS_KEY'
  | 'S3_SECRET_KEY'
  | 'S3_BUCKET'
  | 'S3_REGION'
  | 'STORAGE_DIR'
  | 'DATA_DIR'
  | 'DOWNLOAD_SERVICE_URL'
  | 'MAX_UPLOAD_BYTES'
  | 'DOWNLOAD_LOG_BATCH_MS'
>;

export interface RunningDownloadService {
  /** Where the gateway and management reach this service's HTTP port. */
  url: string;
  storage: PackageStorage;
  stop(): Promise<void>;
}

/**
 * The download service (docs/architecture.md): owns the package storage (an S3 bucket; the
 * embedded s3rver when S3_ENDPOINT is unset) and the download log. It decides downloads and
 * hands out upload URLs over RPC, and moves the bytes on its own HTTP port.
 */
export async function startDownloadService(deps: {
  db: Connection;
  transport: Transport;
  logger: Logger;
  settings: DownloadSettings;
  signingKey: string;
  /** How long a product read from the catalog is kept between announced changes. */
  productCacheTtlMs: number;
  /** The HTTP listener: host and port (0 picks a free one). */
  host: string;
  port: number;
}): Promise<RunningDownloadService> {
  const { settings, logger } = deps;
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) {
      await step().catch((error: unknown) => logger.warn({ err: error }, 'stopping failed'));
    }
  };
  try {
    const tickets = new TicketSigner(deps.signingKey);
    let endpoint = settings.S3_ENDPOINT;
    let credentials = { accessKey: settings.S3_ACCESS_KEY, secretKey: settings.S3_SECRET_KEY };
    if (!endpoint) {
      const embedded = await startEmbeddedStorage(embeddedStorageDirectory(settings));
      stops.push(embedded.stop);
      endpoint = embedded.endpoint;
      credentials = { accessKey: embedded.accessKey, secretKey: embedded.secretKey };
      logger.info({ directory: embedded.directory }, 'embedded package storage started');
    }
    const storage = await PackageStorage.connect({
      endpoint,
      ...credentials,
      bucket: settings.S3_BUCKET,
      region: settings.S3_REGION,
    });

    const downloadLog = await openMongoDownloadLog(deps.db);
    const logWriter = new DownloadLogWriter({
      store: downloadLog,
      logger,
      batchMs: settings.DOWNLOAD_LOG_BATCH_MS,
    });
    // Last of the service's own steps, after the byte port has closed.
    stops.push(() => logWriter.close());

    const server = await listen(
      createDownloadApp({
        storage,
        tickets,
        logger,
        logWriter,
        maxUploadBytes: settings.MAX_UPLOAD_BYTES,
      }),
      deps.port,
      deps.host,
      { requestTimeoutMs: UPLOAD_REQUEST_TIMEOUT_MS, idleTimeoutMs: IDLE_TIMEOUT_MS },
    );
    stops.push(server.close);
    const url = (settings.DOWNLOAD_SERVICE_URL ?? server.url).replace(/\/+$/, '');

    const products = new CatalogProducts(deps.transport, deps.productCacheTtlMs);
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
      }),
    );
    logger.info({ url, bucket: settings.S3_BUCKET }, 'download service ready');
    return { url, storage, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
