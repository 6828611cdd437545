/**
 * Starts the system under test, every part in a process of its own: the five services as
 * `npm run start:<service>` runs them (over RabbitMQ, rate limits counted in Redis), the database
 * and the object store they use, the bare Express baseline and the load generator.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { generateSigningKey } from '../libs/config/index.js';
import type { ChildGroup, LogLine } from './support/child-group.js';
import { freePorts } from './support/free-ports.js';
import { findProcess } from './cpu.js';
import { waitUntilReady, type Children } from './processes.js';
import type { ObjectStore, RunningSystem } from './running-system.js';
import { SERVICES, type BenchSettings, type ServiceName } from './settings.js';

/** What a service process may take to start and find its dependencies (tsx compiles on start). */
const START_TIMEOUT_MS = 120_000;
/** Rate limits high enough that the load is never refused; the counting itself still runs. */
export const RATE_LIMIT = '1000000000';
export const S3_BUCKET = 'bench-packages';

/** Settings of the run that change what is measured: they are printed with the results. */
export const SERVICE_SETTINGS = {
  SCHEDULED_TASKS: 'off',
  LOG_LEVEL: 'warn',
  LOG_FORMAT: 'json',
  RATE_LIMIT_PER_IP_PER_MINUTE: RATE_LIMIT,
  RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR: RATE_LIMIT,
  RATE_LIMIT_UPDATES_PER_MINUTE: RATE_LIMIT,
  RATE_LIMIT_DOWNLOADS_PER_MINUTE: RATE_LIMIT,
} as const;

/** Inherited settings that would change the system under test; the benchmark sets its own. */
const CLEARED = [
  'MONGODB_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_BUCKET',
  'S3_REGION',
  'PUBLIC_URL',
  'DOWNLOAD_SERVICE_URL',
  'STORAGE_DIR',
  'TRUST_PROXY',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
];

function stringField(line: LogLine, name: string, who: string): string {
  const value = line[name];
  if (typeof value !== 'string') throw new Error(`${who}: no ${name} in ${JSON.stringify(line)}`);
  return value;
}

/**
 * Fails at once, naming the setting, when nothing listens at a URL's host and port: the services
 * would retry for a minute before giving up.
 */
