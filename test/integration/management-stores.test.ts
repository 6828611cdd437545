import { AUDIT_COLLECTION } from '../../services/management/models.js';
import { openMongoManagementStores } from '../../services/management/mongo-stores.js';
import type {
  AuditRecord,
  ManagementStores,
  ReportedAuditRecord,
  StoredToken,
} from '../../services/management/stores.js';
import { withOwnDatabase } from '../support/databases.js';
import { memoryManagementStores } from '../support/management-memory-stores.js';
import { describeStoreContract, type StoreImplementations } from '../support/store-contract.js';

// Recent: entries older than the retention are removed by the TTL index.
const T0 = new Date(Math.floor(Date.now() / 1000) * 1000);
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

let tokens = 0;
function token(): StoredToken {
  tokens += 1;
  return {
    id: tokens.toString(16).padStart(16, '0'),
    hash: `scrypt$hash-${tokens}`,
    created_at: T0,
    last_used_at: null,
  };
}

function entry(seconds: number, fields: Partial<AuditRecord> = {}): AuditRecord {
  return {
    at: at(seconds),
    admin: { id: 1, name: 'Ada' },
    source: { kind: 'admin' },
    action: 'updateLicense',
    target: 'license:key#0123456789ab',
    before: { status: 'active' },
    after: { status: 'suspended' },
    ...fields,
  };
}

/** A store's change, as the stores service reports it, under its key. */
function reported(seconds: number, key: string): ReportedAuditRecord {
  return {
    ...entry(seconds),
    key,
    admin: null,
    source: {
      kind: 'store_event',
      connection: { id: 3, name: 'Paddle shop', provider: 'paddle' },
      event: { id: 9, event_id: 'evt_1', type: 'transaction.completed', kind: 'order_paid' },
    },
  };
}

const RETENTION_DAYS = 30;

const implementations: StoreImplementations<ManagementStores> = {
  service: 'management',
  openMongo: (connection) => openMongoManagementStores(connection, RETENTION_DAYS),
  inMemory: memoryManagementStores,
};

