import type { MethodName } from '../../libs/contracts/index.js';
import { callContext } from '../../bench/support/fake-transport.js';
import { memoryDownloadLog } from '../support/memory-download-log.js';
import { BASE_URL, IP, downloads } from '../support/download-handler-harness.js';

/**
 * The download handlers on an in-memory download log, with the update catalog's handlers on
 * in-memory stores, a fake license service and a clock that stands still: the rules of spec 4.5
 * at the handler level. The same rules through the whole system, bytes and all:
 * test/integration/downloads.test.ts.
 */

describe('spec 4.5: refusals are listed under Refused Downloads in the Download Log, with their reason', () => {
  test('a refused download is answered without waiting for its entry, which a read of the log then finds', async () => {
    const store = memoryDownloadLog();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const writes: Array<Array<string | null>> = [];
    const recordRefusals = store.recordRefusals.bind(store);
    store.recordRefusals = async (entries) => {
      await held;
      writes.push(entries.map((entry) => entry.license_key));
      return recordRefusals(entries);
    };
    const { product, outcome, log, transport } = downloads([], store);
    const p = await product('license_key');
    expect(await outcome({ product_id: p.id })).toBe('LICENSE_INVALID (403)');
    expect(await outcome({ product_id: p.id, license_key: 'NONE' })).toBe('LICENSE_INVALID (403)');
    // A refusal of the gateway itself, reported: taken for the log without waiting either.
    expect(
      await transport.call('download.logRefusal', {
        entry_id: null,
        product_id: p.id,
        license_key: 'LIMITED',
        identifier: null,
        ip: IP,
        reason: 'RATE_LIMITED',
      }),
    ).toEqual({ logged: true });
    expect(writes).toEqual([]);
    release();
    const entries = (await log({ product_id: p.id, refused: true })).entries;
    expect(entries.map((e) => [e.license_key, e.reason])).toEqual([
      ['LIMITED', 'RATE_LIMITED'],
      ['NONE', 'LICENSE_INVALID'],
      [null, 'LICENSE_INVALID'],
    ]);
    // All in one write.
    expect(writes).toEqual([[null, 'NONE', 'LIMITED']]);
  });

  test('every refusal is logged with its error code, served downloads too, newest first', async () => {
    const { product, release, outcome, log } = downloads([
      { key: 'KEY', product_id: 1, plan_id: 7, activated: ['here.example'] },
    ]);
    const p = await product('activated_identifier');
    const { version, file } = await release(p.id);
    await outcome({ product_id: p.id, license_key: 'WRONG' });
    await outcome({ product_id: p.id, license_key: 'KEY' });
    await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'nowhere.example' });
    await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'here.example' });
    await outcome({ product_id: 987654, license_key: 'KEY' });

    const all = await log({ product_id: p.id });
    expect(all.total).toBe(4);
    expect(all.entries.map((e) => [e.outcome, e.reason])).toEqual([
      ['served', null],
      ['refused', 'ACTIVATION_NOT_FOUND'],
      ['refused', 'ACTIVATION_REQUIRED'],
      ['refused', 'LICENSE_INVALID'],
    ]);
    expect(all.entries[0]).toEqual({
      id: expect.any(String),
      // The fourth request; requests come a second apart.
      at: '2026-03-01T09:00:04.000Z',
      product_id: p.id,
      license_key: 'KEY',
      identifier: 'here.example',
      ip: IP,
      outcome: 'served',
      reason: null,
      license_status: null,
      file_id: file.id,
      version: version.version,
    });
    expect(all.entries[3]).toMatchObject({ license_key: 'WRONG', file_id: null, version: null });

    expect((await log({ product_id: p.id, refused: true })).entries.map((e) => e.reason)).toEqual([
      'ACTIVATION_NOT_FOUND',
      'ACTIVATION_REQUIRED',
      'LICENSE_INVALID',
    ]);
    expect((await log({ product_id: p.id, refused: false })).total).toBe(1);
    expect(await log({ product_id: p.id, per_page: 3, page: 2 })).toMatchObject({
      page: 2,
      per_page: 3,
      total: 4,
      entries: [expect.objectContaining({ reason: 'LICENSE_INVALID' })],
    });
    expect((await log({ refused: true })).entries[0]).toMatchObject({
      product_id: 987654,
      reason: 'NOT_FOUND',
    });
  });

  test("a refusal keeps the license's status, invalid for an unknown key, so a revoked license is told from an unknown key", async () => {
    const { product, release, outcome, log } = downloads([
      { key: 'REVOKED', product_id: 1, plan_id: 7, status: 'revoked' },
      { key: 'LAPSED', product_id: 1, plan_id: 7, status: 'expired' },
    ]);
    const p = await product('license_key');
    await release(p.id);
    await outcome({ product_id: p.id });
    await outcome({ product_id: p.id, license_key: 'UNKNOWN' });
    await outcome({ product_id: p.id, license_key: 'REVOKED' });
    await outcome({ product_id: p.id, license_key: 'LAPSED' });
    const entries = (await log({ product_id: p.id, refused: true })).entries;
    expect(entries.map((e) => [e.license_key, e.reason, e.license_status])).toEqual([
      ['LAPSED', 'LICENSE_EXPIRED', 'expired'],
      ['REVOKED', 'LICENSE_INVALID', 'revoked'],
      ['UNKNOWN', 'LICENSE_INVALID', 'invalid'],
      [null, 'LICENSE_INVALID', null],
    ]);
  });

  test('a served download whose bytes did not reach the client becomes a refusal with that code, once', async () => {
    const { transport, product, release, authorize, log } = downloads();
    const p = await product('public');
    const { file } = await release(p.id);
    const { log_id } = await authorize({ product_id: p.id });
    const report = {
      entry_id: log_id,
      product_id: p.id,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'RANGE_NOT_SATISFIABLE',
    };
    expect(await transport.call('download.logRefusal', report)).toEqual({ logged: true });
    expect(await transport.call('download.logRefusal', report)).toEqual({ logged: false });
    expect((await log()).entries).toEqual([
      expect.objectContaining({
        id: log_id,
        outcome: 'refused',
        reason: 'RANGE_NOT_SATISFIABLE',
        file_id: file.id,
        version: '2.1.0',
      }),
    ]);
  });

  test('refusals of the gateway itself are logged as sent; an empty value is none', async () => {
    const { transport, log } = downloads();
    const logged = await transport.call('download.logRefusal', {
      entry_id: null,
      product_id: null,
      license_key: ' ',
      identifier: '',
      ip: IP,
      reason: 'RATE_LIMITED',
    });
    expect(logged).toEqual({ logged: true });
    expect((await log({ refused: true })).entries).toEqual([
      expect.objectContaining({
        product_id: null,
        license_key: ' ',
        identifier: null,
        reason: 'RATE_LIMITED',
      }),
    ]);
  });
});

