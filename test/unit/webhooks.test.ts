import { Webhook } from 'standardwebhooks';
import {
  domainEvent,
  LicensingError,
  MAX_WEBHOOK_ENDPOINTS,
  type CallContext,
} from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import type { AttemptOutcome } from '../../services/webhooks/destination.js';
import { createWebhookHandlers } from '../../services/webhooks/handlers.js';
import { takeDomainEvent } from '../../services/webhooks/intake.js';
import {
  afterAttempt,
  endpointHealth,
  endpointWants,
  FAILING_DISABLE_AFTER_MS,
  keptResponse,
  MAX_RESPONSE_KEPT_CHARS,
  PREVIOUS_SECRET_KEPT_MS,
} from '../../services/webhooks/rules.js';
import { attemptDelivery, type SenderDeps } from '../../services/webhooks/sender.js';
import {
  deliveryIdFor,
  generateSecret,
  signatureHeader,
} from '../../services/webhooks/signatures.js';
import { memoryWebhookStores } from '../support/webhook-memory-stores.js';

const waiting: CallContext = {
  deadline: Number.MAX_SAFE_INTEGER,
  callId: 'call-1',
  passed: false,
  beforeWrite() {},
};
const NOW = new Date('2026-06-01T12:00:00.000Z');
const SECOND = 1000;
const DAY = 86_400_000;
const SCHEDULE = [5 * SECOND, 5 * 60 * SECOND, 30 * 60 * SECOND];
const logger = createLogger('test', { level: 'silent', format: 'json' });

function activationCreated(at = NOW) {
  return domainEvent(
    'activation.created',
    {
      license_key: 'KEY-1',
      product_id: 10,
      identifier: 'example.com',
      name: null,
      ip: '198.51.100.7',
      exempt: false,
      source: 'api',
    },
    at,
  );
}

function system(clock = () => NOW) {
  const stores = memoryWebhookStores();
  let nudges = 0;
  const handlers = createWebhookHandlers({
    stores,
    policy: { allowPrivate: false },
    clock,
    nudge: () => void nudges++,
  });
  return { stores, handlers, nudges: () => nudges };
}

describe('Standard Webhooks signatures', () => {
  test('a signature verifies with the standardwebhooks package under the endpoint secret', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"type":"activation.created","timestamp":"2026-06-01T12:00:00.000Z","data":{}}';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_abc',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader([secret], 'msg_abc', timestamp, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });

  test('while a rotated secret is kept, both secrets sign and either verifies', () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const body = '{}';
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signatureHeader([current, previous], 'msg_1', timestamp, body);
    expect(signature.split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    };
    expect(new Webhook(current).verify(body, headers)).toEqual({});
    expect(new Webhook(previous).verify(body, headers)).toEqual({});
  });

  test("an event's delivery id is the same each time the event comes, and differs per endpoint", () => {
    const id = '0b6f1a1e-6f3c-4c5e-9a3b-2f1d7c1e9a00';
    expect(deliveryIdFor(id, 1)).toBe(deliveryIdFor(id, 1));
    expect(deliveryIdFor(id, 1)).not.toBe(deliveryIdFor(id, 2));
    expect(deliveryIdFor(id, 1)).toMatch(/^msg_[0-9a-f]{32}$/);
  });
});

describe('where webhooks may be sent', () => {
  test.each([
    'http://127.0.0.1:9000/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.5/hook',
    'http://localhost/hook',
    'http://[::127.0.0.1]/hook',
    'http://[::a9fe:a9fe]/latest/meta-data',
    'http://[64:ff9b::a00:5]/hook',
  ])('registering %s is refused with INVALID_REQUEST and changes nothing', async (url) => {
    const { handlers, stores } = system();
    await expect(
      handlers['webhooks.createEndpoint']({ url, events: ['*'], description: null }, waiting),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await stores.endpoints.list()).toEqual([]);
  });

  test('a name that does not resolve is accepted at registration: its attempts fail until it does', async () => {
    const { handlers } = system();
    // RFC 6761: .invalid never resolves.
    await expect(
      handlers['webhooks.createEndpoint'](
        { url: 'https://hooks.not-yet.invalid/in', events: ['*'], description: null },
        waiting,
      ),
    ).resolves.toMatchObject({ id: 1, url: 'https://hooks.not-yet.invalid/in' });
  });
});

