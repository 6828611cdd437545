import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ConfigError,
  MAX_STORE_LOGO_BYTES,
  configVariables,
  adminTokenFile,
  displayUrl,
  embeddedDatabaseDirectory,
  embeddedStorageDirectory,
  intervalMs,
  generateSigningKey,
  loadConfig,
  scheduleSettings,
  signingKeyFile,
  type ConfigVariable,
} from '../../libs/config/index.js';

describe('configuration (docs/settings.md: Configuration)', () => {
  test('defaults: gateway on 8080, management on 8081, embedded infrastructure', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 8080, ADMIN_PORT: 8081, ADMIN_TOKENS: [] });
    for (const name of [
      'AMQP_URL',
      'MONGODB_URL',
      'REDIS_URL',
      'S3_ENDPOINT',
      'PUBLIC_URL',
    ] as const)
      expect(config[name]).toBeUndefined();
  });

  test('spec 8 defaults: 20 activate calls per key per hour, 60 update checks per minute', () => {
    const config = loadConfig({});
    expect(config.RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR).toBe(20);
    expect(config.RATE_LIMIT_UPDATES_PER_MINUTE).toBe(60);
  });

  test('the servers bind to loopback unless HOST says otherwise', () => {
    expect(loadConfig({}).HOST).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
  });

  test('data is kept under ./data by default; DATA_DIR empty keeps nothing', () => {
    const kept = loadConfig({});
    expect(embeddedDatabaseDirectory(kept)).toBe(path.resolve('data', 'mongodb'));
    expect(embeddedStorageDirectory(kept)).toBe(path.resolve('data', 'packages'));
    expect(adminTokenFile(kept)).toBe(path.resolve('data', 'admin-token'));
    const ephemeral = loadConfig({ DATA_DIR: '' });
    expect(embeddedDatabaseDirectory(ephemeral)).toBeUndefined();
    expect(embeddedStorageDirectory(ephemeral)).toBeUndefined();
    expect(adminTokenFile(ephemeral)).toBeUndefined();
    expect(embeddedStorageDirectory(loadConfig({ DATA_DIR: '', STORAGE_DIR: '/srv/p' }))).toBe(
      '/srv/p',
    );
  });

  test('a MongoDB connection string may name several hosts', () => {
    const url = 'mongodb://app:secret@db1:27017,db2:27017/?replicaSet=rs0';
    expect(loadConfig({ MONGODB_URL: url }).MONGODB_URL).toBe(url);
    expect(() => loadConfig({ MONGODB_URL: 'http://db1' })).toThrow('MONGODB_URL');
  });

  test('URLs are shown without their password', () => {
    expect(displayUrl('amqp://guest:guest@rabbitmq:5672')).toBe('amqp://guest@rabbitmq:5672');
    expect(displayUrl('mongodb://app:s3cr3t@db1,db2/x')).toBe('mongodb://app@db1,db2/x');
    expect(displayUrl('redis://:pw@redis:6379')).toBe('redis://redis:6379');
    expect(displayUrl('http://minio:9000')).toBe('http://minio:9000');
  });

  test('ADMIN_TOKENS is a comma-separated list; blanks are dropped', () => {
    expect(loadConfig({ ADMIN_TOKENS: ' one, ,two ' }).ADMIN_TOKENS).toEqual(['one', 'two']);
  });

  test.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['AMQP_URL', 'not a url'],
    ['RATE_LIMIT_UPDATES_PER_MINUTE', '0'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'xml'],
    ['HTTP_REQUEST_TIMEOUT_MS', '0'],
  ])('a bad %s (%j) refuses to start, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  test('the scheduled tasks run every minute (expiry) and hour (pruning) by default', () => {
    expect(scheduleSettings(loadConfig({}))).toEqual({
      enabled: true,
      expiryEvery: '1 minute',
      leaseEvery: '1 minute',
      pruneEvery: '1 hour',
      pollEvery: '10 seconds',
      taskTimeoutMs: 5 * 60_000,
    });
    expect(intervalMs('90 seconds')).toBe(90_000);
    expect(intervalMs('1 day')).toBe(86_400_000);
    expect(() => loadConfig({ EXPIRY_TASK_EVERY: 'often' })).toThrow('EXPIRY_TASK_EVERY');
  });

  test("the portal's store: a name, addresses of http(s) only, and a logo read once as a data: URL", () => {
    const unset = loadConfig({});
    expect(unset.STORE_NAME).toBe('');
    for (const name of ['STORE_URL', 'RENEW_URL', 'STORE_LOGO_FILE'] as const) {
      expect(unset[name]).toBeUndefined();
    }
    const config = loadConfig({
      STORE_NAME: '  Plugin Shop ',
      STORE_URL: 'https://shop.example/',
      RENEW_URL: 'https://shop.example/renew',
    });
    expect(config).toMatchObject({
      STORE_NAME: 'Plugin Shop',
      STORE_URL: 'https://shop.example/',
      RENEW_URL: 'https://shop.example/renew',
    });
    expect(() => loadConfig({ STORE_NAME: 'Shop\u0007' })).toThrow('STORE_NAME');
    expect(() => loadConfig({ RENEW_URL: 'ftp://shop.example/' })).toThrow('RENEW_URL');
    const directory = mkdtempSync(path.join(tmpdir(), 'logo-'));
    try {
      const logo = path.join(directory, 'Logo.SVG');
      writeFileSync(logo, '<svg xmlns="http://www.w3.org/2000/svg"/>');
      expect(loadConfig({ STORE_LOGO_FILE: logo }).STORE_LOGO_FILE).toEqual({
        file: logo,
        dataUrl: `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64')}`,
      });
      const big = path.join(directory, 'big.png');
      writeFileSync(big, Buffer.alloc(MAX_STORE_LOGO_BYTES + 1));
      expect(() => loadConfig({ STORE_LOGO_FILE: big })).toThrow(/STORE_LOGO_FILE: .*64 KiB/);
      expect(() => loadConfig({ STORE_LOGO_FILE: path.join(directory, 'none.png') })).toThrow(
        /STORE_LOGO_FILE: must name a readable file/,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('the webhook retry schedule is read as waits in milliseconds, the default eight attempts', () => {
    expect(loadConfig({}).WEBHOOK_RETRY_SCHEDULE).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1s,2m,1d' }).WEBHOOK_RETRY_SCHEDULE).toEqual([
      1_000, 120_000, 86_400_000,
    ]);
    expect(loadConfig({}).WEBHOOK_ALLOW_PRIVATE_URLS).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }).WEBHOOK_ALLOW_PRIVATE_URLS).toBe(
      true,
    );
  });
});

