import { createHash } from 'node:crypto';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';
import { currentRequestId } from '../observability/request-context.js';
import { activeTraceId } from '../observability/tracing.js';

export type Logger = PinoLogger;

export interface LoggerOptions {
  level: string;
  /** `json` lines, `pretty` text, or `auto`: pretty when stdout is a terminal. */
  format?: 'auto' | 'json' | 'pretty';
  /** Where lines go (default stdout); tests read them from a stream of their own. */
  destination?: DestinationStream;
}

/**
 * A license key is a credential (spec 5.1): logs carry a fingerprint that tells keys apart and
 * matches the same key in every line, never the key itself.
 */
export function keyFingerprint(licenseKey: string): string {
  return `key#${createHash('sha256').update(licenseKey, 'utf8').digest('hex').slice(0, 12)}`;
}

/** Fields that may hold a license key, wherever a log line carries them. */
const KEY_FIELDS = ['license_key', 'dlid', '*.license_key', '*.dlid', '*.*.license_key'];

/**
 * The one logger of the system: JSON lines on stdout, or readable lines on a terminal. Every
 * line names its process; where one process runs several services (`npm start`), each service
 * logs through a child that adds `service`, so the two keys never collide.
 */
export function createLogger(processName: string, settings: string | LoggerOptions): Logger {
  const options = typeof settings === 'string' ? { level: settings } : settings;
  const format =
    options.format === undefined || options.format === 'auto'
      ? process.stdout.isTTY
        ? 'pretty'
        : 'json'
      : options.format;
  const destination =
    options.destination ??
    (format === 'pretty'
      ? pretty({
          sync: true,
          colorize: process.stdout.isTTY === true,
          translateTime: 'SYS:HH:MM:ss.l',
          // One line per entry, as in JSON, with the fields a person scans first in front.
          singleLine: true,
          ignore: 'pid,hostname,process',
          messageFormat:
            '{if service}[{service}] {end}{msg}{if method} {method} {route} {status}{end}',
        })
      : undefined);
  return pino(
    {
      level: options.level,
      base: { process: processName },
      // Every line written for a request names it, and its trace when traced, in every service.
      mixin: () => {
        const requestId = currentRequestId();
        const traceId = activeTraceId();
        return {
          ...(requestId !== undefined ? { request_id: requestId } : {}),
          ...(traceId !== undefined ? { trace_id: traceId } : {}),
        };
      },
      // What a line says itself wins over the context (one key each in the JSON).
      mixinMergeStrategy: (line: object, context: object) => ({ ...context, ...line }),
      redact: {
        paths: KEY_FIELDS,
        censor: (value) => (typeof value === 'string' ? keyFingerprint(value) : value),
      },
    },
    destination,
  );
}
