import type { RefusedLicenseStatus } from '../../libs/contracts/index.js';
import { openMongoDownloadLog } from '../../services/download/download-log/mongo-stores.js';
import type { ListCursor } from '../../libs/contracts/index.js';
import {
  LATEST_FIRST,
  type DownloadLogRecord,
  type DownloadLogStore,
  type DownloadRequestRecord,
} from '../../services/download/download-log/stores.js';
import { memoryDownloadLog } from '../support/memory-download-log.js';
import { describeStoreContract, type StoreImplementations } from '../support/store-contract.js';

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 9, minute));

const request = (fields: Partial<DownloadRequestRecord> = {}): DownloadRequestRecord => ({
  at: at(0),
  product_id: 12,
  license_key: 'KEY',
  identifier: 'example.com',
  ip: '203.0.113.5',
  ...fields,
});

/** Every entry, newest first, as the admin log lists it by default. */
const ALL = { product_id: null, refused: null, from: null, to: null, order: LATEST_FIRST };
const everything = { ...ALL, page: 1, per_page: 50 };

const implementations: StoreImplementations<DownloadLogStore> = {
  service: 'download',
  openMongo: openMongoDownloadLog,
  inMemory: memoryDownloadLog,
};

describeStoreContract('the download log store', implementations, (log) => {
  /** One refusal recorded alone; its id. */
  const refuse = async (
    entry: DownloadRequestRecord & { reason: string; license_status?: RefusedLicenseStatus },
  ) => (await log().recordRefusals([{ license_status: null, ...entry }]))[0]!;

  test("a served download and refused ones are recorded with everything the admin log shows, a refusal's license status included", async () => {
    const served = await log().recordServed({ ...request(), file_id: 3, version: '1.2.0' });
    const refused = await refuse({
      ...request({ at: at(1), product_id: null, license_key: null, identifier: null }),
      reason: 'INVALID_REQUEST',
    });
    const revoked = await refuse({
      ...request({ at: at(2) }),
      reason: 'LICENSE_INVALID',
      license_status: 'revoked',
    });
    expect(served).toMatch(/^[0-9a-f]{24}$/);
    expect(refused).toMatch(/^[0-9a-f]{24}$/);
    expect(refused > served).toBe(true);
    expect(await log().list(everything)).toEqual({
      total: 3,
      entries: [
        {
          id: revoked,
          ...request({ at: at(2) }),
          outcome: 'refused',
          reason: 'LICENSE_INVALID',
          license_status: 'revoked',
          file_id: null,
          version: null,
        },
        {
          id: refused,
          at: at(1),
          product_id: null,
          license_key: null,
          identifier: null,
          ip: '203.0.113.5',
          outcome: 'refused',
          reason: 'INVALID_REQUEST',
          license_status: null,
          file_id: null,
          version: null,
        },
        {
          id: served,
          ...request(),
          outcome: 'served',
          reason: null,
          license_status: null,
          file_id: 3,
          version: '1.2.0',
        },
      ],
    });
  });

  test('entries are listed newest first; entries of the same moment, the later recorded first', async () => {
    const first = await refuse({ ...request({ at: at(5) }), reason: 'A' });
    const second = await refuse({ ...request({ at: at(5) }), reason: 'B' });
    const older = await refuse({ ...request({ at: at(1) }), reason: 'C' });
    const newer = await refuse({ ...request({ at: at(9) }), reason: 'D' });
    expect((await log().list(everything)).entries.map((e) => e.id)).toEqual([
      newer,
      second,
      first,
      older,
    ]);
  });

  test('filters by product and by outcome, with one page and the total of all that match', async () => {
    for (let minute = 0; minute < 5; minute++) {
      await log().recordServed({ ...request({ at: at(minute) }), file_id: minute, version: '1' });
      await refuse({
        ...request({ at: at(minute), product_id: 13 }),
        reason: `R${minute}`,
      });
    }
    const refused = await log().list({ ...ALL, refused: true, page: 2, per_page: 2 });
    expect(refused.total).toBe(5);
    expect(refused.entries.map((e) => e.reason)).toEqual(['R2', 'R1']);
    const served = await log().list({
      ...ALL,
      product_id: 12,
      refused: false,
      page: 3,
      per_page: 2,
    });
    expect(served.total).toBe(5);
    expect(served.entries.map((e) => e.file_id)).toEqual([0]);
    expect(
      await log().list({ ...ALL, product_id: 12, refused: true, page: 1, per_page: 10 }),
    ).toEqual({
      entries: [],
      total: 0,
    });
    expect((await log().list({ ...everything, page: 9, per_page: 2 })).entries).toEqual([]);
  });

  test('a date range holds the entries from its start, included, to its end, excluded', async () => {
    const ids = await log().recordRefusals(
      [0, 1, 2, 3].map((minute) => ({
        ...request({ at: at(minute) }),
        reason: `R${minute}`,
        license_status: null,
      })),
    );
    const range = await log().list({ ...everything, from: at(1), to: at(3) });
    expect(range).toEqual({ entries: expect.any(Array), total: 2 });
    expect(range.entries.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    expect((await log().list({ ...everything, from: at(3) })).entries.map((e) => e.id)).toEqual([
      ids[3],
    ]);
    expect((await log().list({ ...everything, to: at(1) })).entries.map((e) => e.id)).toEqual([
      ids[0],
    ]);
  });

  test('ordered by time or by license key, either way; entries without a key first when ascending; ties by id', async () => {
    const [a, b, c, d] = await log().recordRefusals([
      { ...request({ at: at(3), license_key: 'B-KEY' }), reason: 'R', license_status: null },
      { ...request({ at: at(1), license_key: null }), reason: 'R', license_status: null },
      { ...request({ at: at(2), license_key: 'A-KEY' }), reason: 'R', license_status: null },
      { ...request({ at: at(1), license_key: 'B-KEY' }), reason: 'R', license_status: null },
    ]);
    const order = async (field: 'at' | 'license_key', descending: boolean) =>
      (await log().list({ ...everything, order: { field, descending } })).entries.map((e) => e.id);
    expect(await order('at', false)).toEqual([b, d, c, a]);
    expect(await order('at', true)).toEqual([a, c, d, b]);
    expect(await order('license_key', false)).toEqual([b, c, a, d]);
    expect(await order('license_key', true)).toEqual([d, a, c, b]);
  });

  test('read in batches, the log comes whole in the order of a list, each entry once, within the filters', async () => {
    await log().recordRefusals(
      [4, 1, 3, 1, 0, 2, 2].map((minute, i) => ({
        ...request({ at: at(minute), license_key: i % 3 === 0 ? null : `K${i % 2}` }),
        reason: 'R',
        license_status: null,
      })),
    );
    for (const field of ['at', 'license_key'] as const) {
      for (const descending of [false, true]) {
        for (const filters of [{}, { from: at(1), to: at(4) }]) {
          const order = { field, descending };
          const listed = (await log().list({ ...everything, ...filters, order })).entries;
          for (const limit of [1, 3, 7]) {
            const ids: string[] = [];
            let after: ListCursor | null = null;
            for (let round = 0; round < 10; round++) {
              const batch: { entries: DownloadLogRecord[]; next: ListCursor | null } =
                await log().scan({ ...ALL, ...filters, order, after, limit });
              expect(batch.entries.length).toBeLessThanOrEqual(limit);
              ids.push(...batch.entries.map((e) => e.id));
              if (batch.next === null) break;
              after = batch.next;
            }
            expect({ field, descending, limit, ids }).toEqual({
              field,
              descending,
              limit,
              ids: listed.map((e) => e.id),
            });
          }
        }
      }
    }
  });

  test('refusals recorded together are kept as separate entries, ids growing in their order', async () => {
    const ids = await log().recordRefusals([
      { ...request({ at: at(1) }), reason: 'A', license_status: null },
      { ...request({ at: at(1), product_id: null }), reason: 'B', license_status: null },
      { ...request({ at: at(2) }), reason: 'C', license_status: null },
    ]);
    expect(ids).toHaveLength(3);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
    expect(
      (await log().list(everything)).entries.map((e) => [e.id, e.reason, e.product_id]),
    ).toEqual([
      [ids[2], 'C', 12],
      [ids[1], 'B', null],
      [ids[0], 'A', 12],
    ]);
    expect(await log().recordRefusals([])).toEqual([]);
  });

  test('a served entry becomes a refusal with the reason, keeping file and version; only once', async () => {
    const served = await log().recordServed({ ...request(), file_id: 3, version: '1.2.0' });
    const refused = await refuse({ ...request(), reason: 'LICENSE_EXPIRED' });
    expect(await log().markServedAsRefused({ id: served, reason: 'NOT_FOUND' })).toEqual(
      expect.objectContaining({
        id: served,
        outcome: 'refused',
        reason: 'NOT_FOUND',
        license_key: request().license_key,
        file_id: 3,
        version: '1.2.0',
      }),
    );
    expect(await log().markServedAsRefused({ id: served, reason: 'INTERNAL_ERROR' })).toBeNull();
    expect(await log().markServedAsRefused({ id: refused, reason: 'INTERNAL_ERROR' })).toBeNull();
    expect((await log().list(everything)).entries).toEqual([
      expect.objectContaining({ id: refused, reason: 'LICENSE_EXPIRED' }),
      expect.objectContaining({
        id: served,
        outcome: 'refused',
        reason: 'NOT_FOUND',
        file_id: 3,
        version: '1.2.0',
      }),
    ]);
  });

  test('an entry id is read in either letter case; an unknown or malformed one changes nothing', async () => {
    const served = await log().recordServed({ ...request(), file_id: 3, version: '1.2.0' });
    for (const id of ['0123456789abcdef01234567', 'not-an-id', '', `${served}0`]) {
      expect(await log().markServedAsRefused({ id, reason: 'NOT_FOUND' })).toBeNull();
    }
    expect(
      await log().markServedAsRefused({ id: served.toUpperCase(), reason: 'NOT_FOUND' }),
    ).toMatchObject({ id: served, outcome: 'refused' });
  });

  test('entries are copies: changing one changes nothing stored', async () => {
    await log().recordServed({ ...request(), file_id: 3, version: '1.2.0' });
    const [entry] = (await log().list(everything)).entries;
    entry!.at.setUTCFullYear(1999);
    entry!.reason = 'CHANGED';
    expect((await log().list(everything)).entries[0]).toMatchObject({ at: at(0), reason: null });
  });
});