/**
 * Every variable (docs/settings.md: Configuration) with a value it refuses, or `null` for the free-text
 * ones (secrets, names, directories), which take any text. A variable added without a line here
 * fails the first test.
 */
const refusedValues: Record<ConfigVariable, string | null> = {
  PORT: 'eighty',
  ADMIN_PORT: '-1',
  HOST: 'local host',
  PUBLIC_URL: 'gateway.example',
  ADMIN_TOKENS: null,
  AMQP_URL: 'not a url',
  AMQP_PREFIX: 'has space',
  AMQP_PREFETCH: '0',
  AMQP_QUEUE_TYPE: 'mirrored',
  MONGODB_URL: 'http://db1',
  MONGODB_DB_PREFIX: 'a/b',
  REDIS_URL: 'redis',
  REDIS_PREFIX: null,
  RATE_LIMIT_PER_IP_PER_MINUTE: '-5',
  RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR: '2.5',
  RATE_LIMIT_UPDATES_PER_MINUTE: '0',
  RATE_LIMIT_DOWNLOADS_PER_MINUTE: 'many',
  DOWNLOAD_DELIVERY: 'proxy',
  S3_ENDPOINT: 'minio:9000',
  S3_ACCESS_KEY: null,
  S3_SECRET_KEY: null,
  S3_BUCKET: 'Upper_Case',
  S3_REGION: null,
  S3_PUBLIC_ENDPOINT: 'store.example',
  DATA_DIR: null,
  WEBHOOK_RETRY_SCHEDULE: '5 seconds',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'yes',
  WEBHOOK_DELIVERY_RETENTION_DAYS: '0',
  STORES_APPLY_LEASE_SECONDS: '5',
  STRIPE_API_URL: 'https://api.stripe.com/v1',
  PADDLE_API_URL: 'sandbox-api.paddle.com',
  AUDIT_RETENTION_DAYS: '0',
  STORAGE_DIR: null,
  DOWNLOAD_PORT: '65536',
  DOWNLOAD_SERVICE_URL: 'download:8082',
  DOWNLOAD_SIGNING_KEY: 'change-me',
  SIGNING_KEY: 'not a key',
  SIGNING_KEY_FILE: '/no/such/directory/signing-key.pem',
  SPARKLE_PRIVATE_KEY: 'not a key',
  SPARKLE_PRIVATE_KEY_FILE: '/no/such/directory/sparkle-private-key',
  SIGNATURE_TTL_SECONDS: '0',
  LICENSE_FILE_MAX_TTL_SECONDS: '-1',
  MAX_UPLOAD_BYTES: '0',
  SCHEDULED_TASKS: 'sometimes',
  EXPIRY_TASK_EVERY: 'often',
  LEASE_TASK_EVERY: 'now and then',
  PRUNE_TASK_EVERY: '0 hours',
  SCHEDULER_POLL_EVERY: '10s',
  SCHEDULED_TASK_TIMEOUT: 'forever',
  METRICS_PORT: 'ninety',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
  OTEL_SERVICE_NAME: null,
  RPC_TIMEOUT_MS: '0',
  HTTP_REQUEST_TIMEOUT_MS: '-100',
  PRODUCT_CACHE_TTL_MS: '-1',
  PLAN_CACHE_TTL_MS: 'soon',
  DOWNLOAD_LOG_BATCH_MS: '10001',
  STORE_NAME: 'x'.repeat(101),
  STORE_URL: 'shop.example',
  RENEW_URL: 'javascript:alert(1)',
  STORE_LOGO_FILE: 'logo.bmp',
  SMTP_URL: 'http://mail.example',
  MAIL_FROM: 'Plugin Shop <not an address>',
  TRUST_PROXY: 'some proxies',
  LOG_LEVEL: 'loud',
  LOG_FORMAT: 'xml',
};

