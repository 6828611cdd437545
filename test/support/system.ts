import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { deleteQueuesOf, testAmqpPrefix } from './amqp-queues.js';
import { errorKeepingLogger } from './kept-errors.js';
import { checkedAgainst, documents, type Doc } from './openapi-documents.js';
import {
  generateSigningKey,
  loadConfig,
  parseSigningKeys,
  type Config,
} from '../../libs/config/index.js';
import { API_BASE, type ActivationType, type LicenseStatus } from '../../libs/contracts/index.js';
import { Signer, type AnswerSigning } from '../../libs/http/index.js';
import { createLogger, type Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { startSystem, type RunningSystem } from '../../services/all-in-one/system.js';
import {
  startEmbeddedStorage,
  type EmbeddedStorage,
} from '../../services/download/embedded-storage/embedded-storage.js';
import { createGatewayApp } from '../../services/gateway/app.js';
import type { PortalSettings } from '../../services/gateway/portal-settings.js';
import { createRateLimits } from '../../services/gateway/rate-limits/rate-limits.js';
import { ADMIN_BASE } from '../../services/management/management-deps.js';
import type { StorePorts } from '../../services/stores/service.js';

export { API_BASE };
export const ADMIN_TOKEN = 'test-admin-token';

/**
 * Boots the whole system in this process on free ports, against the test MongoDB server and,
 * when AMQP_URL is set (always in CI), real RabbitMQ. Databases and queues get a prefix of their
 * own, so test files run in parallel without seeing each other. `ownStore`: the package store is
 * reached through S3_ENDPOINT with its credentials, as MinIO would be (what redirect mode needs),
 * the embedded store started apart for the purpose.
 */
export async function bootSystem(
  overrides: Partial<Record<string, string>> = {},
  options: {
    licenseReplicas?: number;
    webhooksReplicas?: number;
    logger?: Logger;
    ownStore?: boolean;
    /** What the stores service changes licenses, mails buyers or reads Stripe through. */
    storePorts?: Partial<StorePorts>;
    /** How often the stores service looks for past-due licenses (default: every minute). */
    storeGraceSweepMs?: number;
  } = {},
): Promise<TestSystem> {
  const id = randomBytes(4).toString('hex');
  const store = options.ownStore ? await startEmbeddedStorage() : undefined;
  const config: Config = loadConfig({
    ...process.env,
    ...(store && {
      S3_ENDPOINT: store.endpoint,
      S3_ACCESS_KEY: store.accessKey,
      S3_SECRET_KEY: store.secretKey,
    }),
    PORT: '0',
    ADMIN_PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_TOKENS: ADMIN_TOKEN,
    MONGODB_DB_PREFIX: `t${id}`,
    AMQP_PREFIX: testAmqpPrefix('system'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    REDIS_PREFIX: `test:${id}`,
    // Generous limits, so only the rate-limit tests (which set their own) ever meet them.
    RATE_LIMIT_PER_IP_PER_MINUTE: '100000',
    RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR: '100000',
    RATE_LIMIT_UPDATES_PER_MINUTE: '100000',
    RATE_LIMIT_DOWNLOADS_PER_MINUTE: '100000',
    // The expiry task would turn a test's "active past expiry" license into an expired one at
    // any moment; only the scheduler's own tests turn the tasks on.
    SCHEDULED_TASKS: 'off',
    // Nothing is kept after a test system stops.
    DATA_DIR: '',
    // Every service of a test system shares one process with the test, on a machine that runs
    // other suites beside it: an ordinary call may wait seconds there, which must not fail it.
    // The tests of deadlines set their own.
    RPC_TIMEOUT_MS: '30000',
    ...overrides,
  });
  const kept =
    options.logger === undefined && config.LOG_LEVEL === 'silent'
      ? errorKeepingLogger()
      : undefined;
  try {
    const system = await startSystem({
      config,
      licenseReplicas: options.licenseReplicas,
      webhooksReplicas: options.webhooksReplicas,
      logger: options.logger ?? kept?.logger,
      storePorts: options.storePorts,
      storeGraceSweepMs: options.storeGraceSweepMs,
    });
    return new TestSystem(system, config, store, kept?.loggedErrors);
  } catch (error) {
    await store?.stop();
    throw error;
  }
}

let seq = 0;
/** A word no other call in this process gives, for names that must differ between tests. */
export const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}`;

/**
 * The management API of `on()` as the bootstrap admin (ADMIN_TOKEN), paths under /admin/v1,
 * every answer checked against the document. `on` is asked at each request, so that it may name
 * a system booted later, in a `beforeAll`.
 */
export function adminOf(on: () => TestSystem) {
  const asAdmin = (req: request.Test) => req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return {
    get: (path: string) =>
      asAdmin(
        on()
          .admin()
          .get(ADMIN_BASE + path),
      ),
    post: (path: string, body?: unknown) => {
      const req = asAdmin(
        on()
          .admin()
          .post(ADMIN_BASE + path),
      );
      return body === undefined ? req : req.send(body as object);
    },
    patch: (path: string, body: unknown) =>
      asAdmin(
        on()
          .admin()
          .patch(ADMIN_BASE + path),
      ).send(body as object),
    del: (path: string) =>
      asAdmin(
        on()
          .admin()
          .delete(ADMIN_BASE + path),
      ),
  };
}

export class TestSystem {
  constructor(
    readonly running: RunningSystem,
    readonly config: Config,
    private readonly store?: EmbeddedStorage,
    private readonly keptErrors?: () => string[],
  ) {}

  /** The latest error lines the services logged, when the test gave no logger of its own. */
  loggedErrors(): string[] {
    return this.keptErrors?.() ?? [];
  }

  get transport() {
    return this.running.transport;
  }

  /** The public API; every answer is checked against its OpenAPI document. */
  api() {
    return checkedAgainst(publicDocument, request(this.running.gatewayUrl));
  }

  /** POSTs form fields to a public license operation. */
  post(
    operation: 'activate' | 'validate' | 'deactivate' | 'checkout' | 'usage',
    fields: Record<string, string | number | undefined>,
  ) {
    const body = new URLSearchParams(
      Object.entries(fields).flatMap(([k, v]): Array<[string, string]> =>
        v === undefined ? [] : [[k, String(v)]],
      ),
    ).toString();
    return this.api()
      .post(`${API_BASE}/licenses/${operation}`)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(body);
  }

  /** The management API; every answer is checked against its OpenAPI document. */
  admin() {
    return checkedAgainst(managementDocument, request(this.running.managementUrl));
  }

  /** A product, a plan and a license on them, created through the services' RPC methods. */
  async license(
    options: {
      activation_type?: ActivationType;
      activation_limit?: number;
      status?: LicenseStatus;
      expires_at?: string | null;
      product?: { id: number; title: string };
      bundle_items?: number[];
      plan_name?: string;
      lease_seconds?: number | null;
      exempt_identifiers?: string[];
      exempt_limit?: number;
      /** The plan's entitlement codes, defined beforehand. */
      entitlements?: string[];
    } = {},
  ) {
    const product =
      options.product ??
      (await this.transport.call('update-catalog.createProduct', {
        title: `Product ${unique()}`,
        bundle_items: options.bundle_items ?? [],
      }));
    const plan = await this.transport.call('license.createPlan', {
      name: options.plan_name ?? `Plan ${unique()}`,
      activation_type: options.activation_type ?? 'domain',
      activation_limit: options.activation_limit ?? 3,
      lease_seconds: options.lease_seconds ?? null,
      exempt_identifiers: options.exempt_identifiers ?? [],
      exempt_limit: options.exempt_limit ?? 3,
      entitlements: options.entitlements ?? [],
    });
    const license = await this.transport.call('license.createLicense', {
      product_id: product.id,
      plan_id: plan.id,
      status: options.status ?? 'active',
      expires_at: options.expires_at ?? null,
    });
    return { product, plan, license, key: license.license_key };
  }

  /**
   * Spec 2.2: a bundle (`outer`) whose items include another bundle (`inner`) of one product
   * (`item`). A key for `outer` covers `inner` but not `item`: one level only.
   */
  async nestedBundle() {
    const create = (title: string, bundle_items: number[] = []) =>
      this.transport.call('update-catalog.createProduct', {
        title: `${title} ${unique()}`,
        bundle_items,
      });
    const item = await create('Item');
    const inner = await create('Inner bundle', [item.id]);
    const outer = await create('Outer bundle', [inner.id]);
    return { item, inner, outer };
  }

  async stop() {
    await this.running.stop();
    await this.store?.stop();
    await deleteQueuesOf([this.config.AMQP_URL && this.config.AMQP_PREFIX]);
  }
}

/** Answers signed with a key of their own (a gateway app a test builds). */
export async function testSigning(ttlSeconds = 300): Promise<AnswerSigning> {
  const keys = parseSigningKeys(generateSigningKey());
  if (typeof keys === 'string') throw new Error(keys);
  return { signer: await Signer.fromKeys(keys), ttlSeconds };
}

/** A gateway app of its own on `transport`, with limits no test reaches. */
export async function gatewayOn(
  transport: Transport,
  options: { downloadDelivery?: 'relay' | 'redirect'; portal?: PortalSettings } = {},
) {
  const logger = createLogger('test', 'silent');
  return createGatewayApp({
    ...options,
    transport,
    logger,
    trustProxy: false,
    signing: await testSigning(),
    rateLimits: createRateLimits({
      perIpPerMinute: 100_000,
      updatesPerMinute: 100_000,
      downloadsPerMinute: 100_000,
      activationsPerKeyPerHour: 100_000,
      redisPrefix: 'unused',
    }),
  });
}

const [publicDocument, managementDocument] = documents.map(({ doc }) => doc) as [Doc, Doc];
