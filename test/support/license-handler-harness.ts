import { randomUUID } from 'node:crypto';
import {
  defaultExpiryTerms,
  internalError,
  type ActivationType,
  type CallContext,
  type DomainEvent,
  type DomainEventOf,
  type DomainEventType,
  type LicenseStatus,
} from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { DailyCounter } from '../../libs/daily-counts/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import { countedEvents, licenseMetrics } from '../../services/license/overview/daily-counts.js';
import { publishedEvents, type LicenseEvents } from '../../services/license/events.js';
import { createLicenseHandlers } from '../../services/license/handlers.js';
import type { ProductLookup } from '../../services/license/use-cases/license-reads.js';
import type { LicensedProduct } from '../../services/license/rules.js';
import type { ScheduleSettings } from '../../services/license/lifecycle/scheduled-tasks.js';
import { FakeTransport } from '../../bench/support/fake-transport.js';
import { memoryDailyCountStore } from './memory-daily-counts.js';
import { memoryLicenseStores } from '../../bench/support/license-memory-stores.js';

/**
 * The license service's handlers on in-memory stores, a fixed clock and a fixed catalog, for the
 * handler tests (test/unit/license-*handlers.test.ts).
 */

export const NOW = new Date('2026-06-01T12:00:00.000Z');
export const PAST = '2026-05-01T00:00:00.000Z';
export const FUTURE = '2027-01-01T00:00:00.000Z';
export const DAY = 24 * 60 * 60 * 1000;
export const IP = '198.51.100.7';

export const catalog: LicensedProduct[] = [
  { id: 10, title: 'Plugin', bundle_items: [] },
  { id: 11, title: 'Other plugin', bundle_items: [] },
  { id: 20, title: 'Bundle', bundle_items: [10, 30] },
  { id: 30, title: 'Addon', bundle_items: [] },
  { id: 40, title: 'Outer bundle', bundle_items: [20] },
  // Its trials are issued on plan 900, which a trial test creates.
  { id: 50, title: 'Trial app', bundle_items: [], trial_plan_id: 900 },
];
const products: ProductLookup = {
  find: async (id) => catalog.find((p) => p.id === id) ?? null,
};

/** The schedule the handlers list (`license.listTasks`). */
export const schedule: ScheduleSettings = {
  enabled: true,
  expiryEvery: '1 minute',
  leaseEvery: '1 minute',
  pruneEvery: '1 hour',
  pollEvery: '10 seconds',
  taskTimeoutMs: 300_000,
};

/** A call whose caller still waits, under `callId` (a new one unless given). */
export function waitingCall(callId: string = randomUUID()): CallContext {
  return { deadline: Number.MAX_SAFE_INTEGER, callId, passed: false, beforeWrite: () => {} };
}
/**
 * A call whose caller still waits, the same for every use: for calls that write nothing keyed by
 * their id (validate counts a check once per call id, so the harness's `validate` makes a call
 * of its own each time).
 */
export const waiting: CallContext = waitingCall('waiting');
/** A call whose caller stopped waiting: every write is refused. */
export const abandoned: CallContext = {
  deadline: 0,
  callId: 'abandoned',
  passed: true,
  beforeWrite: () => {
    throw internalError('The caller stopped waiting; nothing more was written.');
  },
};

/**
 * A plan's settings as the contract defaults them: no lease, no exempt identifiers, the spec's
 * expiry (revoke, no grace), no usage counted, no trial, no entitlement.
 */
export const PLAN_DEFAULTS = {
  lease_seconds: null,
  exempt_identifiers: [],
  exempt_limit: 3,
  trial_days: null,
  entitlements: [] as string[],
  ...defaultExpiryTerms,
};

/**
 * The service's domain events as it publishes them in production (events.ts `publishedEvents`),
 * on a transport that records them: `published` in order, `ofType` those of one type.
 */
