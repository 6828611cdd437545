import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoMemoryServer } from 'mongodb-memory-server';
import {
  MAX_PER_PAGE,
  type ActivationType,
  type LicenseDetail,
} from '../../../libs/contracts/index.js';
import { API_BASE } from '../../../libs/contracts/api-base.js';
import { OwnBroker } from './broker.js';
import { dataOf, http, type Answer } from './http.js';
import { killEveryGroup } from '../../../bench/support/process-groups.js';
import { ownSystemEnv } from '../../support/processes.js';
import { OwnRedis } from './redis.js';
import { ServiceProcess, type ServiceName } from './services.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

export { API_BASE };

const REPOSITORY = path.resolve(import.meta.dirname, '../../..');
/** Time a service gets to start (tsx compiles the sources on the way; the machine may be busy). */
const START_TIMEOUT_MS = 90_000;
const ADMIN_TIMEOUT_MS = 15_000;

/**
 * The type of the system's queues: AMQP_QUEUE_TYPE of the suite's environment (README), classic
 * unless it says quorum (`AMQP_QUEUE_TYPE=quorum npm run test:faults`).
 */
export const QUEUE_TYPE = process.env.AMQP_QUEUE_TYPE === 'quorum' ? 'quorum' : 'classic';

/** Rate limits no steady load reaches: only the Redis scenario's own gateway sets a low one. */
const UNREACHABLE_LIMITS = {
  RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
  RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR: '1000000',
  RATE_LIMIT_UPDATES_PER_MINUTE: '1000000',
  RATE_LIMIT_DOWNLOADS_PER_MINUTE: '1000000',
};

/**
 * The system as an operator runs it: every service its own process (`npm run start:<service>`),
 * two license replicas, on a RabbitMQ node and a Redis server of the suite's own (so they can be
 * stopped) and the test MongoDB server behind a TCP proxy (so it can be "stopped" without losing
 * its data, see test/support/tcp-proxy.ts).
 */
export class FaultSystem {
  readonly licenses: ServiceProcess[] = [];
  /** The gateways, oldest first; load goes to `gateway`, the last one started and alive. */
  readonly gateways: ServiceProcess[] = [];
  private readonly others = new Map<ServiceName, ServiceProcess>();
  private readonly adminToken = randomBytes(16).toString('hex');
  private readonly env: NodeJS.ProcessEnv;
  private seq = 0;

  private constructor(
    readonly dir: string,
    private readonly mongo: MongoMemoryServer | undefined,
    readonly mongoProxy: TcpProxy,
    readonly broker: OwnBroker,
    readonly redis: OwnRedis,
    readonly rpcTimeoutMs: number,
    logLevel: string,
  ) {
    this.env = ownSystemEnv({
      label: 'faults',
      adminToken: this.adminToken,
      storageDir: path.join(dir, 'packages'),
      overrides: {
        AMQP_URL: broker.url,
        AMQP_QUEUE_TYPE: QUEUE_TYPE,
        MONGODB_URL: `mongodb://127.0.0.1:${mongoProxy.port}/`,
        REDIS_URL: redis.url,
        RPC_TIMEOUT_MS: String(rpcTimeoutMs),
        LOG_LEVEL: logLevel,
        ...UNREACHABLE_LIMITS,
      },
    });
  }