describe('retries (WEBHOOK_RETRY_SCHEDULE)', () => {
  test('a failed attempt is tried again after the wait the schedule gives it', () => {
    expect(afterAttempt(1, false, SCHEDULE, NOW)).toEqual({
      status: 'pending',
      next_attempt_at: new Date(NOW.getTime() + 5 * SECOND),
    });
    expect(afterAttempt(3, false, SCHEDULE, NOW).next_attempt_at).toEqual(
      new Date(NOW.getTime() + 30 * 60 * SECOND),
    );
  });

  test('once the schedule is spent the delivery is failed', () => {
    expect(afterAttempt(4, false, SCHEDULE, NOW)).toEqual({
      status: 'failed',
      next_attempt_at: null,
    });
  });

  test('a 2xx answer delivers it', () => {
    expect(afterAttempt(2, true, SCHEDULE, NOW)).toEqual({
      status: 'delivered',
      next_attempt_at: null,
    });
  });

  test('an answer is kept to 1 KB in the delivery log', () => {
    expect(keptResponse('x'.repeat(5000))).toHaveLength(MAX_RESPONSE_KEPT_CHARS);
    expect(keptResponse('')).toBeNull();
  });
});

describe('endpoint health', () => {
  test('an endpoint fails from its first failed attempt after a success', () => {
    expect(endpointHealth(null, false, NOW)).toEqual({ failing_since: NOW, disable: false });
    const since = new Date(NOW.getTime() - DAY);
    expect(endpointHealth(since, false, NOW)).toEqual({ failing_since: since, disable: false });
    expect(endpointHealth(since, true, NOW)).toEqual({ failing_since: null, disable: false });
  });

  test('an endpoint none of whose attempts succeeded for 5 days is disabled', () => {
    const since = new Date(NOW.getTime() - FAILING_DISABLE_AFTER_MS);
    expect(endpointHealth(since, false, NOW).disable).toBe(true);
  });

  test('an endpoint of `*` gets every event, others the events they named', () => {
    expect(endpointWants(['*'], 'download.served')).toBe(true);
    expect(endpointWants(['activation.created'], 'activation.created')).toBe(true);
    expect(endpointWants(['activation.created'], 'activation.deleted')).toBe(false);
  });
});

describe('intake of domain events', () => {
  async function withEndpoints() {
    const { stores } = system();
    for (const events of [['*'], ['activation.created'], ['download.served']]) {
      await stores.endpoints.create(
        {
          url: 'https://hooks.example/',
          events,
          description: null,
          secret: generateSecret(),
          created_at: NOW,
        },
        MAX_WEBHOOK_ENDPOINTS,
      );
    }
    return stores;
  }

  test('an event becomes one delivery per enabled endpoint that asked for it', async () => {
    const stores = await withEndpoints();
    await stores.endpoints.update(1, { enabled: false, disabled_reason: 'admin' });
    const event = activationCreated();
    expect(await takeDomainEvent(event, { stores, clock: () => NOW })).toBe(1);
    const [delivery] = stores.allDeliveries();
    expect(delivery).toMatchObject({
      id: deliveryIdFor(event.id, 2),
      endpoint_id: 2,
      event_type: 'activation.created',
      status: 'pending',
      next_attempt_at: NOW,
    });
    expect(JSON.parse(delivery!.payload)).toEqual({
      type: event.type,
      timestamp: event.timestamp,
      data: event.data,
    });
  });

  test("an event between the services alone (a store's license changes) goes to no endpoint, `*` included", async () => {
    const stores = await withEndpoints();
    const event = domainEvent(
      'store.licenses_changed',
      {
        connection: { id: 1, name: 'Shop', provider: 'paddle' },
        store_event: null,
        changes: [{ action: 'updateLicense', license_key: 'KEY-1', before: {}, after: {} }],
      },
      NOW,
    );
    expect(await takeDomainEvent(event, { stores, clock: () => NOW })).toBe(0);
    expect(stores.allDeliveries()).toEqual([]);
  });

  test('an event taken twice (redelivered by the bus) makes its deliveries once', async () => {
    const stores = await withEndpoints();
    const event = activationCreated();
    await takeDomainEvent(event, { stores, clock: () => NOW });
    await takeDomainEvent(event, { stores, clock: () => NOW });
    expect(stores.allDeliveries()).toHaveLength(2);
  });
});

