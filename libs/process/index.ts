import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { createLogger, type Logger } from '../logging/index.js';

/** How long a graceful stop may take before the process exits anyway. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * The start-up frame of every entry point (`services/<name>/main.ts`): load the configuration,
 * start, and stop cleanly on SIGINT/SIGTERM. A failed start exits with status 1.
 */
export function runProcess(
  name: string,
  start: (config: Config, logger: Logger) => Promise<() => Promise<void>>,
): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  const logger = createLogger(name, { level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  start(config, logger).then(
    (stop) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'stopping');
        // Nothing may hang: a stop that takes too long ends the process anyway. The bound leaves
        // room for HTTP requests in flight (10 s) and then RPC requests in hand (RPC timeout).
        setTimeout(() => process.exit(1), STOP_TIMEOUT_MS).unref();
        stop().then(
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
      else logger.fatal({ err: error }, 'start-up failed');
      process.exit(1);
    },
  );
}

/** Services that run as their own process need the shared infrastructure's addresses. */
export function requireSetting(value: string | undefined, name: string): string {
  if (!value) {
    throw new ConfigError(`${name} is required when this service runs as its own process.`);
  }
  return value;
}
