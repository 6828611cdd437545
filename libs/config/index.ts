import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { togetherProblems } from './together.js';

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

const WAIT_UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The default retry schedule of webhook deliveries: eight attempts over about 28 hours. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
/** Waits as `5s,5m,30m,2h` (seconds, minutes, hours, days), read as milliseconds. */
const retrySchedule = z
  .string()
  .trim()
  .regex(
    /^[1-9][0-9]*[smhd](,[1-9][0-9]*[smhd]){0,19}$/,
    'must be up to 20 waits like "5s,5m,30m,2h" (s, m, h or d)',
  )
  .transform((v) =>
    v.split(',').map((wait) => Number(wait.slice(0, -1)) * WAIT_UNIT_MS[wait.slice(-1) as 's']),
  );

/**
 * The Ed25519 keys of SIGNING_KEY: the first, a private key, signs the public API's answers and
 * license files; every one (the signer first) is published, so that what was signed before a
 * rotation still verifies.
 */
export interface SigningKeys {
  signer: KeyObject;
  /** The public keys of every configured key, the signer's first. */
  published: KeyObject[];
}

const SIGNING_KEY_FORMAT =
  'must be PEM blocks of Ed25519 keys, the first a private key (PKCS#8, as ' +
  '`openssl genpkey -algorithm ed25519` writes it), any further ones private or public (SPKI)';

/** A PEM block: its label and the whole block. */
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** SIGNING_KEY read, or what is wrong with it (never a word of the key itself). */
export function parseSigningKeys(text: string): SigningKeys | string {
  const blocks = [...text.matchAll(PEM_BLOCK)];
  if (blocks.length === 0 || text.replace(PEM_BLOCK, '').trim() !== '') return SIGNING_KEY_FORMAT;
  const published: KeyObject[] = [];
  let signer: KeyObject | undefined;
  for (const [index, [block, label]] of blocks.entries()) {
    const which = `${SIGNING_KEY_FORMAT}; key ${index + 1}`;
    if (label !== 'PRIVATE KEY' && (index === 0 || label !== 'PUBLIC KEY')) {
      return `${which} is a ${label ?? 'block'} block`;
    }
    let key: KeyObject;
    try {
      key = label === 'PRIVATE KEY' ? createPrivateKey(block) : createPublicKey(block);
    } catch {
      return `${which} cannot be read`;
    }
    if (key.asymmetricKeyType !== 'ed25519') return `${which} is not an Ed25519 key`;
    const publicKey = key.type === 'private' ? createPublicKey(key) : key;
    if (published.some((known) => known.equals(publicKey))) return `${which} is listed twice`;
    if (index === 0) signer = key;
    published.push(publicKey);
  }
  return { signer: signer!, published };
}

const signingKeys = z
  .string()
  .default('')
  .transform((text, ctx): SigningKeys | undefined => {
    if (text.trim() === '') return undefined;
    const keys = parseSigningKeys(text);
    if (typeof keys !== 'string') return keys;
    ctx.addIssue({ code: 'custom', message: keys });
    return z.NEVER;
  });

/** The largest store logo the customer portal shows (STORE_LOGO_FILE). */
export const MAX_STORE_LOGO_BYTES = 64 * 1024;

/** The image types a store logo may have, by the file's extension. */
const LOGO_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/**
 * The store's logo as the portal shows it: read once at start-up, as a `data:` URL, so the page
 * carries it and its Content-Security-Policy (`img-src 'self' data:`) stays as it is.
 */
export interface StoreLogo {
  file: string;
  dataUrl: string;
}

const storeLogo = z
  .string()
  .trim()
  .default('')
  .transform((file, ctx): StoreLogo | undefined => {
    if (file === '') return undefined;
    const type = LOGO_TYPES[path.extname(file).slice(1).toLowerCase()];
    const problem = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (type === undefined) {
      return problem(`must name a ${Object.keys(LOGO_TYPES).join(', ')} file`);
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return problem(`must name a readable file (${String(code ?? error)})`);
    }
    if (bytes.length === 0 || bytes.length > MAX_STORE_LOGO_BYTES) {
      return problem(`must name a file of 1 byte to ${MAX_STORE_LOGO_BYTES / 1024} KiB`);
    }
    return { file, dataUrl: `data:${type};base64,${bytes.toString('base64')}` };
  });

/** Time allowed to receive a whole request (headers and body) on the public and admin APIs. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** The longest lease of a license file, and its lease when none is asked: 30 days. */
export const DEFAULT_LICENSE_FILE_MAX_TTL_SECONDS = 30 * 86_400;
/** The largest package file the management API accepts: 2 GiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

/**
 * Every environment variable the system reads, with its default (README: Configuration).
 * Each process loads the whole set once at start-up and fails fast on a bad value.
 */
