import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/** The one logger of the system: JSON lines on stdout, one child per service. */
export function createLogger(service: string, level: string): Logger {
  return pino({ level, base: { service } });
}