describe("the buyer's e-mail settings (docs/stores.md: The buyer's e-mail)", () => {
  test('SMTP_URL is an smtp:// or smtps:// URL, or unset', () => {
    expect(loadConfig({}).SMTP_URL).toBeUndefined();
    expect(loadConfig({ SMTP_URL: 'smtps://user:pass@mail.example:465' }).SMTP_URL).toBe(
      'smtps://user:pass@mail.example:465',
    );
    expect(() => loadConfig({ SMTP_URL: 'https://mail.example' })).toThrow('SMTP_URL');
  });

  test('MAIL_FROM is an address, or a name and one in angle brackets, or unset', () => {
    expect(loadConfig({}).MAIL_FROM).toBe('');
    for (const from of ['sales@shop.example', 'Plugin Shop <sales@shop.example>']) {
      expect(loadConfig({ MAIL_FROM: ` ${from} ` }).MAIL_FROM).toBe(from);
    }
    for (const from of [
      'Plugin Shop',
      'a <b@c.example> d',
      'x\r\nBcc: e@f.example <g@h.example>',
    ]) {
      expect(() => loadConfig({ MAIL_FROM: from })).toThrow('MAIL_FROM');
    }
  });
});

describe("the stores' API addresses (docs/stores.md: The stores' APIs)", () => {
  test("STRIPE_API_URL is unset (Stripe's own) or an http(s) address alone", () => {
    expect(loadConfig({}).STRIPE_API_URL).toBeUndefined();
    for (const url of ['http://127.0.0.1:12111', 'https://stripe-proxy.internal/']) {
      expect(loadConfig({ STRIPE_API_URL: url }).STRIPE_API_URL).toBe(url);
    }
    for (const refused of ['api.stripe.com', 'https://api.stripe.com/v1', 'http://k:@h', 'h?x']) {
      expect(() => loadConfig({ STRIPE_API_URL: refused })).toThrow('STRIPE_API_URL: must be');
    }
  });

  test("PADDLE_API_URL is unset (Paddle's own, by the connection's mode) or an address alone", () => {
    expect(loadConfig({}).PADDLE_API_URL).toBeUndefined();
    expect(loadConfig({ PADDLE_API_URL: 'http://127.0.0.1:4010' }).PADDLE_API_URL).toBe(
      'http://127.0.0.1:4010',
    );
    for (const refused of ['sandbox-api.paddle.com', 'https://api.paddle.com/customers']) {
      expect(() => loadConfig({ PADDLE_API_URL: refused })).toThrow('PADDLE_API_URL: must be');
    }
  });
});

