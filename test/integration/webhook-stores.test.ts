import { MAX_WEBHOOK_ENDPOINTS } from '../../libs/contracts/index.js';
import { openMongoWebhookStores } from '../../services/webhooks/mongo-stores.js';
import type { NewWebhookDelivery, WebhookStores } from '../../services/webhooks/stores.js';
import { memoryWebhookStores } from '../support/webhook-memory-stores.js';
import { describeStoreContract, type StoreImplementations } from '../support/store-contract.js';

// Recent: deliveries older than the retention (30 days here) are removed by the TTL index.
const T0 = new Date(Math.floor(Date.now() / 1000) * 1000);
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const SECRET = `whsec_${'A'.repeat(43)}=`;

function endpoint(events: string[] = ['*']) {
  return {
    url: 'https://hooks.example/in',
    events,
    description: null,
    secret: SECRET,
    created_at: T0,
  };
}

function delivery(id: string, endpointId: number, due: Date, created = due): NewWebhookDelivery {
  return {
    id,
    endpoint_id: endpointId,
    event_type: 'license.created',
    event_at: created,
    payload: '{}',
    next_attempt_at: due,
    created_at: created,
  };
}

const attempt = (when: Date, status: number) => ({
  at: when,
  status,
  error: null,
  duration_ms: 5,
  response: null,
});

const implementations: StoreImplementations<WebhookStores> = {
  service: 'webhooks',
  openMongo: (connection) => openMongoWebhookStores(connection, 30),
  inMemory: memoryWebhookStores,
};

