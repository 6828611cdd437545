import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/**
 * The one logger of the system: JSON lines on stdout. Every line names its process; where one
 * process runs several services (`npm start`), each service logs through a child that adds
 * `service`, so the two keys never collide.
 */
export function createLogger(processName: string, level: string): Logger {
  return pino({ level, base: { process: processName } });
}