describe("STORES_APPLY_LEASE_SECONDS (docs/stores.md: a stopped replica's events)", () => {
  test('a claimed store event is held 120 s unless set, from 10 s to an hour', () => {
    expect(loadConfig({}).STORES_APPLY_LEASE_SECONDS).toBe(120);
    for (const seconds of [10, 3600]) {
      expect(
        loadConfig({ STORES_APPLY_LEASE_SECONDS: String(seconds) }).STORES_APPLY_LEASE_SECONDS,
      ).toBe(seconds);
    }
    for (const refused of ['9', '3601', '30.5']) {
      expect(() => loadConfig({ STORES_APPLY_LEASE_SECONDS: refused })).toThrow(
        'STORES_APPLY_LEASE_SECONDS: must be a whole number from 10 to 3600',
      );
    }
  });
});

describe('start-up validates the whole configuration (docs/settings.md: Configuration)', () => {
  test('every variable the configuration reads is checked here', () => {
    expect(Object.keys(refusedValues).sort()).toEqual([...configVariables].sort());
  });

  test.each(Object.entries(refusedValues).filter(([, value]) => value !== null))(
    '%s=%j is refused in one line naming the variable and what it expected',
    (name, value) => {
      let message = '';
      try {
        loadConfig({ [name]: value! });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message).toMatch(new RegExp(`^Invalid configuration: ${name}: \\S`));
      expect(message).not.toContain('\n');
      // What it expected, in words: a type, a range, a pattern or the values allowed.
      expect(message).toMatch(/expected|must|too (small|big)|Invalid|pattern/i);
    },
  );

  test.each(Object.entries(refusedValues).filter(([, value]) => value === null))(
    '%s is free text: any value is taken as written',
    (name) => {
      const config = loadConfig({ [name]: 'any text, even with spaces' });
      expect(config[name as ConfigVariable]).toBeDefined();
    },
  );

  test('several bad variables are named together, still in one line', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(
      /^Invalid configuration: PORT: .*; LOG_LEVEL: [^\n]*$/,
    );
  });

  test('the settings a process requires are named with the invalid ones, each once', () => {
    let problems: readonly string[] = [];
    try {
      loadConfig({ DOWNLOAD_SIGNING_KEY: 'short', MONGODB_URL: '', PORT: 'x' }, [
        'AMQP_URL',
        'MONGODB_URL',
        'DOWNLOAD_SIGNING_KEY',
        'SIGNING_KEY',
      ]);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual([
      'PORT: must be a whole number from 0 to 65535',
      expect.stringMatching(/^DOWNLOAD_SIGNING_KEY: must be at least 16 characters/),
      'AMQP_URL: required when this service runs as its own process',
      'MONGODB_URL: required when this service runs as its own process',
      'SIGNING_KEY (or SIGNING_KEY_FILE): required when this service runs as its own process',
    ]);
    // Set, they are taken; an empty DOWNLOAD_SIGNING_KEY is left to npm start to generate.
    expect(
      loadConfig({ AMQP_URL: 'amqp://broker', DOWNLOAD_SIGNING_KEY: 'x'.repeat(16) }, [
        'AMQP_URL',
        'DOWNLOAD_SIGNING_KEY',
      ]).DOWNLOAD_SIGNING_KEY,
    ).toBe('x'.repeat(16));
    expect(loadConfig({ DOWNLOAD_SIGNING_KEY: '' }).DOWNLOAD_SIGNING_KEY).toBe('');
  });
});

