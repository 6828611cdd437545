import { suspendPastGrace } from '../../../services/stores/applying/grace-sweep.js';
import { editedFixture, storeFixture } from '../../support/store-fixtures.js';
import { storeServiceHarness } from '../../support/store-service-harness.js';

const PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
const NEW_PRICE = 'pri_01jdqyr8c0e2g4j6l8n0q2s4uw';

/** A Paddle connection with its prices mapped, and a helper that delivers and applies a fixture. */
async function paddleShop() {
  const h = storeServiceHarness();
  const connection = await h.connect('paddle', { name: 'Paddle shop' });
  await h.map(connection.id, PRICE, 20);
  await h.map(connection.id, NEW_PRICE, 30);
  const apply = async (name: string, body = storeFixture('paddle', name)) => {
    const before = h.reported.length;
    await h.deliver(connection, body);
    while (await h.applier.applyNext());
    return { event: h.stores.allEvents().at(-1)!, reports: h.reported.slice(before) };
  };
  return { h, connection, apply };
}

/** A fixture as if it happened later than the ones applied before it. */
const later = (name: string, at: string) => editedFixture('paddle', name, ['occurred_at', at]);

describe('Stores: each license change an event makes is reported for the audit log, the event as its source', () => {
  test('a license made: createLicense, its fields after and none before, the connection and the event named', async () => {
    const { h, connection, apply } = await paddleShop();
    const { event, reports } = await apply('transaction-completed-subscription-first');
    expect(reports).toEqual([
      {
        at: h.clock(),
        changes: {
          connection: { id: connection.id, name: 'Paddle shop', provider: 'paddle' },
          store_event: {
            id: event.id,
            event_id: event.event_id,
            type: 'transaction.completed',
            kind: 'subscription_paid',
          },
          changes: [
            {
              action: 'createLicense',
              license_key: 'STORE-1',
              before: null,
              after: expect.objectContaining({ status: 'active', plan_id: 20, auto_renew: true }),
            },
          ],
        },
      },
    ]);
  });

  test("each change of an event, in the order made, with the license's fields before and after", async () => {
    const { apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    const [cancel] = (await apply('subscription-updated-cancel-scheduled')).reports;
    expect(cancel!.changes.changes).toEqual([
      expect.objectContaining({
        action: 'updateLicense',
        before: expect.objectContaining({ auto_renew: true }),
        after: expect.objectContaining({ auto_renew: false }),
      }),
    ]);
    const [moved] = (await apply('subscription-updated-price-changed')).reports;
    expect(moved!.changes.store_event!.kind).toBe('plan_changed');
    expect(moved!.changes.changes).toEqual([
      expect.objectContaining({
        action: 'changePlan',
        before: expect.objectContaining({ plan_id: 20 }),
        after: expect.objectContaining({ plan_id: 30 }),
      }),
    ]);
    await apply('subscription-canceled', later('subscription-canceled', '2027-12-01T00:00:00Z'));
    const [resumed] = (
      await apply('subscription-resumed', later('subscription-resumed', '2027-12-02T00:00:00Z'))
    ).reports;
    const changes = resumed!.changes.changes;
    expect(changes[0]).toMatchObject({
      action: 'updateLicense',
      before: { status: 'cancelled' },
      after: { status: 'active' },
    });
    expect(changes.at(-1)).toMatchObject({ action: 'updateLicense', after: { auto_renew: true } });
  });

  test('what changes no license reports nothing: the past-due mark, no change, a stale event', async () => {
    const { apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    expect(await apply('transaction-payment-failed-renewal')).toMatchObject({
      event: { outcome: 'applied' },
      reports: [],
    });
    expect(await apply('subscription-past-due')).toMatchObject({
      event: { outcome: 'no_change' },
      reports: [],
    });
    await apply('transaction-completed-renewal');
    expect(await apply('subscription-canceled')).toMatchObject({
      event: { outcome: 'stale' },
      reports: [],
    });
  });

  test('an attempt that fails after a change reports it; the retry does not report it again', async () => {
    const { h, connection } = await paddleShop();
    const save = h.stores.links.save.bind(h.stores.links);
    h.stores.links.save = async () => {
      h.stores.links.save = save;
      throw new Error('the database is not answering');
    };
    await h.deliver(connection, storeFixture('paddle', 'transaction-completed-subscription-first'));
    await h.applier.applyNext();
    expect(h.stores.allEvents()[0]).toMatchObject({ outcome: 'pending', attempts: 1 });
    expect(h.reported.map((r) => r.changes.changes.map((c) => c.action))).toEqual([
      ['createLicense'],
    ]);
    h.setNow(new Date(h.clock().getTime() + 60 * 60_000));
    while (await h.applier.applyNext());
    expect(h.stores.allEvents()[0]).toMatchObject({ outcome: 'applied', attempts: 2 });
    expect(h.reported).toHaveLength(1);
  });

  test("the grace sweep's suspension is reported with the connection, and no event", async () => {
    const { h, connection, apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    await apply('transaction-payment-failed-renewal');
    const [link] = await h.stores.links.pastGrace(connection.id, new Date('2100-01-01'));
    h.setNow(new Date(link!.past_due_since!.getTime() + 3 * 86_400_000));
    const before = h.reported.length;
    expect(await suspendPastGrace(h.applierDeps)).toBe(1);
    expect(h.reported.slice(before)).toEqual([
      {
        at: h.clock(),
        changes: {
          connection: { id: connection.id, name: 'Paddle shop', provider: 'paddle' },
          store_event: null,
          changes: [
            expect.objectContaining({
              action: 'updateLicense',
              license_key: 'STORE-1',
              before: expect.objectContaining({ status: 'active' }),
              after: expect.objectContaining({ status: 'suspended' }),
            }),
          ],
        },
      },
    ]);
  });
});
