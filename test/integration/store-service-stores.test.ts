import { openMongoStoreServiceStores } from '../../services/stores/mongo-stores.js';
import type { NewStoreEvent, StoreServiceStores } from '../../services/stores/stores.js';
import { memoryStoreServiceStores } from '../support/store-service-memory-stores.js';
import { describeStoreContract, type StoreImplementations } from '../support/store-contract.js';

const T0 = new Date('2026-11-28T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

const connection = (name = 'Shop') => ({
  name,
  provider: 'stripe' as const,
  mode: 'live' as const,
  signing_secret: 'whsec_current_secret',
  api_key: null,
  grace_days: 3,
  emails: { created: true, renewed: true, suspended: true, cancelled: true },
  created_at: T0,
});

const mapping = (connectionId: number, externalId: string) => ({
  connection_id: connectionId,
  external_id: externalId,
  product_id: 1,
  plan_id: 2,
  renewal: 'gateway' as const,
  duration_days: null,
  created_at: T0,
});

function event(connectionId: number, eventId: string, due: Date | null = T0): NewStoreEvent {
  return {
    connection_id: connectionId,
    event_id: eventId,
    type: 'invoice.paid',
    received_at: T0,
    occurred_at: T0,
    order_id: null,
    subscription_id: 'sub_1',
    external_ids: ['price_1'],
    outcome: due === null ? 'unreadable' : 'pending',
    detail: null,
    body: Buffer.from('{}').toString('base64'),
    headers: { 'stripe-signature': 't=1,v1=00' },
    due_at: due,
  };
}

const implementations: StoreImplementations<StoreServiceStores> = {
  service: 'stores',
  openMongo: openMongoStoreServiceStores,
  inMemory: memoryStoreServiceStores,
};

describeStoreContract('store service stores', implementations, (stores) => {
  test('a connection keeps its secret; a rotation keeps the one before until the time given', async () => {
    const created = await stores().connections.create(connection());
    expect(created.secrets).toEqual([{ secret: 'whsec_current_secret', expires_at: null }]);
    const rotated = await stores().connections.rotateSecret(created.id, 'whsec_new', at(1), at(2));
    expect(rotated?.secrets).toEqual([
      { secret: 'whsec_new', expires_at: null },
      { secret: 'whsec_current_secret', expires_at: at(2) },
    ]);
    expect(rotated?.secret_rotated_at).toEqual(at(1));
  });

  test("a partial change of a connection's e-mails keeps the others", async () => {
    const { id } = await stores().connections.create(connection());
    const updated = await stores().connections.update(id, { emails: { renewed: false } }, at(5));
    expect(updated?.emails).toEqual({
      created: true,
      renewed: false,
      suspended: true,
      cancelled: true,
    });
    expect(updated?.updated_at).toEqual(at(5));
  });

  test('a connection maps an external id once; the first mapped of several ids is found', async () => {
    const { id } = await stores().connections.create(connection());
    const other = await stores().connections.create(connection('Other'));
    expect(await stores().mappings.create(mapping(id, 'price_b'))).toMatchObject({ id: 1 });
    expect(await stores().mappings.create(mapping(id, 'price_b'))).toBe('exists');
    expect(await stores().mappings.create(mapping(other.id, 'price_b'))).not.toBe('exists');
    await stores().mappings.create(mapping(id, 'price_a'));
    const found = await stores().mappings.firstMapped(id, ['price_x', 'price_b', 'price_a']);
    expect(found?.external_id).toBe('price_b');
    await stores().mappings.removeForConnection(id);
    expect(await stores().mappings.list(id)).toEqual([]);
    expect(await stores().mappings.list(other.id)).toHaveLength(1);
  });

  test('an event is written once per connection and event id, even when written twice at once', async () => {
    const results = await Promise.all([
      stores().events.add(event(1, 'evt_1')),
      stores().events.add(event(1, 'evt_1')),
    ]);
    expect(results.filter((r) => r === 'duplicate')).toHaveLength(1);
    expect(await stores().events.add(event(1, 'evt_1'))).toBe('duplicate');
    expect(await stores().events.add(event(2, 'evt_1'))).not.toBe('duplicate');
    expect((await stores().events.page({ connection_id: 1, outcome: null }, 1, 10)).total).toBe(1);
  });

  test('a claimed event is not claimed again until its lease lapses', async () => {
    await stores().events.add(event(1, 'evt_1'));
    const first = await stores().events.claimDue(at(0), 'a', at(60));
    expect(first?.event_id).toBe('evt_1');
    expect(await stores().events.claimDue(at(30), 'b', at(90))).toBeNull();
    const again = await stores().events.claimDue(at(60), 'c', at(120));
    expect(again?.id).toBe(first?.id);
    // The first claim lapsed: what its holder writes is not kept.
    const result = {
      outcome: 'applied' as const,
      detail: null,
      attempts: 1,
      license_key: 'K',
      applied_at: at(61),
      due_at: null,
      mail: [],
    };
    expect(await stores().events.finish(first!.id, 'a', result)).toBe(false);
    expect(await stores().events.finish(first!.id, 'c', result)).toBe(true);
    expect(await stores().events.find(first!.id)).toMatchObject({
      outcome: 'applied',
      license_key: 'K',
    });
    expect(await stores().events.claimDue(at(500), 'd', at(600))).toBeNull();
  });

  test('an event not yet due is not claimed', async () => {
    await stores().events.add(event(1, 'evt_1', at(100)));
    expect(await stores().events.claimDue(at(99), 'a', at(160))).toBeNull();
    expect(await stores().events.claimDue(at(100), 'a', at(160))).not.toBeNull();
  });

  test('only a failed or unmapped event is applied again', async () => {
    const unreadable = await stores().events.add(event(1, 'evt_u', null));
    expect(await stores().events.applyAgain((unreadable as { id: number }).id, T0)).toBe(
      'not_retryable',
    );
    expect(await stores().events.applyAgain(999, T0)).toBeNull();
    const added = await stores().events.add(event(1, 'evt_1'));
    const id = (added as { id: number }).id;
    await stores().events.claimDue(T0, 'a', at(60));
    await stores().events.finish(id, 'a', {
      outcome: 'unmapped',
      detail: 'no mapping',
      attempts: 1,
      license_key: null,
      applied_at: T0,
      due_at: null,
      mail: [],
    });
    expect(await stores().events.applyAgain(id, at(5))).toMatchObject({
      outcome: 'pending',
      attempts: 0,
      due_at: at(5),
    });
    expect(await stores().events.claimDue(at(5), 'b', at(65))).toMatchObject({ id });
  });

  test('the event log is newest first, by connection and outcome', async () => {
    await stores().events.add(event(1, 'a'));
    await stores().events.add(event(1, 'b', null));
    await stores().events.add(event(2, 'c'));
    const all = await stores().events.page({ connection_id: null, outcome: null }, 1, 2);
    expect(all.events.map((e) => e.event_id)).toEqual(['c', 'b']);
    expect(all.total).toBe(3);
    const unreadable = await stores().events.page(
      { connection_id: 1, outcome: 'unreadable' },
      1,
      5,
    );
    expect(unreadable.events.map((e) => e.event_id)).toEqual(['b']);
  });

  test("a link is found by its subscription or a resubscription's, else its order or a renewal's; a grace suspension is marked once", async () => {
    const link = {
      connection_id: 1,
      order_id: 'ord_1',
      subscription_id: 'sub_1',
      renewal_order_ids: ['ord_2'],
      resubscription_ids: ['sub_2'],
      license_key: 'KEY-1',
      status: 'active',
      past_due_since: at(0),
      last_applied_at: at(0),
      grace_suspended_at: null,
    };
    await stores().links.save(link);
    expect(await stores().links.find(1, { order_id: null, subscription_id: 'sub_1' })).toEqual(
      link,
    );
    expect(await stores().links.find(1, { order_id: 'ord_1', subscription_id: 'sub_x' })).toEqual(
      link,
    );
    expect(await stores().links.find(1, { order_id: 'ord_2', subscription_id: null })).toEqual(
      link,
    );
    expect(await stores().links.find(1, { order_id: null, subscription_id: 'sub_2' })).toEqual(
      link,
    );
    expect(await stores().links.find(2, { order_id: 'ord_1', subscription_id: null })).toBeNull();
    expect(await stores().links.pastGrace(1, at(-1))).toEqual([]);
    expect(await stores().links.pastGrace(1, at(0))).toHaveLength(1);
    const marks = await Promise.all([
      stores().links.markGraceSuspended('KEY-1', at(10)),
      stores().links.markGraceSuspended('KEY-1', at(10)),
    ]);
    expect(marks.filter(Boolean)).toHaveLength(1);
    expect(await stores().links.pastGrace(1, at(100))).toEqual([]);
  });

  test('an ending is kept once, found by its order or subscription until it is marked applied, oldest first', async () => {
    const ending = (
      event_id: string,
      refs: { order_id?: string; subscription_id?: string },
      seconds: number,
    ) => ({
      connection_id: 1,
      event_id,
      order_id: refs.order_id ?? null,
      subscription_id: refs.subscription_id ?? null,
      kind: 'refunded' as const,
      period_start: null,
      occurred_at: at(seconds),
      kept_at: T0,
    });
    await Promise.all([
      stores().endings.keep(ending('evt_refund', { order_id: 'ord_1' }, 20)),
      stores().endings.keep(ending('evt_refund', { order_id: 'ord_1' }, 20)),
    ]);
    await stores().endings.keep(ending('evt_refund', { order_id: 'ord_other' }, 99));
    await stores().endings.keep(ending('evt_ended', { subscription_id: 'sub_1' }, 10));
    await stores().endings.keep({
      ...ending('evt_elsewhere', { order_id: 'ord_1' }, 5),
      connection_id: 2,
    });
    const refs = { order_ids: ['ord_1'], subscription_ids: ['sub_1'] };
    const pending = await stores().endings.pending(1, refs);
    expect(pending.map((e) => [e.event_id, e.order_id, e.occurred_at])).toEqual([
      ['evt_ended', null, at(10)],
      ['evt_refund', 'ord_1', at(20)],
    ]);
    expect(pending[1]).toEqual({
      ...ending('evt_refund', { order_id: 'ord_1' }, 20),
      applied_to: null,
    });
    expect(
      await stores().endings.pending(1, { order_ids: ['ord_2'], subscription_ids: [] }),
    ).toEqual([]);
    const marks = await Promise.all([
      stores().endings.markApplied(1, 'evt_refund', 'KEY-1'),
      stores().endings.markApplied(1, 'evt_refund', 'KEY-1'),
    ]);
    expect(marks.filter(Boolean)).toHaveLength(1);
    expect((await stores().endings.pending(1, refs)).map((e) => e.event_id)).toEqual(['evt_ended']);
  });
});