describe('attempts', () => {
  async function pendingDelivery(answers: Array<Partial<AttemptOutcome>>) {
    let now = NOW;
    const stores = memoryWebhookStores();
    const secret = generateSecret();
    await stores.endpoints.create(
      {
        url: 'https://hooks.example/in',
        events: ['*'],
        description: null,
        secret,
        created_at: NOW,
      },
      MAX_WEBHOOK_ENDPOINTS,
    );
    const event = activationCreated();
    await takeDomainEvent(event, { stores, clock: () => now });
    const sent: Array<Record<string, string>> = [];
    const deps: SenderDeps = {
      stores,
      schedule: SCHEDULE,
      policy: { allowPrivate: false },
      logger,
      clock: () => now,
      post: async (_url, headers) => {
        sent.push(headers);
        return { status: null, error: null, duration_ms: 3, response: null, ...answers.shift() };
      },
    };
    const attempt = async () => {
      const endpoint = (await stores.endpoints.find(1))!;
      const claimed = await stores.deliveries.claimDue(
        now,
        [1],
        'claim',
        new Date(now.getTime() + 30_000),
      );
      if (!claimed) return false;
      await attemptDelivery(deps, endpoint, claimed, 'claim');
      return true;
    };
    return { stores, sent, attempt, secret, setNow: (at: Date) => (now = at) };
  }

  test('a 503 is retried later under the same webhook-id, then delivered', async () => {
    const run = await pendingDelivery([{ status: 503, response: 'busy' }, { status: 204 }]);
    await run.attempt();
    let [delivery] = run.stores.allDeliveries();
    expect(delivery).toMatchObject({
      status: 'pending',
      next_attempt_at: new Date(NOW.getTime() + 5 * SECOND),
    });
    expect(delivery!.attempts).toEqual([
      { at: NOW, status: 503, error: null, duration_ms: 3, response: 'busy' },
    ]);
    expect(await run.attempt()).toBe(false); // not due yet
    run.setNow(new Date(NOW.getTime() + 5 * SECOND));
    expect(await run.attempt()).toBe(true);
    [delivery] = run.stores.allDeliveries();
    expect(delivery).toMatchObject({ status: 'delivered', next_attempt_at: null });
    expect(run.sent.map((h) => h['webhook-id'])).toEqual([delivery!.id, delivery!.id]);
    expect(run.sent[1]!['webhook-timestamp']).toBe(
      String(Math.floor((NOW.getTime() + 5 * SECOND) / 1000)),
    );
  });

  test('each attempt is signed for its own timestamp and verifies', async () => {
    const run = await pendingDelivery([{ status: 200 }]);
    const now = new Date();
    run.setNow(now);
    await run.stores.deliveries.retryNow(1, run.stores.allDeliveries()[0]!.id, now);
    await run.attempt();
    const payload = run.stores.allDeliveries()[0]!.payload;
    expect(() => new Webhook(run.secret).verify(payload, run.sent[0]!)).not.toThrow();
  });

  test('a network error counts as a failed attempt and is recorded', async () => {
    const run = await pendingDelivery([{ error: 'ECONNREFUSED: connect ECONNREFUSED' }]);
    await run.attempt();
    expect(run.stores.allDeliveries()[0]!.attempts[0]).toMatchObject({
      status: null,
      error: 'ECONNREFUSED: connect ECONNREFUSED',
    });
    expect((await run.stores.endpoints.find(1))!.failing_since).toEqual(NOW);
  });

  test('after the last retry fails the delivery is failed, and a manual retry tries once more', async () => {
    const run = await pendingDelivery([
      { status: 500 },
      { status: 500 },
      { status: 500 },
      { status: 500 },
      { status: 200 },
    ]);
    for (let i = 0; i < 4; i++) {
      run.setNow(new Date(NOW.getTime() + i * DAY));
      await run.attempt();
    }
    const id = run.stores.allDeliveries()[0]!.id;
    expect(run.stores.allDeliveries()[0]).toMatchObject({
      status: 'failed',
      next_attempt_at: null,
    });
    expect(await run.attempt()).toBe(false);
    await run.stores.deliveries.retryNow(1, id, new Date(NOW.getTime() + 4 * DAY));
    run.setNow(new Date(NOW.getTime() + 4 * DAY));
    await run.attempt();
    expect(run.stores.allDeliveries()[0]).toMatchObject({ status: 'delivered' });
    expect(run.stores.allDeliveries()[0]!.attempts).toHaveLength(5);
  });

  test('an endpoint failing for 5 days is disabled; a success before clears its failing', async () => {
    const run = await pendingDelivery([{ status: 500 }, { status: 500 }]);
    await run.attempt();
    run.setNow(new Date(NOW.getTime() + FAILING_DISABLE_AFTER_MS));
    await run.stores.deliveries.retryNow(
      1,
      run.stores.allDeliveries()[0]!.id,
      new Date(NOW.getTime() + FAILING_DISABLE_AFTER_MS),
    );
    await run.attempt();
    expect(await run.stores.endpoints.find(1)).toMatchObject({
      enabled: false,
      disabled_reason: 'failing',
      failing_since: NOW,
    });
  });

  test('an attempt whose claim lapsed (another sender took it) is not recorded', async () => {
    const run = await pendingDelivery([{ status: 200 }]);
    const endpoint = (await run.stores.endpoints.find(1))!;
    const claimed = (await run.stores.deliveries.claimDue(
      NOW,
      [1],
      'first',
      new Date(NOW.getTime() + 1),
    ))!;
    await run.stores.deliveries.claimDue(
      new Date(NOW.getTime() + 1),
      [1],
      'second',
      new Date(NOW.getTime() + 30_000),
    );
    await attemptDelivery(
      {
        stores: run.stores,
        schedule: SCHEDULE,
        policy: { allowPrivate: false },
        logger,
        clock: () => NOW,
        post: async () => ({ status: 200, error: null, duration_ms: 1, response: null }),
      },
      endpoint,
      claimed,
      'first',
    );
    expect(run.stores.allDeliveries()[0]).toMatchObject({ status: 'pending', attempts: [] });
  });
});