export function recordedEvents(clock: () => Date = () => new Date(NOW)): LicenseEvents & {
  published: DomainEvent[];
  ofType<T extends DomainEventType>(type: T): Array<DomainEventOf<T>>;
} {
  const transport = new FakeTransport(clock);
  const logger = createLogger('test', 'silent');
  return {
    ...publishedEvents(domainEventPublisher(transport, logger), logger),
    published: transport.domainEvents,
    ofType: (type) => transport.domainEventsOf(type),
  };
}

export function service(options: { clock?: () => Date } = {}) {
  const clock = options.clock ?? (() => new Date(NOW));
  const stores = memoryLicenseStores();
  const events = recordedEvents(clock);
  // The daily counts, written when read (no timer runs in these tests).
  const counts = new DailyCounter({
    store: memoryDailyCountStore(licenseMetrics),
    logger: createLogger('test', 'silent'),
  });
  const handlers = createLicenseHandlers({
    stores,
    products,
    clock,
    schedule,
    events: countedEvents(events, counts),
    counts,
  });

  // Plan names are unique: a plan made without one is Agency, then Agency 2, Agency 3...
  let plansMade = 0;
  async function plan(
    options: {
      name?: string;
      activation_type?: ActivationType;
      activation_limit?: number;
      lease_seconds?: number | null;
      exempt_identifiers?: string[];
      exempt_limit?: number;
    } = {},
  ) {
    return handlers['license.createPlan'](
      {
        ...PLAN_DEFAULTS,
        name: options.name ?? (++plansMade === 1 ? 'Agency' : `Agency ${plansMade}`),
        activation_type: options.activation_type ?? 'domain',
        activation_limit: options.activation_limit ?? 3,
        ...(options.lease_seconds === undefined ? {} : { lease_seconds: options.lease_seconds }),
        ...(options.exempt_identifiers === undefined
          ? {}
          : { exempt_identifiers: options.exempt_identifiers }),
        ...(options.exempt_limit === undefined ? {} : { exempt_limit: options.exempt_limit }),
      },
      waiting,
    );
  }

  async function license(
    options: {
      activation_type?: ActivationType;
      activation_limit?: number;
      lease_seconds?: number | null;
      exempt_identifiers?: string[];
      exempt_limit?: number;
      status?: LicenseStatus;
      expires_at?: string | null;
      product_id?: number;
      plan_id?: number;
    } = {},
  ) {
    const planId = options.plan_id ?? (await plan(options)).id;
    const created = await handlers['license.createLicense'](
      {
        product_id: options.product_id ?? 10,
        plan_id: planId,
        status: options.status ?? 'active',
        expires_at: options.expires_at ?? null,
        auto_renew: false,
        next_payment_at: null,
        customer: null,
        metadata: {},
      },
      waiting,
    );
    return created.license_key;
  }

  const activate = (
    fields: { license_key: string; identifier: string; product_id?: number; name?: string },
    context = waiting,
  ) => handlers['license.activate']({ product_id: null, name: null, ip: IP, ...fields }, context);
  const validate = (
    fields: {
      license_key: string;
      identifier?: string;
      product_id?: number;
      entitlements?: string[];
    },
    context = waitingCall(),
  ) =>
    handlers['license.validate'](
      { identifier: null, product_id: null, ip: IP, entitlements: [], ...fields },
      context,
    );
  const deactivate = (
    fields: { license_key: string; identifier: string; product_id?: number },
    context = waiting,
  ) => handlers['license.deactivate']({ product_id: null, ...fields }, context);
  const detail = (key: string) => handlers['license.getLicense']({ license_key: key }, waiting);

  return {
    stores,
    events,
    counts,
    handlers,
    plan,
    license,
    activate,
    validate,
    deactivate,
    detail,
  };
}

/** The spec's code and the HTTP status the license service answers it with. */
export const refusedWith = (code: string, status: number) =>
  expect.objectContaining({ code, status });
