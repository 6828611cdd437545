import { ConfigError, loadConfig, type Config, type ConfigVariable } from '../config/index.js';
import { createLogger, type Logger } from '../logging/index.js';
import { ReadinessProbe, startOpsServer, stopTracing } from '../observability/index.js';

/** The operations port of the process, as its start sees it. */
export interface OperationsPort {
  url: string;
  /** Where the process adds the dependencies it needs. */
  readiness: ReadinessProbe;
}

/**
 * The settings every process reads, whatever it runs: its log, its operations port (on HOST) and
 * tracing (libs/observability/tracing.ts).
 */
export const processSettings = [
  'LOG_LEVEL',
  'LOG_FORMAT',
  'HOST',
  'METRICS_PORT',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
] as const satisfies readonly ConfigVariable[];

/** What a service that runs as its own process reads to reach RabbitMQ (createTransport). */
export const messageBusSettings = [
  'AMQP_URL',
  'AMQP_PREFIX',
  'AMQP_PREFETCH',
  'AMQP_QUEUE_TYPE',
  'RPC_TIMEOUT_MS',
] as const satisfies readonly ConfigVariable[];

/** What a service that runs as its own process reads to reach its database (connectDatabase). */
export const databaseSettings = [
  'MONGODB_URL',
  'MONGODB_DB_PREFIX',
] as const satisfies readonly ConfigVariable[];

/**
 * What a process reads of the configuration besides processSettings, and what it cannot start
 * without (set, and not empty), checked with every other setting before anything starts.
 */
export interface ProcessSpec<S extends ConfigVariable = ConfigVariable, R extends S = S> {
  name: string;
  settings: readonly S[];
  required?: readonly R[];
}

/** The settings `R`, each known to be set. */
type SetSettings<R extends ConfigVariable> = { [K in R]-?: NonNullable<Config[K]> };

/** The configuration a process's start sees: the settings it reads, those it requires set. */
export type ProcessConfig<S extends ConfigVariable, R extends S> = Pick<Config, S> & SetSettings<R>;

/** How long a graceful stop may take before the process exits anyway. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * The start-up frame of every entry point (`services/<name>/main.ts`): close the files it writes
 * to other users (umask 077), load the configuration, open the operations port (METRICS_PORT:
 * /healthz, /readyz, /metrics), check the settings the process requires, start, and stop
 * cleanly on SIGINT/SIGTERM. `start` sees only the settings the process reads, and adds the
 * dependencies it needs to its readiness; it is ready once `start` has returned, and no longer
 * once it is stopping. A failed start exits with status 1.
 */
export function runProcess<S extends ConfigVariable, R extends S = never>(
  spec: ProcessSpec<S, R>,
  start: (
    config: ProcessConfig<S, R>,
    logger: Logger,
    ops: OperationsPort,
  ) => Promise<() => Promise<void>>,
): void {
  // What a process writes (npm start's DATA_DIR: the database, packages, keys; the embedded
  // database's server inherits it) is readable by its user only, whoever's code makes the file.
  process.umask(0o077);
  let config: Config;
  try {
    config = loadConfig(process.env, spec.required ?? [], [...processSettings, ...spec.settings]);
  } catch (error) {
    // Every setting to fix, one a line and at once, and no stack: nothing here is a fault.
    if (error instanceof ConfigError) {
      console.error(
        [
          `${spec.name} cannot start; fix these settings:`,
          ...error.problems.map((p) => `  ${p}`),
        ].join('\n'),
      );
    } else console.error(String(error));
    process.exit(1);
  }
  const logger = createLogger(spec.name, { level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const readiness = new ReadinessProbe([], 'starting');
  const started = async () => {
    const ops = await startOpsServer({ port: config.METRICS_PORT, host: config.HOST, readiness });
    logger.info({ url: ops.url }, 'operations port listening');
    try {
      // loadConfig checked the required settings are set.
      const stop = await start(config as Config & SetSettings<R>, logger, {
        url: ops.url,
        readiness,
      });
      return { stop, ops };
    } catch (error) {
      await ops.close();
      throw error;
    }
  };
  started().then(
    ({ stop, ops }) => {
      readiness.markStarted();
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'stopping');
        readiness.markStopping();
        // Nothing may hang: a stop that takes too long ends the process anyway. The bound leaves
        // room for HTTP requests in flight (10 s) and then RPC requests in hand (RPC timeout).
        setTimeout(() => process.exit(1), STOP_TIMEOUT_MS).unref();
        stop()
          .then(stopTracing)
          .then(ops.close)
          .then(
            () => process.exit(0),
            () => process.exit(1),
          );
      };
      process.on('SIGINT', () => shutdown('SIGINT'));
      process.on('SIGTERM', () => shutdown('SIGTERM'));
    },
    (error: unknown) => {
      // A setting to fix is said in one plain line; anything else is a fault, with its stack.
      if (error instanceof ConfigError) console.error(error.message);
      else if (isAddressInUse(error)) console.error(`${error.message}: choose another port.`);
      else logger.fatal({ err: error }, 'start-up failed');
      process.exit(1);
    },
  );
}

function isAddressInUse(error: unknown): error is Error {
  return error instanceof Error && (error as { code?: unknown }).code === 'EADDRINUSE';
}