describe('endpoints through the management API', () => {
  const create = (
    handlers: ReturnType<typeof system>['handlers'],
    url = 'https://93.184.215.14/hook',
  ) =>
    handlers['webhooks.createEndpoint'](
      { url, events: ['activation.created'], description: 'CRM' },
      waiting,
    );

  test('a new endpoint answers its secret once; lists and details never show it', async () => {
    const { handlers } = system();
    const created = await create(handlers);
    expect(created).toMatchObject({
      id: 1,
      enabled: true,
      events: ['activation.created'],
      description: 'CRM',
    });
    expect(created.secret).toMatch(/^whsec_/);
    const listed = await handlers['webhooks.listEndpoints']({}, waiting);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(await handlers['webhooks.getEndpoint']({ id: 1 }, waiting)).not.toHaveProperty('secret');
  });

  test(`more than ${MAX_WEBHOOK_ENDPOINTS} endpoints are refused with INVALID_REQUEST`, async () => {
    const { handlers, stores } = system();
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) await create(handlers);
    await expect(create(handlers)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await stores.endpoints.list()).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
  });

  test('a rotation answers a new secret and keeps the one before signing for 24 hours', async () => {
    const { handlers, stores } = system();
    const created = await create(handlers);
    const rotated = await handlers['webhooks.rotateSecret']({ id: 1 }, waiting);
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.secret_rotated_at).toBe(NOW.toISOString());
    expect((await stores.endpoints.find(1))!.secrets).toEqual([
      { secret: rotated.secret, expires_at: null },
      { secret: created.secret, expires_at: new Date(NOW.getTime() + PREVIOUS_SECRET_KEPT_MS) },
    ]);
  });

  test('an endpoint enabled again starts afresh; one disabled by an admin says so', async () => {
    const { handlers, stores } = system();
    await create(handlers);
    await stores.endpoints.update(1, {
      enabled: false,
      disabled_reason: 'failing',
      failing_since: NOW,
    });
    expect(
      await handlers['webhooks.updateEndpoint']({ id: 1, enabled: true }, waiting),
    ).toMatchObject({
      enabled: true,
      disabled_reason: null,
      failing_since: null,
    });
    expect(
      await handlers['webhooks.updateEndpoint']({ id: 1, enabled: false }, waiting),
    ).toMatchObject({
      enabled: false,
      disabled_reason: 'admin',
    });
  });

  test('a test event is queued for the endpoint at once', async () => {
    const { handlers, nudges } = system();
    await create(handlers);
    const delivery = await handlers['webhooks.sendTest']({ id: 1 }, waiting);
    expect(delivery).toMatchObject({
      event_type: 'webhook.test',
      status: 'pending',
      endpoint_id: 1,
    });
    expect(JSON.parse(delivery.payload)).toMatchObject({
      type: 'webhook.test',
      data: { webhook_id: 1 },
    });
    expect(nudges()).toBe(1);
  });

  test('a deleted endpoint takes its deliveries with it; unknown ids are NOT_FOUND', async () => {
    const { handlers, stores } = system();
    await create(handlers);
    await handlers['webhooks.sendTest']({ id: 1 }, waiting);
    await handlers['webhooks.deleteEndpoint']({ id: 1 }, waiting);
    expect(stores.allDeliveries()).toEqual([]);
    for (const call of [
      () => handlers['webhooks.getEndpoint']({ id: 1 }, waiting),
      () => handlers['webhooks.sendTest']({ id: 1 }, waiting),
      () => handlers['webhooks.retryDelivery']({ endpoint_id: 1, delivery_id: 'msg_x' }, waiting),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(LicensingError);
      await expect(call()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});
