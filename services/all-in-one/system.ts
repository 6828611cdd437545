import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Connection } from 'mongoose';
import {
  ConfigError,
  adminTokenFile,
  displayUrl,
  embeddedDatabaseDirectory,
  embeddedStorageDirectory,
  generateAdminToken,
  generateSigningKey,
  parseSigningKeys,
  signingKeyFile,
  type Config,
  type SigningKeys,
} from '../../libs/config/index.js';
import {
  connectDatabase,
  databaseCheck,
  startEmbeddedDatabase,
} from '../../libs/database/index.js';
import { publishedKeySet } from '../../libs/http/index.js';
import { createLogger, type Logger } from '../../libs/logging/index.js';
import { ReadinessProbe } from '../../libs/observability/index.js';
import {
  createTransport,
  InProcessBus,
  messageBusCheck,
  type Transport,
} from '../../libs/transport/index.js';
import { downloadFromConfig, type RunningDownloadService } from '../download/service.js';
import { gatewayFromConfig } from '../gateway/service.js';
import { licenseFromConfig } from '../license/service.js';
import { managementFromConfig } from '../management/service.js';
import { storePortsFromConfig } from '../stores/store-ports.js';
import { storesFromConfig, type StorePorts } from '../stores/service.js';
import { updateCatalogFromConfig } from '../update-catalog/service.js';
import { webhooksFromConfig } from '../webhooks/service.js';
import { makeDataDirectories } from './data-directories.js';

export interface SystemOptions {
  config: Config;
  /** License-service replicas to run (each with its own transport connection). */
  licenseReplicas?: number;
  /** Webhooks-service replicas to run (each with its own transport connection). */
  webhooksReplicas?: number;
  /** The stores service's ports a test gives (fakes, Stripe's API on loopback); the rest as set. */
  storePorts?: Partial<StorePorts>;
  /** How often the stores service looks for past-due licenses (default: every minute). */
  storeGraceSweepMs?: number;
  logger?: Logger;
  /** The readiness of the process: gets the dependencies the system needs. */
  readiness?: ReadinessProbe;
}

export interface RunningSystem {
  gatewayUrl: string;
  managementUrl: string;
  adminToken: string;
  /** What the system runs on, in words, for the start-up banner. */
  setup: {
    transport: string;
    database: string;
    storage: string;
    /** The directory the data is kept in, or null when nothing is kept (DATA_DIR empty). */
    dataDirectory: string | null;
    /** Where the generated admin token is kept, when it was generated and is kept. */
    adminTokenFile: string | null;
    /** Whether the admin token is ADMIN_TOKENS' first. */
    adminTokenFromSettings: boolean;
    /** The id (JWK thumbprint) of the key that signs answers and license files. */
    signingKid: string;
    /** Where the generated signing key is kept, when it was generated and is kept. */
    signingKeyFile: string | null;
  };
  /** A transport of the system's own, for tests and tools that call services directly. */
  transport: Transport;
  /** The download service: its internal URL and the package storage (tests, the benchmark). */
  download: Pick<RunningDownloadService, 'url' | 'storage'>;
  stop(): Promise<void>;
}

