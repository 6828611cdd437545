import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';

/** A URL with one of these schemes, or unset (empty counts as unset). */
function optionalUrl(...schemes: [string, ...string[]]) {
  const scheme = new RegExp(`^(${schemes.join('|')})$`);
  return z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .url({
          protocol: scheme,
          error: `must be a URL starting ${schemes.map((s) => `${s}://`).join(' or ')}`,
        })
        .optional(),
    )
    .optional();
}
const httpUrl = optionalUrl('http', 'https');

/** A whole number from `min` (to `max`), said so when it is not. */
function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  const expected =
    max === Number.MAX_SAFE_INTEGER
      ? `must be a whole number of at least ${min}`
      : `must be a whole number from ${min} to ${max}`;
  return z.coerce
    .number({ error: expected })
    .int({ error: expected })
    .min(min, { error: expected })
    .max(max, { error: expected });
}
const port = wholeNumber(0, 65535);
/** An interval of the scheduled tasks, as Agenda reads it: `30 seconds`, `1 minute`, `6 hours`. */
const interval = z
  .string()
  .trim()
  .regex(/^[1-9][0-9]* (second|minute|hour|day)s?$/, 'must be like "30 seconds" or "1 hour"');
const positiveMs = wholeNumber(1);

/** Time allowed to receive a whole request (headers and body) on the public and admin APIs. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** The largest package file the management API accepts: 2 GiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

/**
 * Every environment variable the system reads, with its default (README: Configuration).
 * Each process loads the whole set once at start-up and fails fast on a bad value.
 */
