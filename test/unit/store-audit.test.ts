import {
  domainEvent,
  type DomainEventOf,
  type StoreLicensesChanged,
} from '../../libs/contracts/index.js';
import { keyFingerprint } from '../../libs/logging/index.js';
import {
  auditDomainEvent,
  storeAuditEntries,
} from '../../services/management/audit/store-audit.js';
import { memoryManagementStores } from '../support/management-memory-stores.js';

const KEY = 'STORE-KEY-0123456789';
const AT = new Date('2026-11-28T12:00:00.000Z');
const connection = { id: 3, name: 'Paddle shop', provider: 'paddle' as const };
const storeEvent = {
  id: 41,
  event_id: 'evt_01jdqz',
  type: 'subscription.canceled',
  kind: 'subscription_ended',
};

/** A license as the license service answers it (without its lists), with changes. */
const license = (fields: Record<string, unknown> = {}) => ({
  license_key: KEY,
  status: 'active',
  plan_id: 20,
  auto_renew: true,
  customer: { email: 'ada@example.com', name: 'Ada' },
  store: { connection_id: 3, order_id: null, subscription_id: 'sub_1', customer_id: null },
  ...fields,
});

function changed(
  data: Partial<StoreLicensesChanged> = {},
): DomainEventOf<'store.licenses_changed'> {
  return domainEvent(
    'store.licenses_changed',
    {
      connection,
      store_event: storeEvent,
      changes: [
        {
          action: 'updateLicense',
          license_key: KEY,
          before: license(),
          after: license({ status: 'cancelled' }),
        },
      ],
      ...data,
    },
    AT,
  );
}

describe("the audit log's entries of a store's license changes (store.licenses_changed)", () => {
  test('an entry per change: no admin, the store event as its source, the fields that moved', () => {
    const event = changed();
    expect(storeAuditEntries(event)).toEqual([
      {
        key: `${event.id}:0`,
        at: AT,
        admin: null,
        source: { kind: 'store_event', connection, event: storeEvent },
        action: 'updateLicense',
        target: `license:${keyFingerprint(KEY)}`,
        before: { status: 'active' },
        after: { status: 'cancelled' },
      },
    ]);
  });

  test('a license made: all its fields after, its key only as a fingerprint', () => {
    const event = changed({
      store_event: { ...storeEvent, kind: 'subscription_paid' },
      changes: [{ action: 'createLicense', license_key: KEY, before: null, after: license() }],
    });
    const [entry] = storeAuditEntries(event);
    expect(entry).toMatchObject({
      action: 'createLicense',
      before: null,
      after: { ...license(), license_key: keyFingerprint(KEY) },
    });
    expect(JSON.stringify(entry)).not.toContain(KEY);
  });

  test('no secret is kept, whatever the license service answered', () => {
    const event = changed({
      changes: [
        {
          action: 'updateLicense',
          license_key: KEY,
          before: license({ api_key: 'sk_live_old', secret: 'a' }),
          after: license({ status: 'revoked', api_key: 'sk_live_new', secret: 'b' }),
        },
      ],
    });
    const [entry] = storeAuditEntries(event);
    expect(entry).toMatchObject({ before: { status: 'active' }, after: { status: 'revoked' } });
    expect(JSON.stringify(entry)).not.toMatch(/sk_live|"secret"/);
  });

  test('several changes of one event: an entry each, in order, each under a key of its own; one that moved nothing has none', () => {
    const event = changed({
      store_event: { ...storeEvent, kind: 'resumed' },
      changes: [
        {
          action: 'updateLicense',
          license_key: KEY,
          before: license({ status: 'cancelled' }),
          after: license(),
        },
        { action: 'renewLicense', license_key: KEY, before: license(), after: license() },
        {
          action: 'updateLicense',
          license_key: KEY,
          before: license({ auto_renew: false }),
          after: license(),
        },
      ],
    });
    const entries = storeAuditEntries(event);
    expect(entries.map((e) => [e.key, e.action, e.after])).toEqual([
      [`${event.id}:0`, 'updateLicense', { status: 'active' }],
      [`${event.id}:2`, 'updateLicense', { auto_renew: true }],
    ]);
    expect(storeAuditEntries(event)).toEqual(entries);
  });

  test("the grace sweep's suspension names the connection, and no event", () => {
    const [entry] = storeAuditEntries(changed({ store_event: null }));
    expect(entry!.source).toEqual({ kind: 'store_grace', connection });
  });

  test('the same event delivered again writes nothing twice; an event of another type writes nothing', async () => {
    const stores = memoryManagementStores();
    const event = changed();
    expect(await auditDomainEvent(event, stores.audit)).toBe(1);
    expect(await auditDomainEvent(event, stores.audit)).toBe(0);
    const other = domainEvent(
      'version.published',
      { product_id: 1, version_id: 2, version: '1.0.0', release_date: null },
      AT,
    );
    expect(await auditDomainEvent(other, stores.audit)).toBe(0);
    const { entries, total } = await stores.audit.page({}, 1, 10);
    expect(total).toBe(1);
    expect(entries[0]).toMatchObject({ admin: null, source: { kind: 'store_event' } });
  });
});