/**
 * Runs every service in this process: the embedded default of `npm start`, and the harness of
 * the integration tests. With AMQP_URL set the services still talk over RabbitMQ; without it,
 * over the in-process bus. Without MONGODB_URL an embedded MongoDB server is started.
 */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const { config } = options;
  const readiness = options.readiness ?? new ReadinessProbe();
  const logger =
    options.logger ??
    createLogger('all-in-one', { level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        logger.warn({ err: error }, 'stopping failed');
      }
    }
  };
  try {
    await makeDataDirectories(config, logger);
    let mongoUrl = config.MONGODB_URL;
    if (!mongoUrl) {
      const embedded = await startEmbeddedDatabase(embeddedDatabaseDirectory(config));
      stops.push(embedded.stop);
      mongoUrl = embedded.url;
    }
    const bus = config.AMQP_URL ? undefined : new InProcessBus();
    const connectTransport = async (role: string) => {
      const transport = await createTransport(config, logger.child({ role }), role, bus);
      stops.push(() => transport.close());
      return transport;
    };
    const connectDb = async (service: string): Promise<Connection> => {
      const db = await connectDatabase(mongoUrl, config.MONGODB_DB_PREFIX, service);
      stops.push(() => db.close());
      return db;
    };

    const catalogDb = await connectDb('update-catalog');
    // Every service's database is on the one server: one connection's check stands for them.
    readiness.add(databaseCheck(catalogDb));
    await updateCatalogFromConfig(config, {
      db: catalogDb,
      transport: await connectTransport('update-catalog'),
      logger: logger.child({ service: 'update-catalog' }),
    });
    for (let i = 0; i < (options.licenseReplicas ?? 1); i++) {
      const license = await licenseFromConfig(config, {
        db: await connectDb('license'),
        transport: await connectTransport(`license-${i + 1}`),
        logger: logger.child({ service: 'license', replica: i + 1 }),
      });
      stops.push(license.stop);
    }
    for (let i = 0; i < (options.webhooksReplicas ?? 1); i++) {
      const webhooks = await webhooksFromConfig(config, {
        db: await connectDb('webhooks'),
        transport: await connectTransport(`webhooks-${i + 1}`),
        logger: logger.child({ service: 'webhooks', replica: i + 1 }),
      });
      stops.push(webhooks.stop);
    }
    const storesTransport = await connectTransport('stores');
    const storesLogger = logger.child({ service: 'stores' });
    const stores = await storesFromConfig(
      config,
      {
        db: await connectDb('stores'),
        transport: storesTransport,
        logger: storesLogger,
        graceSweepMs: options.storeGraceSweepMs,
      },
      storePortsFromConfig(config, storesTransport, storesLogger, options.storePorts),
    );
    stops.push(stores.stop);
    // In one process the download port is internal: loopback, on a free port, at its own URL.
    const download = await downloadFromConfig(
      {
        ...config,
        HOST: '127.0.0.1',
        DOWNLOAD_PORT: 0,
        DOWNLOAD_SERVICE_URL: undefined,
        DOWNLOAD_SIGNING_KEY: config.DOWNLOAD_SIGNING_KEY || randomBytes(32).toString('base64url'),
      },
      {
        db: await connectDb('download'),
        transport: await connectTransport('download'),
        logger: logger.child({ service: 'download' }),
        readiness,
      },
    );
    stops.push(download.stop);

    const tokenFile = config.ADMIN_TOKENS.length > 0 ? undefined : adminTokenFile(config);
    const adminToken =
      config.ADMIN_TOKENS[0] ??
      (tokenFile ? await keptAdminToken(tokenFile) : generateAdminToken());
    const adminTokens = config.ADMIN_TOKENS.length > 0 ? config.ADMIN_TOKENS : [adminToken];
    const keyFile = config.SIGNING_KEY ? undefined : signingKeyFile(config);
    const signingKeys =
      config.SIGNING_KEY ??
      (keyFile ? await keptSigningKey(keyFile) : signingKeysOf(generateSigningKey(), 'generated'));
    const gatewayTransport = await connectTransport('gateway');
    readiness.add(messageBusCheck(gatewayTransport, config));
    const gateway = await gatewayFromConfig(
      { ...config, SIGNING_KEY: signingKeys },
      {
        transport: gatewayTransport,
        logger: logger.child({ service: 'gateway' }),
        readiness,
      },
    );
    stops.push(gateway.stop);
    const management = await managementFromConfig(
      {
        ...config,
        ADMIN_TOKENS: adminTokens,
        SIGNING_KEY: signingKeys,
        // The key set's and the stores' events addresses as the console shows them: the
        // gateway's own, unless configured.
        PUBLIC_URL: config.PUBLIC_URL ?? gateway.url,
      },
      {
        db: await connectDb('management'),
        transport: await connectTransport('management'),
        logger: logger.child({ service: 'management' }),
        readiness,
      },
    );
    stops.push(management.stop);

    return {
      gatewayUrl: gateway.url,
      managementUrl: management.url,
      adminToken,
      setup: {
        ...describeSetup(config, tokenFile),
        signingKid: (await publishedKeySet(signingKeys)).keys[0]!.kid,
        signingKeyFile: keyFile ?? null,
      },
      transport: gatewayTransport,
      download: { url: download.url, storage: download.storage },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The admin token `npm start` generated on an earlier run, or a new one kept for the next run:
 * readable by this user only, since it opens the management API.
 */
async function keptAdminToken(file: string): Promise<string> {
  try {
    const kept = (await readFile(file, 'utf8')).trim();
    if (kept !== '') return kept;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
  }
  const token = generateAdminToken();
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/** A signing key as `npm start` reads one: refused with the place it came from. */
function signingKeysOf(pem: string, where: string): SigningKeys {
  const keys = parseSigningKeys(pem);
  if (typeof keys === 'string') throw new ConfigError(`The signing key ${where}: ${keys}`);
  return keys;
}

/**
 * The signing key `npm start` generated on an earlier run, or a new one kept for the next run:
 * answers and license files signed before a restart still verify after it. Readable by this
 * user only, since it signs in the service's name.
 */
async function keptSigningKey(file: string): Promise<SigningKeys> {
  try {
    const kept = await readFile(file, 'utf8');
    if (kept.trim() !== '') return signingKeysOf(kept, `in ${file}`);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
  }
  const pem = generateSigningKey();
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, pem, { mode: 0o600 });
  return signingKeysOf(pem, 'generated');
}

function describeSetup(
  config: Config,
  tokenFile: string | undefined,
): Omit<RunningSystem['setup'], 'signingKid' | 'signingKeyFile'> {
  const lost = 'in a temporary directory, removed at stop';
  const databaseDirectory = embeddedDatabaseDirectory(config);
  const storageDirectory = embeddedStorageDirectory(config);
  return {
    transport: config.AMQP_URL
      ? `RabbitMQ at ${displayUrl(config.AMQP_URL)}`
      : 'in-process message bus',
    database: config.MONGODB_URL
      ? `MongoDB at ${displayUrl(config.MONGODB_URL)}`
      : `embedded MongoDB, data ${databaseDirectory ? `in ${databaseDirectory}` : lost}`,
    storage: config.S3_ENDPOINT
      ? `S3 at ${displayUrl(config.S3_ENDPOINT)}, bucket ${config.S3_BUCKET}`
      : `embedded S3 store, files ${storageDirectory ? `in ${storageDirectory}` : lost}`,
    dataDirectory: config.DATA_DIR === '' ? null : path.resolve(config.DATA_DIR),
    adminTokenFile: tokenFile ?? null,
    adminTokenFromSettings: config.ADMIN_TOKENS.length > 0,
  };
}