const EnvSchema = z.object({
  PORT: port.default(8080),
  ADMIN_PORT: port.default(8081),
  // Loopback unless said otherwise: `npm start` is not reachable from the network by accident.
  // Containers set 0.0.0.0.
  HOST: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._:%-]+$/, 'must be a host name or an IP address')
    .default('127.0.0.1'),
  PUBLIC_URL: httpUrl,
  ADMIN_TOKENS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t.length > 0),
    ),
  AMQP_URL: optionalUrl('amqp', 'amqps'),
  AMQP_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, dots, dashes or underscores')
    .default('licensing'),
  AMQP_PREFETCH: wholeNumber(1).default(32),
  // A MongoDB connection string may name several hosts (`mongodb://h1,h2/?replicaSet=rs`), which
  // no URL parser reads: only its scheme is checked here, the driver reads the rest.
  MONGODB_URL: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(
          /^mongodb(\+srv)?:\/\/\S+$/,
          'must be a mongodb:// or mongodb+srv:// connection string',
        )
        .optional(),
    )
    .optional(),
  MONGODB_DB_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, dashes or underscores')
    .default('licensing'),
  REDIS_URL: optionalUrl('redis', 'rediss'),
  REDIS_PREFIX: z.string().default('licensing'),
  // Spec 8: the per-IP limit of activate, validate and deactivate (shared), and the per-key limit
  // of activate (20 per hour).
  RATE_LIMIT_PER_IP_PER_MINUTE: wholeNumber(1).default(120),
  RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR: wholeNumber(1).default(20),
  // Spec 8: more than 60 update checks in 60 seconds from one IP are refused.
  RATE_LIMIT_UPDATES_PER_MINUTE: wholeNumber(1).default(60),
  RATE_LIMIT_DOWNLOADS_PER_MINUTE: wholeNumber(1).default(30),
  // Package storage (S3-compatible; MinIO in docker-compose). Unset: an embedded server.
  S3_ENDPOINT: httpUrl,
  S3_ACCESS_KEY: z.string().default(''),
  S3_SECRET_KEY: z.string().default(''),
  S3_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      'must be an S3 bucket name: 3 to 63 lower-case letters, digits, dots or dashes',
    )
    .default('licensing-packages'),
  S3_REGION: z.string().default('us-east-1'),
  /**
   * Where the embedded parts keep their data, so a restart loses nothing: the embedded MongoDB
   * (`mongodb/`), the embedded package storage (`packages/`) and the generated admin token.
   * Empty: nothing is kept (a temporary directory, removed at stop).
   */
  DATA_DIR: z.string().trim().default('./data'),
  /** Where the embedded storage keeps its files when S3_ENDPOINT is unset (default: DATA_DIR). */
  STORAGE_DIR: z.string().default(''),
  /** The download service's own HTTP port (package bytes in and out). */
  DOWNLOAD_PORT: port.default(8082),
  /** How the gateway and management reach the download service's HTTP port. */
  DOWNLOAD_SERVICE_URL: httpUrl,
  /** Signs the short-lived upload and download URLs; the same on every download replica. */
  DOWNLOAD_SIGNING_KEY: z.string().default(''),
  /** The largest package file the management API accepts (bytes; default 2 GiB). */
  MAX_UPLOAD_BYTES: wholeNumber(1).default(DEFAULT_MAX_UPLOAD_BYTES),
  // Scheduled tasks of the license service (spec 3.1 expiry, 2.5 rejected-attempt pruning).
  SCHEDULED_TASKS: z.enum(['on', 'off']).default('on'),
  EXPIRY_TASK_EVERY: interval.default('1 minute'),
  PRUNE_TASK_EVERY: interval.default('1 hour'),
  SCHEDULER_POLL_EVERY: interval.default('10 seconds'),
  /** A task holding its lock longer than this counts as dead: another replica may run it. */
  SCHEDULED_TASK_TIMEOUT: interval.default('5 minutes'),
  /**
   * The operations port of every process: /healthz, /readyz and /metrics. 0 picks a free port
   * (named in the start-up log); containers set a fixed one.
   */
  METRICS_PORT: port.default(0),
  /**
   * Tracing: spans are sent over OTLP/HTTP to this collector (`/v1/traces` is appended); unset,
   * tracing is off. Read by libs/observability/tracing.ts before the rest of the process loads.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
  /** The service name on the spans; default `licensing-<service>` (`licensing` for npm start). */
  OTEL_SERVICE_NAME: z.string().trim().optional(),
  RPC_TIMEOUT_MS: positiveMs.default(5000),
  HTTP_REQUEST_TIMEOUT_MS: positiveMs.default(DEFAULT_REQUEST_TIMEOUT_MS),
  PRODUCT_CACHE_TTL_MS: wholeNumber(0).default(30_000),
  /**
   * Refused downloads wait at most this long to be written to the download log together; 0
   * writes each at once. A stop writes those waiting; a crash loses them.
   */
  DOWNLOAD_LOG_BATCH_MS: wholeNumber(0, 10_000).default(50),
  TRUST_PROXY: z
    .string()
    .trim()
    .regex(
      /^(|true|false|\d+|[A-Za-z0-9.:/]+(\s*,\s*[A-Za-z0-9.:/]+)*)$/,
      'must be true, false, a hop count, or a comma-separated list of addresses or subnets',
    )
    .default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` lines, or `pretty` text for a person; `auto`: pretty on a terminal, JSON otherwise. */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
});

export type Config = z.infer<typeof EnvSchema>;
/** The name of one setting: a variable of the environment. */
export type ConfigVariable = keyof Config;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}

/** Every variable the configuration reads. */
export const configVariables = Object.keys(EnvSchema.shape) as ConfigVariable[];

/**
 * The tracing settings alone, read before anything else is loaded (libs/observability). Invalid
 * ones leave tracing off here; the full load that follows reports them and stops the process.
 */
export function tracingSettings(
  env: NodeJS.ProcessEnv = process.env,
): Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME'> {
  const parsed = EnvSchema.pick({
    OTEL_EXPORTER_OTLP_ENDPOINT: true,
    OTEL_SERVICE_NAME: true,
  }).safeParse(env);
  return parsed.success ? parsed.data : {};
}

/** For the embedded default only: one random admin token, printed at start-up. */
export function generateAdminToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Express's `trust proxy` setting from TRUST_PROXY: `false`, `true`, a hop count, or a list of
 * addresses/subnets. It decides which address counts as the client IP (spec 2.2 last_check_ip).
 */
export function trustProxySetting(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** The license service's schedule as configured. */
export function scheduleSettings(
  config: Pick<
    Config,
    | 'SCHEDULED_TASKS'
    | 'EXPIRY_TASK_EVERY'
    | 'PRUNE_TASK_EVERY'
    | 'SCHEDULER_POLL_EVERY'
    | 'SCHEDULED_TASK_TIMEOUT'
  >,
) {
  return {
    enabled: config.SCHEDULED_TASKS === 'on',
    expiryEvery: config.EXPIRY_TASK_EVERY,
    pruneEvery: config.PRUNE_TASK_EVERY,
    pollEvery: config.SCHEDULER_POLL_EVERY,
    taskTimeoutMs: intervalMs(config.SCHEDULED_TASK_TIMEOUT),
  };
}

const UNIT_MS = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/** Milliseconds of an interval written as the config accepts it (`5 minutes`). */
export function intervalMs(value: string): number {
  const match = /^([1-9][0-9]*) (second|minute|hour|day)s?$/.exec(value);
  if (!match) throw new ConfigError(`not an interval: ${value}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** A place under DATA_DIR, or undefined when nothing is to be kept (DATA_DIR empty). */
function dataPath(config: Pick<Config, 'DATA_DIR'>, name: string): string | undefined {
  return config.DATA_DIR === '' ? undefined : path.resolve(config.DATA_DIR, name);
}

/** The embedded MongoDB's data (`npm start` without MONGODB_URL). */
export function embeddedDatabaseDirectory(config: Pick<Config, 'DATA_DIR'>): string | undefined {
  return dataPath(config, 'mongodb');
}

/** The embedded package storage's files (no S3_ENDPOINT): STORAGE_DIR, else under DATA_DIR. */
export function embeddedStorageDirectory(
  config: Pick<Config, 'DATA_DIR' | 'STORAGE_DIR'>,
): string | undefined {
  return config.STORAGE_DIR === ''
    ? dataPath(config, 'packages')
    : path.resolve(config.STORAGE_DIR);
}

/** Where `npm start` keeps the admin token it generated when ADMIN_TOKENS is unset. */
export function adminTokenFile(config: Pick<Config, 'DATA_DIR'>): string | undefined {
  return dataPath(config, 'admin-token');
}

/** A URL as it may be shown or logged: the password, if any, left out. */
export function displayUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^:/@]*):[^@/]*@/i, (_all, scheme, user) =>
    user === '' ? scheme : `${scheme}${user}@`,
  );
}