async function reachable(name: string, url: string, defaultPort: number): Promise<void> {
  const { hostname, port } = new URL(url);
  await new Promise<void>((resolve, reject) => {
    const socket = connect({
      host: hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(port) || defaultPort,
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('error', (error) =>
      reject(
        new Error(
          `${name} (${hostname}:${port || defaultPort}) cannot be reached: ${error.message}`,
        ),
      ),
    );
  });
}

/** A helper of ours (children/*.ts) and the JSON line it prints once started. */
async function startHelper(
  children: Children,
  name: string,
  script: string,
): Promise<{ child: ChildGroup; line: LogLine }> {
  const child = children.start({ name, script, env: process.env, ipc: true });
  const line = await child.waitForLine((l) => l.ready === true, START_TIMEOUT_MS, 'its ready line');
  return { child, line };
}

export async function startSystem(
  children: Children,
  settings: BenchSettings,
  progress: (message: string) => void,
  /** Where the service BENCH_PROFILE names writes its `--cpu-prof` profile. */
  profileDir?: string,
): Promise<RunningSystem> {
  const id = randomBytes(4).toString('hex');
  await reachable('AMQP_URL', settings.amqpUrl, 5672);
  await reachable('REDIS_URL', settings.redisUrl, 6379);
  progress(
    'starting the database, the object store, the bare Express app, the RPC floor, the load generator',
  );
  const [database, objectStore, bare, floor, loadWorker] = await Promise.all([
    settings.mongodbUrl === undefined
      ? startHelper(children, 'database', 'bench/children/database.ts')
      : Promise.resolve(undefined),
    startHelper(children, 'object store', 'bench/children/object-store.ts'),
    startHelper(children, 'bare Express', 'bench/children/bare-express.ts'),
    startHelper(children, 'RPC floor', 'bench/children/rpc-floor.ts'),
    (async () => {
      const child = children.start({
        name: 'load generator',
        script: 'bench/children/load-worker.ts',
        env: process.env,
        ipc: true,
      });
      await child.bounded(
        new Promise<void>((resolve) =>
          child.child.on('message', (m: { type?: string }) => m.type === 'ready' && resolve()),
        ),
        START_TIMEOUT_MS,
        () => 'its ready message',
      );
      return child;
    })(),
  ]);
  const mongodbUrl = database
    ? stringField(database.line, 'uri', 'database')
    : (settings.mongodbUrl as string);
  const store: ObjectStore = {
    endpoint: stringField(objectStore.line, 'endpoint', 'object store'),
    accessKey: stringField(objectStore.line, 'accessKey', 'object store'),
    secretKey: stringField(objectStore.line, 'secretKey', 'object store'),
    bucket: S3_BUCKET,
  };

  const [gatewayPort, adminPort, downloadPort, redirectPort, redirectOpsPort, ...opsPorts] =
    await freePorts(5 + SERVICES.length);
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const adminToken = randomBytes(24).toString('base64url');
  const databasePrefix = `bench${id}`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLEARED) delete env[name];
  Object.assign(env, SERVICE_SETTINGS, {
    AMQP_URL: settings.amqpUrl,
    AMQP_PREFIX: `bench.${id}`,
    REDIS_URL: settings.redisUrl,
    REDIS_PREFIX: `bench:${id}`,
    MONGODB_URL: mongodbUrl,
    MONGODB_DB_PREFIX: databasePrefix,
    HOST: '127.0.0.1',
    PORT: String(gatewayPort),
    PUBLIC_URL: gatewayUrl,
    ADMIN_PORT: String(adminPort),
    DOWNLOAD_PORT: String(downloadPort),
    ADMIN_TOKENS: adminToken,
    DOWNLOAD_SIGNING_KEY: randomBytes(24).toString('base64url'),
    SIGNING_KEY: generateSigningKey(),
    S3_ENDPOINT: store.endpoint,
    S3_ACCESS_KEY: store.accessKey,
    S3_SECRET_KEY: store.secretKey,
    S3_BUCKET: store.bucket,
    DATA_DIR: '',
  });

  const startService = async (name: ServiceName, index: number) => {
    const opsUrl = `http://127.0.0.1:${opsPorts[index] as number}`;
    const child = children.start({
      name,
      script: `services/${name}/main.ts`,
      env: { ...env, METRICS_PORT: String(opsPorts[index]) },
      nodeArgs:
        name === settings.profile && profileDir !== undefined
          ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]
          : undefined,
    });
    await waitUntilReady(child, opsUrl, START_TIMEOUT_MS);
    return child;
  };
  // The services first, so that their queues exist before the gateway takes requests.
  progress('starting license, update-catalog, download');
  const [license, updateCatalog, download] = await Promise.all([
    startService('license', SERVICES.indexOf('license')),
    startService('update-catalog', SERVICES.indexOf('update-catalog')),
    startService('download', SERVICES.indexOf('download')),
  ]);
  progress('starting gateway, management');
  const [gateway, management] = await Promise.all([
    startService('gateway', SERVICES.indexOf('gateway')),
    startService('management', SERVICES.indexOf('management')),
  ]);
  // A second gateway, in redirect mode, for the downloads' redirect row only.
  const redirectGateway = children.start({
    name: 'gateway (redirect)',
    script: 'services/gateway/main.ts',
    env: {
      ...env,
      PORT: String(redirectPort),
      PUBLIC_URL: `http://127.0.0.1:${redirectPort}`,
      METRICS_PORT: String(redirectOpsPort),
      DOWNLOAD_DELIVERY: 'redirect',
    },
  });
  await waitUntilReady(redirectGateway, `http://127.0.0.1:${redirectOpsPort}`, START_TIMEOUT_MS);

  const redisPort = new URL(settings.redisUrl).port || '6379';
  return {
    id,
    gatewayUrl,
    redirectGatewayUrl: `http://127.0.0.1:${redirectPort}`,
    redirectGateway,
    managementUrl: `http://127.0.0.1:${adminPort}`,
    adminToken,
    bareUrl: stringField(bare.line, 'url', 'bare Express'),
    floorUrl: stringField(floor.line, 'url', 'RPC floor'),
    objectStore: store,
    mongodbUrl,
    databasePrefix,
    services: {
      gateway,
      license,
      'update-catalog': updateCatalog,
      download,
      management,
    },
    bare: bare.child,
    floor: floor.child,
    loadWorker,
    databasePid: database ? Number(database.line.pid) : null,
    rabbitmqPid: findProcess('beam.smp', 'rabbit'),
    redisPid: findProcess('redis-server', `:${redisPort}`),
    objectStorePid: objectStore.child.pid,
  };
}