describe('signing keys (SIGNING_KEY, SIGNING_KEY_FILE)', () => {
  const pem = (kind: 'private' | 'public', type: 'ed25519' | 'ed448' | 'x25519' = 'ed25519') => {
    const pair = generateKeyPairSync(type as 'ed25519');
    return kind === 'private'
      ? pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
      : pair.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  };
  const rsaPem = () =>
    generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('the configuration was accepted');
  };
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'signing-key-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("unset by default; an answer's signature holds for 300 s, a license file 30 days at most", () => {
    const config = loadConfig({});
    expect(config.SIGNING_KEY).toBeUndefined();
    expect(config.SIGNATURE_TTL_SECONDS).toBe(300);
    expect(config.LICENSE_FILE_MAX_TTL_SECONDS).toBe(30 * 24 * 60 * 60);
  });

  test('the first key signs; every key, the first included, is published', () => {
    const signer = generateSigningKey();
    const kept = pem('private');
    const publicOnly = pem('public');
    const keys = loadConfig({ SIGNING_KEY: `${signer}\n${kept}${publicOnly}` }).SIGNING_KEY!;
    expect(keys.signer.type).toBe('private');
    expect(keys.published).toHaveLength(3);
    expect(keys.published.every((key) => key.type === 'public')).toBe(true);
    const jwk = (text: string) => loadConfig({ SIGNING_KEY: text }).SIGNING_KEY!.published[0]!;
    expect(keys.published[0]!.equals(jwk(signer))).toBe(true);
    expect(keys.published[1]!.equals(jwk(kept))).toBe(true);
  });

  test.each([
    ['a public key first (the first key must sign)', () => pem('public')],
    ['an RSA key', rsaPem],
    ['an Ed448 key', () => pem('private', 'ed448')],
    ['a certificate block', () => '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'],
    ['a damaged key', () => generateSigningKey().replace(/\n[A-Za-z0-9+/]{8}/, '\nAAAAAAAA')],
    ['text beside the key', () => `key: ${generateSigningKey()}`],
    ['an X25519 key second', () => generateSigningKey() + pem('public', 'x25519')],
  ])('%s is refused at start, in one line naming SIGNING_KEY', (_what, text) => {
    const message = refusal({ SIGNING_KEY: text() });
    expect(message).toMatch(/^Invalid configuration: SIGNING_KEY: must be PEM blocks of Ed25519/);
    expect(message).not.toContain('\n');
  });

  test('a key listed twice is refused: a key set names each key once', () => {
    const key = generateSigningKey();
    expect(refusal({ SIGNING_KEY: key + key })).toMatch(/SIGNING_KEY: .*key 2 is listed twice/);
  });

  test('a refusal never shows the key', () => {
    const key = rsaPem();
    const body = key.split('\n')[1]!;
    expect(refusal({ SIGNING_KEY: key })).not.toContain(body);
  });

  test('SIGNING_KEY_FILE: the same text, from a file (a Docker or Kubernetes secret)', () => {
    const file = path.join(dir, 'key.pem');
    const text = generateSigningKey();
    writeFileSync(file, text);
    const fromFile = loadConfig({ SIGNING_KEY_FILE: file }).SIGNING_KEY!;
    expect(
      fromFile.published[0]!.equals(loadConfig({ SIGNING_KEY: text }).SIGNING_KEY!.published[0]!),
    ).toBe(true);
  });

  test('SIGNING_KEY_FILE: a file that is not a key is refused, naming SIGNING_KEY_FILE', () => {
    const file = path.join(dir, 'not-a-key.pem');
    writeFileSync(file, 'hello');
    expect(refusal({ SIGNING_KEY_FILE: file })).toMatch(
      /^Invalid configuration: SIGNING_KEY_FILE: must be PEM blocks/,
    );
    const empty = path.join(dir, 'empty.pem');
    writeFileSync(empty, '\n');
    expect(refusal({ SIGNING_KEY_FILE: empty })).toBe(
      'Invalid configuration: SIGNING_KEY_FILE: must name a file that is not empty',
    );
    expect(refusal({ SIGNING_KEY_FILE: path.join(dir, 'missing.pem') })).toMatch(
      /^Invalid configuration: SIGNING_KEY_FILE: must name a readable file \(ENOENT\)$/,
    );
  });

  test('setting both SIGNING_KEY and SIGNING_KEY_FILE is refused: which one counts would be a guess', () => {
    const file = path.join(dir, 'both.pem');
    writeFileSync(file, generateSigningKey());
    expect(refusal({ SIGNING_KEY: generateSigningKey(), SIGNING_KEY_FILE: file })).toBe(
      'Invalid configuration: SIGNING_KEY_FILE: must not be set together with SIGNING_KEY',
    );
  });

  test('npm start keeps the key it generates in DATA_DIR/signing-key.pem; DATA_DIR empty keeps none', () => {
    expect(signingKeyFile(loadConfig({}))).toBe(path.resolve('data', 'signing-key.pem'));
    expect(signingKeyFile(loadConfig({ DATA_DIR: '' }))).toBeUndefined();
  });

  test.each([
    ['SIGNATURE_TTL_SECONDS', '86401'],
    ['LICENSE_FILE_MAX_TTL_SECONDS', '1.5'],
    ['LICENSE_FILE_MAX_TTL_SECONDS', String(10 * 365 * 86_400 + 1)],
  ])('%s=%s is refused', (name, value) => {
    expect(refusal({ [name]: value })).toMatch(new RegExp(`^Invalid configuration: ${name}: must`));
  });
});