/** The shortest DOWNLOAD_SIGNING_KEY accepted. */
export const MIN_DOWNLOAD_SIGNING_KEY_LENGTH = 16;

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

/** What is wrong with the settings: the message says it in one line, `problems` one by one. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    message: string,
    readonly problems: readonly string[] = [message],
  ) {
    super(message);
  }
}

/**
 * Settings whose text may come from a file instead, named by the second variable (Docker and
 * Kubernetes mount secrets as files). Setting both is refused: which one counts would be a guess.
 */
export const settingFiles = {
  SIGNING_KEY: 'SIGNING_KEY_FILE',
} as const satisfies Partial<Record<ConfigVariable, ConfigVariable>>;

/**
 * The environment with each setting of `settingFiles` read from its file, and the problems of
 * doing so; `fromFile` maps a setting read from a file to the variable that named the file.
 */
function readSettingFiles(env: NodeJS.ProcessEnv) {
  const read: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  const fromFile = new Map<string, string>();
  for (const [setting, fileSetting] of Object.entries(settingFiles)) {
    const file = env[fileSetting]?.trim() ?? '';
    if (file === '') continue;
    if ((env[setting]?.trim() ?? '') !== '') {
      problems.push(`${fileSetting}: must not be set together with ${setting}`);
      continue;
    }
    try {
      const text = readFileSync(file, 'utf8');
      // An empty file is a mistake of the mount, not a setting left unset.
      if (text.trim() === '') problems.push(`${fileSetting}: must name a file that is not empty`);
      read[setting] = text;
      fromFile.set(setting, fileSetting);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      problems.push(`${fileSetting}: must name a readable file (${String(code ?? error)})`);
    }
  }
  return { read, problems, fromFile };
}

/**
 * The configuration of `env`, or a ConfigError naming every problem at once: each invalid
 * setting, each of `required` left unset or empty (a process of its own cannot do without
 * them), and settings wrong together among those the process `reads`, so that one attempt shows
 * all there is to fix.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  required: readonly ConfigVariable[] = [],
  reads: readonly ConfigVariable[] = configVariables,
): Config {
  const { read, problems, fromFile } = readSettingFiles(env);
  const parsed = EnvSchema.safeParse(read);
  const invalid = new Set<string>();
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = issue.path.join('.');
      invalid.add(name);
      problems.push(`${fromFile.get(name) ?? name}: ${issue.message}`);
    }
  }
  for (const name of required) {
    if (invalid.has(name) || fromFile.has(name)) continue;
    const value = EnvSchema.shape[name].safeParse(read[name]);
    if (value.success && isUnset(value.data)) {
      const file = (settingFiles as Partial<Record<ConfigVariable, ConfigVariable>>)[name];
      const named = file === undefined ? name : `${name} (or ${file})`;
      problems.push(`${named}: required when this service runs as its own process`);
    }
  }
  const valueOf = <K extends ConfigVariable>(name: K) => {
    const value = EnvSchema.shape[name].safeParse(read[name]);
    return value.success && !isUnset(value.data) ? String(value.data) : undefined;
  };
  problems.push(
    ...togetherProblems(
      { DOWNLOAD_DELIVERY: valueOf('DOWNLOAD_DELIVERY'), S3_ENDPOINT: valueOf('S3_ENDPOINT') },
      (name) => reads.includes(name),
    ),
  );
  if (problems.length > 0 || !parsed.success)
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`, problems);
  return parsed.data;
}

function isUnset(value: unknown): boolean {
  return value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
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

/** For the embedded default only: a new Ed25519 signing key, as PEM (PKCS#8). */
export function generateSigningKey(): string {
  return generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
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
    | 'LEASE_TASK_EVERY'
    | 'PRUNE_TASK_EVERY'
    | 'SCHEDULER_POLL_EVERY'
    | 'SCHEDULED_TASK_TIMEOUT'
  >,
) {
  return {
    enabled: config.SCHEDULED_TASKS === 'on',
    expiryEvery: config.EXPIRY_TASK_EVERY,
    leaseEvery: config.LEASE_TASK_EVERY,
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

/** Where `npm start` keeps the signing key it generated when SIGNING_KEY is unset. */
export function signingKeyFile(config: Pick<Config, 'DATA_DIR'>): string | undefined {
  return dataPath(config, 'signing-key.pem');
}

/** A URL as it may be shown or logged: the password, if any, left out. */
export function displayUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^:/@]*):[^@/]*@/i, (_all, scheme, user) =>
    user === '' ? scheme : `${scheme}${user}@`,
  );
}