describeStoreContract('webhook stores', implementations, (stores) => {
  test('endpoints get ids from 1, enabled with their one secret; a full set refuses another', async () => {
    const first = await stores().endpoints.create(endpoint(), 2);
    expect(first).toMatchObject({
      id: expect.any(Number),
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      secret_rotated_at: null,
      secrets: [{ secret: SECRET, expires_at: null }],
    });
    expect(await stores().endpoints.create(endpoint(), 2)).not.toBeNull();
    expect(await stores().endpoints.create(endpoint(), 2)).toBeNull();
    expect(await stores().endpoints.list()).toHaveLength(2);
  });

  test('endpoints created at the same time never outnumber the limit; each one answered is kept', async () => {
    await stores().endpoints.create(endpoint(), 3);
    const made = await Promise.all(
      Array.from({ length: 6 }, () => stores().endpoints.create(endpoint(), 3)),
    );
    const kept = made.filter((created) => created !== null);
    const listed = await stores().endpoints.list();
    expect(listed.length).toBeLessThanOrEqual(3);
    // Ids are taken in whatever order the creations reach the store, not the order of the calls.
    const keptIds = kept.map(({ id }) => id).sort((a, b) => a - b);
    expect(listed.slice(1).map(({ id }) => id)).toEqual(keptIds);
    // Once the race is over, the room left is taken as usual.
    while ((await stores().endpoints.list()).length < 3) {
      expect(await stores().endpoints.create(endpoint(), 3)).not.toBeNull();
    }
    expect(await stores().endpoints.create(endpoint(), 3)).toBeNull();
  });

  test('the endpoints wanting an event are the enabled ones that named it or `*`', async () => {
    const all = (await stores().endpoints.create(endpoint(['*']), MAX_WEBHOOK_ENDPOINTS))!;
    const named = (await stores().endpoints.create(
      endpoint(['license.created', 'download.served']),
      MAX_WEBHOOK_ENDPOINTS,
    ))!;
    await stores().endpoints.create(endpoint(['download.served']), MAX_WEBHOOK_ENDPOINTS);
    const off = (await stores().endpoints.create(endpoint(['*']), MAX_WEBHOOK_ENDPOINTS))!;
    await stores().endpoints.update(off.id, { enabled: false, disabled_reason: 'admin' });
    expect((await stores().endpoints.wanting('license.created')).map((e) => e.id)).toEqual([
      all.id,
      named.id,
    ]);
    expect((await stores().endpoints.enabled()).map((e) => e.id)).not.toContain(off.id);
  });

  test('a rotation keeps the secret before until the time given, and drops older ones', async () => {
    const created = (await stores().endpoints.create(endpoint(), MAX_WEBHOOK_ENDPOINTS))!;
    const second = `whsec_${'B'.repeat(43)}=`;
    const third = `whsec_${'C'.repeat(43)}=`;
    await stores().endpoints.rotateSecret(created.id, second, at(1), at(100));
    const rotated = await stores().endpoints.rotateSecret(created.id, third, at(2), at(200));
    expect(rotated).toMatchObject({
      secret_rotated_at: at(2),
      secrets: [
        { secret: third, expires_at: null },
        { secret: second, expires_at: at(200) },
      ],
    });
    expect(await stores().endpoints.rotateSecret(999, third, at(2), at(200))).toBeNull();
  });

  test('a delivery added twice is kept once, as first added', async () => {
    await stores().deliveries.add([delivery('msg_a', 1, at(0))]);
    await stores().deliveries.add([{ ...delivery('msg_a', 1, at(50)), payload: '{"again":1}' }]);
    const found = await stores().deliveries.find(1, 'msg_a');
    expect(found).toMatchObject({
      status: 'pending',
      attempts: [],
      payload: '{}',
      next_attempt_at: at(0),
    });
  });

  test('the due delivery first in time is claimed, hidden until its claim lapses, then taken again', async () => {
    await stores().deliveries.add([
      delivery('msg_late', 1, at(5)),
      delivery('msg_first', 1, at(1)),
      delivery('msg_other', 2, at(0)),
      delivery('msg_future', 1, at(100)),
    ]);
    const claimed = await stores().deliveries.claimDue(at(10), [1], 'c1', at(40));
    expect(claimed).toMatchObject({ id: 'msg_first', next_attempt_at: at(40) });
    expect((await stores().deliveries.claimDue(at(10), [1], 'c2', at(45)))?.id).toBe('msg_late');
    expect(await stores().deliveries.claimDue(at(10), [1], 'c3', at(40))).toBeNull();
    // Lapsed: another sender takes it, and the first can no longer record its attempt.
    expect((await stores().deliveries.claimDue(at(41), [1], 'c4', at(70)))?.id).toBe('msg_first');
    expect(
      await stores().deliveries.recordAttempt('msg_first', 'c1', attempt(at(41), 200), {
        status: 'delivered',
        next_attempt_at: null,
      }),
    ).toBe(false);
    expect(
      await stores().deliveries.recordAttempt('msg_first', 'c4', attempt(at(42), 503), {
        status: 'pending',
        next_attempt_at: at(50),
      }),
    ).toBe(true);
    expect(await stores().deliveries.find(1, 'msg_first')).toMatchObject({
      status: 'pending',
      next_attempt_at: at(50),
      attempts: [attempt(at(42), 503)],
    });
  });

  test("an endpoint's deliveries page newest first, by status, with how many match", async () => {
    await stores().deliveries.add([
      delivery('msg_1', 1, at(1), at(1)),
      delivery('msg_2', 1, at(2), at(2)),
      delivery('msg_3', 1, at(3), at(3)),
      delivery('msg_9', 9, at(3), at(3)),
    ]);
    const claimed = (await stores().deliveries.claimDue(at(1), [1], 'c', at(30)))!;
    await stores().deliveries.recordAttempt(claimed.id, 'c', attempt(at(1), 200), {
      status: 'delivered',
      next_attempt_at: null,
    });
    const page = await stores().deliveries.page(1, null, 1, 2);
    expect(page.total).toBe(3);
    expect(page.deliveries.map((d) => d.id)).toEqual(['msg_3', 'msg_2']);
    expect((await stores().deliveries.page(1, null, 2, 2)).deliveries.map((d) => d.id)).toEqual([
      'msg_1',
    ]);
    const delivered = await stores().deliveries.page(1, 'delivered', 1, 10);
    expect([delivered.total, delivered.deliveries.map((d) => d.id)]).toEqual([1, ['msg_1']]);
  });

  test('a retry makes any delivery pending and due now; an endpoint removed takes its deliveries', async () => {
    await stores().deliveries.add([delivery('msg_1', 1, at(1)), delivery('msg_2', 2, at(1))]);
    const claimed = (await stores().deliveries.claimDue(at(1), [1], 'c', at(30)))!;
    await stores().deliveries.recordAttempt(claimed.id, 'c', attempt(at(1), 500), {
      status: 'failed',
      next_attempt_at: null,
    });
    expect(await stores().deliveries.retryNow(1, 'msg_1', at(60))).toMatchObject({
      status: 'pending',
      next_attempt_at: at(60),
    });
    expect(await stores().deliveries.retryNow(2, 'msg_1', at(60))).toBeNull();
    expect((await stores().deliveries.claimDue(at(60), [1], 'd', at(90)))?.id).toBe('msg_1');
    await stores().deliveries.removeForEndpoint(1);
    expect(await stores().deliveries.find(1, 'msg_1')).toBeNull();
    expect(await stores().deliveries.find(2, 'msg_2')).not.toBeNull();
  });

  test('a retry while a sender holds the delivery changes nothing, so the attempt under way is recorded; after it, or once the claim lapsed, the retry takes it', async () => {
    await stores().deliveries.add([delivery('msg_1', 1, at(1))]);
    await stores().deliveries.claimDue(at(1), [1], 'c', at(30));
    expect(await stores().deliveries.retryNow(1, 'msg_1', at(5))).toBe('attempting');
    expect(await stores().deliveries.retryNow(2, 'msg_1', at(5))).toBeNull();
    // Not due again: no other sender sends it meanwhile.
    expect(await stores().deliveries.claimDue(at(5), [1], 'd', at(35))).toBeNull();
    const failed = { status: 'pending' as const, next_attempt_at: at(600) };
    expect(await stores().deliveries.recordAttempt('msg_1', 'c', attempt(at(6), 503), failed)).toBe(
      true,
    );
    expect(await stores().deliveries.retryNow(1, 'msg_1', at(7))).toMatchObject({
      status: 'pending',
      next_attempt_at: at(7),
      attempts: [attempt(at(6), 503)],
    });
    // A sender that died holding it: once its claim lapsed, a retry takes it.
    await stores().deliveries.claimDue(at(7), [1], 'e', at(37));
    expect(await stores().deliveries.retryNow(1, 'msg_1', at(36))).toBe('attempting');
    expect(await stores().deliveries.retryNow(1, 'msg_1', at(37))).toMatchObject({
      next_attempt_at: at(37),
    });
    expect(
      await stores().deliveries.recordAttempt('msg_1', 'e', attempt(at(38), 200), failed),
    ).toBe(false);
  });
});
