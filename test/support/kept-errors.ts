import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../libs/logging/index.js';

/** How many of a test system's latest error lines are kept. */
const KEPT = 20;

/**
 * A test system's logger when the test sets none and the system logs nothing (LOG_LEVEL silent,
 * as without TEST_LOG_LEVEL): nothing is printed, but its error lines are kept, so a helper that meets an unexpected INTERNAL_ERROR can
 * say what the services logged about it.
 */
export function errorKeepingLogger(): { logger: Logger; loggedErrors: () => string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8').trimEnd());
      if (lines.length > KEPT) lines.shift();
      done();
    },
  });
  return {
    logger: createLogger('test-system', { level: 'error', format: 'json', destination }),
    loggedErrors: () => [...lines],
  };
}