describe('package objects', () => {
  test('an upload link names a new object key under packages/ and is good for that key only', async () => {
    const { transport, tickets } = downloads();
    const prepared = await transport.call('download.prepareUpload', {
      filename: '../Plügin 2.zip',
    });
    expect(prepared.object_key).toMatch(/^packages\/[0-9a-f-]{36}\/Plu_gin_2\.zip$/);
    const ticket = prepared.upload_url.slice(`${BASE_URL}/uploads/`.length);
    expect(tickets.verify(ticket, 'upload')).toMatchObject({ key: prepared.object_key });
  });

  test('deleting an object removes it from storage', async () => {
    const { transport, removed } = downloads();
    expect(
      await transport.call('download.deleteObject', { object_key: 'packages/x/a.zip' }),
    ).toEqual({ object_key: 'packages/x/a.zip', deleted: true });
    expect(removed).toEqual(['packages/x/a.zip']);
  });
});

describe('RPC deadlines: a call whose caller stopped waiting writes nothing', () => {
  test('no log entry, no upload link, no removal', async () => {
    const { clock, handlers, removed, product, release, log } = downloads();
    const p = await product('public');
    await release(p.id);
    const gone = (method: MethodName) =>
      callContext({ method, clock, deadline: clock().getTime() - 1 });
    for (const late of [
      () =>
        handlers['download.authorize'](
          {
            product_id: p.id,
            license_key: null,
            identifier: null,
            ip: IP,
            delivery: 'relay',
            method: 'GET',
            channel: 'stable',
            file: null,
          },
          gone('download.authorize'),
        ),
      () =>
        handlers['download.authorize'](
          {
            product_id: 987654,
            license_key: null,
            identifier: null,
            ip: IP,
            delivery: 'relay',
            method: 'GET',
            channel: 'stable',
            file: null,
          },
          gone('download.authorize'),
        ),
      () =>
        handlers['download.logRefusal'](
          {
            entry_id: null,
            product_id: p.id,
            license_key: null,
            identifier: null,
            ip: IP,
            reason: 'RATE_LIMITED',
          },
          gone('download.logRefusal'),
        ),
      () =>
        handlers['download.prepareUpload']({ filename: 'a.zip' }, gone('download.prepareUpload')),
      () =>
        handlers['download.deleteObject'](
          { object_key: 'packages/x/a.zip' },
          gone('download.deleteObject'),
        ),
    ]) {
      await expect(late()).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    }
    expect(await log()).toMatchObject({ entries: [], total: 0 });
    expect(removed).toEqual([]);
  });
});