describeStoreContract('management stores', implementations, (stores) => {
  const create = (name: string, role: 'viewer' | 'support' | 'owner', first = token()) =>
    stores().admins.create({ name, role, created_at: T0, token: first });

  test('admins get ids from 1 with their first token, and are found by any token of theirs', async () => {
    const first = token();
    const ada = await create('Ada', 'owner', first);
    const bob = await create('Bob', 'viewer');
    expect(ada).toEqual({
      id: 1,
      name: 'Ada',
      role: 'owner',
      created_at: T0,
      tokens: [first],
      retiring: false,
    });
    expect(bob.id).toBe(2);
    const second = token();
    await stores().admins.addToken(ada.id, second, 5);
    expect((await stores().admins.findByToken(second.id))?.id).toBe(ada.id);
    expect((await stores().admins.findByToken(first.id))?.id).toBe(ada.id);
    expect(await stores().admins.findByToken('ffffffffffffffff')).toBeNull();
    expect((await stores().admins.list()).map((a) => a.name)).toEqual(['Ada', 'Bob']);
  });

  test('an admin holds at most the limit of tokens', async () => {
    const ada = await create('Ada', 'owner');
    expect(await stores().admins.addToken(ada.id, token(), 2)).not.toBeNull();
    expect(await stores().admins.addToken(ada.id, token(), 2)).toBeNull();
    expect((await stores().admins.find(ada.id))?.tokens).toHaveLength(2);
    expect(await stores().admins.addToken(99, token(), 2)).toBeNull();
  });

  test('a revoked token finds no admin; revoking it again finds nothing', async () => {
    const first = token();
    const ada = await create('Ada', 'owner', first);
    expect(await stores().admins.revokeToken(ada.id, first.id)).toEqual(first);
    expect(await stores().admins.findByToken(first.id)).toBeNull();
    expect(await stores().admins.revokeToken(ada.id, first.id)).toBeNull();
  });

  test('a token of another admin is not revoked through this one', async () => {
    const ada = await create('Ada', 'owner');
    const bobsToken = token();
    await create('Bob', 'viewer', bobsToken);
    expect(await stores().admins.revokeToken(ada.id, bobsToken.id)).toBeNull();
    expect(await stores().admins.findByToken(bobsToken.id)).not.toBeNull();
  });

  test('a use of a token is recorded on it', async () => {
    const first = token();
    const ada = await create('Ada', 'owner', first);
    await stores().admins.touchToken(first.id, at(5));
    expect((await stores().admins.find(ada.id))?.tokens[0]?.last_used_at).toEqual(at(5));
  });

  test('a role is changed only from the role expected', async () => {
    const ada = await create('Ada', 'owner');
    expect(await stores().admins.update(ada.id, { role: 'viewer' }, 'support')).toBeNull();
    expect(await stores().admins.update(ada.id, { role: 'viewer' }, 'owner')).toMatchObject({
      role: 'viewer',
    });
    expect(await stores().admins.update(ada.id, { name: 'Ada L.' })).toMatchObject({
      name: 'Ada L.',
      role: 'viewer',
    });
    expect(await stores().admins.update(99, { name: 'Nobody' })).toBeNull();
  });

  test('a retiring admin counts as no owner, signs in no more, and is removed or kept', async () => {
    const first = token();
    const ada = await create('Ada', 'owner', first);
    await create('Bob', 'owner');
    expect(await stores().admins.countOwners()).toBe(2);
    expect(await stores().admins.retire(ada.id)).toMatchObject({ id: ada.id, retiring: true });
    expect(await stores().admins.retire(ada.id)).toBeNull();
    expect(await stores().admins.countOwners()).toBe(1);
    expect(await stores().admins.findByToken(first.id)).toBeNull();
    expect(await stores().admins.find(ada.id)).toBeNull();
    await stores().admins.keep(ada.id);
    expect(await stores().admins.countOwners()).toBe(2);
    await stores().admins.retire(ada.id);
    await stores().admins.remove(ada.id);
    await stores().admins.keep(ada.id);
    expect(await stores().admins.find(ada.id)).toBeNull();
    expect(await stores().admins.countOwners()).toBe(1);
  });

  test('the audit log is read newest first, a page at a time, with the total', async () => {
    for (const seconds of [1, 3, 2]) await stores().audit.record(entry(seconds));
    const { entries, total } = await stores().audit.page({}, 1, 2);
    expect(total).toBe(3);
    expect(entries.map((e) => e.at)).toEqual([at(3), at(2)]);
    expect(entries[0]).toEqual({ ...entry(3), id: expect.any(String) });
    expect((await stores().audit.page({}, 2, 2)).entries.map((e) => e.at)).toEqual([at(1)]);
  });

  test('entries of the same moment come newest written first', async () => {
    await stores().audit.record(entry(1, { action: 'first' }));
    await stores().audit.record(entry(1, { action: 'second' }));
    const { entries } = await stores().audit.page({}, 1, 10);
    expect(entries.map((e) => e.action)).toEqual(['second', 'first']);
  });

  test('the filter narrows by admin, action, target or its kind, and time', async () => {
    await stores().audit.record(entry(1, { admin: { id: 0, name: 'Bootstrap' } }));
    await stores().audit.record(entry(2, { action: 'updateProduct', target: 'product:12' }));
    await stores().audit.record(entry(3, { action: 'updateProduct', target: 'product:123' }));
    await stores().audit.record(entry(4, { action: 'updatePlan', target: 'plan:1' }));
    const actions = async (filter: Parameters<ManagementStores['audit']['page']>[0]) =>
      (await stores().audit.page(filter, 1, 10)).entries.map((e) => e.at.getTime() - T0.getTime());
    expect(await actions({ admin: 0 })).toEqual([1000]);
    expect(await actions({ action: 'updateProduct' })).toEqual([3000, 2000]);
    expect(await actions({ target: 'product:12' })).toEqual([2000]);
    expect(await actions({ target: 'product' })).toEqual([3000, 2000]);
    expect(await actions({ target: 'prod' })).toEqual([]);
    expect(await actions({ target: 'product.*' })).toEqual([]);
    expect(await actions({ from: at(2), to: at(4) })).toEqual([3000, 2000]);
    expect(await actions({ admin: 1, action: 'updatePlan', to: at(4) })).toEqual([]);
  });

  test('a reported entry is written once by its key, however often and at once it is reported', async () => {
    expect(await stores().audit.recordOnce([reported(1, 'e1:0'), reported(1, 'e1:1')])).toBe(2);
    expect(await stores().audit.recordOnce([reported(1, 'e1:0'), reported(2, 'e2:0')])).toBe(1);
    const twice = [reported(3, 'e3:0'), reported(3, 'e3:0')];
    await Promise.all([stores().audit.recordOnce(twice), stores().audit.recordOnce(twice)]);
    const { entries, total } = await stores().audit.page({}, 1, 10);
    expect(total).toBe(4);
    const { key: _key, ...written } = reported(3, 'e3:0');
    expect(entries[0]).toEqual({ ...written, id: expect.any(String) });
  });

  test('the filter narrows by source; a store entry has no admin', async () => {
    await stores().audit.record(entry(1));
    await stores().audit.recordOnce([reported(2, 'e:0')]);
    const grace = reported(3, 'g:0');
    await stores().audit.recordOnce([
      {
        ...grace,
        source: { kind: 'store_grace', connection: { id: 3, name: 'P', provider: 'paddle' } },
      },
    ]);
    const times = async (filter: Parameters<ManagementStores['audit']['page']>[0]) =>
      (await stores().audit.page(filter, 1, 10)).entries.map((e) => e.at.getTime() - T0.getTime());
    expect(await times({ source: 'admin' })).toEqual([1000]);
    expect(await times({ source: 'store_event' })).toEqual([2000]);
    expect(await times({ source: 'store_grace' })).toEqual([3000]);
    expect(await times({ admin: 1 })).toEqual([1000]);
  });

  test('every matching entry is read in turn for an export, newest first', async () => {
    for (const seconds of [1, 2, 3]) await stores().audit.record(entry(seconds));
    await stores().audit.record(entry(4, { action: 'updatePlan' }));
    const read: Date[] = [];
    for await (const e of stores().audit.each({ action: 'updateLicense' })) read.push(e.at);
    expect(read).toEqual([at(3), at(2), at(1)]);
  });

  test('before and after keep nested fields and nulls as written', async () => {
    const nested = { before: null, after: { tags: ['a', 'b'], limit: { max: 3, none: null } } };
    await stores().audit.record(entry(1, nested));
    const [stored] = (await stores().audit.page({}, 1, 1)).entries;
    expect(stored).toMatchObject(nested);
  });
});

test('the audit log keeps entries AUDIT_RETENTION_DAYS: a TTL index on their time', () =>
  withOwnDatabase('management', async (db) => {
    await openMongoManagementStores(db, 365);
    const ttl = (await db.collection(AUDIT_COLLECTION).indexes()).find(
      (index) => index.expireAfterSeconds !== undefined,
    );
    expect(ttl).toMatchObject({ key: { at: 1 }, expireAfterSeconds: 365 * 86_400 });
  }));

test("an entry written before sources were kept reads as an admin's, and is found by source", () =>
  withOwnDatabase('management', async (db) => {
    const stores = await openMongoManagementStores(db, 365);
    const { source: _source, ...old } = entry(1);
    await db.collection(AUDIT_COLLECTION).insertOne(old);
    const { entries } = await stores.audit.page({ source: 'admin' }, 1, 10);
    expect(entries).toEqual([{ ...entry(1), id: expect.any(String) }]);
    expect((await stores.audit.page({ source: 'store_event' }, 1, 10)).total).toBe(0);
  }));
