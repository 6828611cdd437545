import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { createLogger, type Logger } from '../logging/index.js';
import { ReadinessProbe, startOpsServer, stopTracing } from '../observability/index.js';

/** The operations port of the process, as its start sees it. */
export interface OperationsPort {
  url: string;
  /** Where the process adds the dependencies it needs. */
  readiness: ReadinessProbe;
}

/** How long a graceful stop may take before the process exits anyway. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * The start-up frame of every entry point (`services/<name>/main.ts`): load the configuration,
 * open the operations port (METRICS_PORT: /healthz, /readyz, /metrics), start, and stop cleanly
 * on SIGINT/SIGTERM. `start` adds the dependencies the process needs to its readiness; it is
 * ready once `start` has returned, and no longer once it is stopping. A failed start exits with
 * status 1.
 */
export function runProcess(
  name: string,
  start: (config: Config, logger: Logger, ops: OperationsPort) => Promise<() => Promise<void>>,
): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  const logger = createLogger(name, { level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const readiness = new ReadinessProbe([], 'starting');
  const started = async () => {
    const ops = await startOpsServer({ port: config.METRICS_PORT, host: config.HOST, readiness });
    logger.info({ url: ops.url }, 'operations port listening');
    try {
      const stop = await start(config, logger, { url: ops.url, readiness });
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

/** Services that run as their own process need the shared infrastructure's addresses. */
export function requireSetting(value: string | undefined, name: string): string {
  if (!value) {
    throw new ConfigError(`${name} is required when this service runs as its own process.`);
  }
  return value;
}