  /**
   * Starts everything; on any failure, stops what had started. The services log at `info`
   * unless told otherwise (`debug` names every RPC request each one answers).
   */
  static async start(options: { rpcTimeoutMs: number; logLevel?: string }): Promise<FaultSystem> {
    const dir = await mkdtemp(path.join(tmpdir(), 'faults-'));
    let mongo: MongoMemoryServer | undefined;
    let broker: OwnBroker | undefined;
    try {
      broker = await OwnBroker.create(path.join(dir, 'rabbitmq'));
      const redis = await OwnRedis.create(path.join(dir, 'redis'));
      // The test MongoDB server: MONGODB_URL when given (one host), else one of our own.
      let target = process.env.MONGODB_URL;
      if (target === undefined) {
        mongo = await MongoMemoryServer.create();
        target = mongo.getUri();
      }
      const { hostname, port } = new URL(target);
      const proxy = new TcpProxy(hostname, Number(port || 27017));
      await Promise.all([proxy.start(), broker.start(), redis.start()]);
      const system = new FaultSystem(
        dir,
        mongo,
        proxy,
        broker,
        redis,
        options.rpcTimeoutMs,
        options.logLevel ?? 'info',
      );
      // The services first, so that their queues exist before the gateway takes requests.
      await Promise.all([
        system.startService('update-catalog'),
        system.startService('download'),
        system.startService('license'),
        system.startService('license'),
      ]);
      await Promise.all([system.startService('management'), system.startService('gateway')]);
      return system;
    } catch (error) {
      await killEveryGroup();
      await mongo?.stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Starts one more process of a service and waits until it is ready. */
  async startService(
    name: ServiceName,
    extraEnv: Record<string, string> = {},
  ): Promise<ServiceProcess> {
    const service = ServiceProcess.spawn(name, { ...this.env, ...extraEnv }, REPOSITORY);
    if (name === 'license') this.licenses.push(service);
    else if (name === 'gateway') this.gateways.push(service);
    else this.others.set(name, service);
    await service.waitReady(START_TIMEOUT_MS);
    return service;
  }

  service(name: Exclude<ServiceName, 'license' | 'gateway'>): ServiceProcess {
    const service = this.others.get(name);
    if (service === undefined) throw new Error(`no ${name} process`);
    return service;
  }

  /** Every service process started and not stopped by the suite. */
  processes(): ServiceProcess[] {
    return [...this.others.values(), ...this.licenses, ...this.gateways];
  }

  /** What each service process that ended without the suite stopping it printed last. */
  unexpectedExits(): string[] {
    return this.processes()
      .filter((service) => !service.stoppedBySuite && !service.alive())
      .map((service) => `${service.label} ended by itself:\n${service.group.recentOutput()}`);
  }

  /** The gateway the load goes to: the last one started that is still running. */
  get gateway(): ServiceProcess {
    const gateway = [...this.gateways].reverse().find((candidate) => candidate.alive());
    if (gateway === undefined) throw new Error('no gateway is running');
    return gateway;
  }

  liveLicenseReplicas(): ServiceProcess[] {
    return this.licenses.filter((replica) => replica.alive());
  }

  /**
   * Puts back what a scenario that failed half-way may have left out (the broker, the database,
   * Redis, two license replicas, a gateway), so the next scenario starts from the full system.
   */
  async restore(): Promise<void> {
    if (!this.mongoProxy.listening) await this.mongoProxy.start();
    if (!this.redis.running()) await this.redis.start();
    if (!this.broker.running()) await this.broker.start();
    for (const paused of this.processes()) paused.group.signal('SIGCONT');
    const starting: Array<Promise<unknown>> = [];
    for (let i = this.liveLicenseReplicas().length; i < 2; i++) {
      starting.push(this.startService('license'));
    }
    if (!this.gateways.some((gateway) => gateway.alive()))
      starting.push(this.startService('gateway'));
    await Promise.all(starting);
  }

  /** A call to the management API; the `data` of its answer, or an error naming the answer. */
  async admin<T>(method: string, route: string, body?: unknown): Promise<T> {
    const answer = await http(`${this.service('management').url}/admin/v1${route}`, {
      method,
      timeoutMs: ADMIN_TIMEOUT_MS,
      headers: {
        Authorization: `Bearer ${this.adminToken}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = dataOf(answer);
    if (answer.status >= 300 || data === undefined) {
      throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    return data as T;
  }

  /** A product, a plan and a license on them, issued through the management API. */
  async issueLicense(options: {
    activation_type: ActivationType;
    activation_limit: number;
  }): Promise<{ key: string; productId: number; limit: number }> {
    this.seq += 1;
    const product = await this.admin<{ id: number }>('POST', '/products', {
      title: `Fault product ${this.seq}`,
    });
    const plan = await this.admin<{ id: number }>('POST', '/plans', {
      name: `Fault plan ${this.seq}`,
      ...options,
    });
    const license = await this.admin<{ license_key: string }>('POST', '/licenses', {
      product_id: product.id,
      plan_id: plan.id,
    });
    return { key: license.license_key, productId: product.id, limit: options.activation_limit };
  }

  /**
   * The license as the management API shows it, with every one of its activations: the detail
   * holds the first of them, the listing pages through all.
   */
  async licenseDetail(key: string): Promise<LicenseDetail> {
    const path = `/licenses/${encodeURIComponent(key)}`;
    const detail = await this.admin<LicenseDetail>('GET', path);
    const activations: LicenseDetail['activations'] = [];
    for (let page = 1; ; page++) {
      const listed = await this.admin<{ activations: LicenseDetail['activations']; total: number }>(
        'GET',
        `${path}/activations?per_page=${MAX_PER_PAGE}&page=${page}`,
      );
      activations.push(...listed.activations);
      if (listed.activations.length === 0 || activations.length >= listed.total) break;
    }
    return { ...detail, activations };
  }

  /** POSTs form fields to a public license operation on `gatewayUrl` (default: `gateway`). */
  publicPost(
    operation: 'activate' | 'validate' | 'deactivate',
    fields: Record<string, string>,
    options: { timeoutMs: number; gatewayUrl?: string },
  ): Promise<Answer> {
    return http(`${options.gatewayUrl ?? this.gateway.url}${API_BASE}/licenses/${operation}`, {
      method: 'POST',
      timeoutMs: options.timeoutMs,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Kills every process, stops the test MongoDB server it started, removes its files. */
  async stop(): Promise<void> {
    await this.broker.destroy();
    await killEveryGroup();
    await this.mongoProxy.stop();
    await this.mongo?.stop().catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}
