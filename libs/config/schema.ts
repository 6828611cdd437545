/**
 * Every environment variable the system reads, with its default (README: Configuration).
 * Each process loads the whole set once at start-up and fails fast on a bad value.
 */
import { z } from 'zod';
import {
  DEFAULT_WEBHOOK_RETRY_SCHEDULE,
  httpUrl,
  interval,
  mailbox,
  optionalUrl,
  originUrl,
  port,
  positiveMs,
  retrySchedule,
  wholeNumber,
} from './fields.js';
import { signingKeys } from './signing-keys.js';
import { sparkleKeySetting } from './sparkle-key.js';
import { storeLogo } from './store-logo.js';

/** Time allowed to receive a whole request (headers and body) on the public and admin APIs. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Where the gateway listens unless PORT says otherwise. */
export const DEFAULT_PORT = 8080;
/** The longest lease of a license file, and its lease when none is asked: 30 days. */
export const DEFAULT_LICENSE_FILE_MAX_TTL_SECONDS = 30 * 86_400;
/** The largest package file the management API accepts: 2 GiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

/** The shortest DOWNLOAD_SIGNING_KEY accepted. */
export const MIN_DOWNLOAD_SIGNING_KEY_LENGTH = 16;

export const EnvSchema = z.object({
  PORT: port.default(DEFAULT_PORT),
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
  /**
   * The type of the durable queues (RPC requests, domain events): `classic` on one broker node,
   * `quorum` (replicated) on a cluster. RabbitMQ never changes the type of a queue once declared.
   */
  AMQP_QUEUE_TYPE: z
    .enum(['classic', 'quorum'], { error: 'must be classic or quorum' })
    .default('classic'),
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
  /** An allowed download: relayed by the gateway, or a 302 to the object store (opt-in). */
  DOWNLOAD_DELIVERY: z.enum(['relay', 'redirect']).default('relay'),
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
  /** The store's address as clients reach it: redirect mode's URLs (default: S3_ENDPOINT). */
  S3_PUBLIC_ENDPOINT: httpUrl,
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
  /** How management reaches the download service's HTTP port (uploads). */
  DOWNLOAD_SERVICE_URL: httpUrl,
  /**
   * Signs the short-lived upload and download URLs; the same on every download replica. Empty:
   * `npm start` generates one; a short one would be guessable, so it is refused here, with the
   * other settings, rather than when the download service builds its signer.
   */
  DOWNLOAD_SIGNING_KEY: z
    .string()
    .refine((value) => value === '' || value.length >= MIN_DOWNLOAD_SIGNING_KEY_LENGTH, {
      message: `must be at least ${MIN_DOWNLOAD_SIGNING_KEY_LENGTH} characters (\`openssl rand -hex 32\` makes one)`,
    })
    .default(''),
  /**
   * Signs the public API's answers and license files (Ed25519, PEM): the first key signs, any
   * further ones are only published, so that what was signed before a rotation still verifies.
   */
  SIGNING_KEY: signingKeys,
  /** A file holding SIGNING_KEY's text instead (Docker and Kubernetes secrets). */
  SIGNING_KEY_FILE: z.string().trim().default(''),
  /**
   * The seller's Sparkle EdDSA private key, as `generate_keys -x <file>` exports it: the download
   * service signs each macOS package uploaded without a signature (docs/updaters/sparkle.md).
   */
  SPARKLE_PRIVATE_KEY: sparkleKeySetting,
  /** A file holding SPARKLE_PRIVATE_KEY's text instead (Docker and Kubernetes secrets). */
  SPARKLE_PRIVATE_KEY_FILE: z.string().trim().default(''),
  /** How long a signed answer may be trusted: its signature's `expires` is `created` + this. */
  SIGNATURE_TTL_SECONDS: wholeNumber(1, 86_400).default(300),
  /** The longest lease of a license file, and its lease when none is asked (30 days). */
  LICENSE_FILE_MAX_TTL_SECONDS: wholeNumber(1, 10 * 365 * 86_400).default(
    DEFAULT_LICENSE_FILE_MAX_TTL_SECONDS,
  ),
  /** The largest package file the management API accepts (bytes; default 2 GiB). */
  MAX_UPLOAD_BYTES: wholeNumber(1).default(DEFAULT_MAX_UPLOAD_BYTES),
  // Scheduled tasks of the license service (spec 3.1 expiry, 2.5 rejected-attempt pruning).
  SCHEDULED_TASKS: z.enum(['on', 'off']).default('on'),
  EXPIRY_TASK_EVERY: interval.default('1 minute'),
  LEASE_TASK_EVERY: interval.default('1 minute'),
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
   * How long a license service replica keeps a plan it read: a plan's change reaches the other
   * replicas within this, and the replica that made it at once.
   */
  PLAN_CACHE_TTL_MS: wholeNumber(0).default(30_000),
  /**
   * Refused downloads wait at most this long to be written to the download log together; 0
   * writes each at once. A stop writes those waiting; a crash loses them.
   */
  DOWNLOAD_LOG_BATCH_MS: wholeNumber(0, 10_000).default(50),
  /**
   * The waits between a webhook delivery's attempts: its first is sent at once, the next after
   * the first wait, and so on; after the last one fails it is `failed` (docs/webhooks.md).
   */
  WEBHOOK_RETRY_SCHEDULE: retrySchedule.prefault(DEFAULT_WEBHOOK_RETRY_SCHEDULE),
  /**
   * Whether webhook URLs may point at loopback, private, link-local or metadata addresses: off,
   * so that an admin token cannot make the service call inward; on for tests and private networks.
   */
  WEBHOOK_ALLOW_PRIVATE_URLS: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  /** Webhook deliveries are kept this many days, then removed by the database (a TTL index). */
  WEBHOOK_DELIVERY_RETENTION_DAYS: wholeNumber(1, 3650).default(30),
  /**
   * How long a stores-service replica holds a store event it claimed to apply, renewed while it
   * applies (docs/stores.md): the longest a stopped replica's event waits for another.
   */
  STORES_APPLY_LEASE_SECONDS: wholeNumber(10, 3600).default(120),
  /**
   * Where the stores service reaches Stripe's API (default: https://api.stripe.com): another
   * address for stripe-mock, a proxy, or a test's fake.
   */
  STRIPE_API_URL: originUrl,
  /**
   * Where the stores service reaches Paddle's API, for live and test connections alike (default:
   * https://api.paddle.com for a live connection, https://sandbox-api.paddle.com for a test one).
   */
  PADDLE_API_URL: originUrl,
  /**
   * The customer portal: the store's name (shown as the page's heading and title), its address
   * (a link beside the name, and where a revoked or cancelled license's holder buys a new one),
   * where an expired license is renewed (default: STORE_URL), and a logo file. Unset: the portal
   * names no store and links nowhere.
   */
  STORE_NAME: z
    .string()
    .trim()
    .max(100, 'must be at most 100 characters')
    .refine((name) => !/\p{Cc}/u.test(name), 'must not hold control characters')
    .default(''),
  STORE_URL: httpUrl,
  RENEW_URL: httpUrl,
  STORE_LOGO_FILE: storeLogo,
  /**
   * The buyer's e-mail (docs/stores.md): sent through this SMTP server (credentials in the URL),
   * or, unset, written as `.eml` files under DATA_DIR/mail; from MAIL_FROM, or else the store's
   * name at `no-reply@` the host of PUBLIC_URL.
   */
  SMTP_URL: optionalUrl('smtp', 'smtps'),
  MAIL_FROM: mailbox,
  /** Audit log entries are kept this many days, then removed by the database (a TTL index). */
  AUDIT_RETENTION_DAYS: wholeNumber(1, 36500).default(365),
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

/** Every variable the configuration reads. */
export const configVariables = Object.keys(EnvSchema.shape) as ConfigVariable[];
