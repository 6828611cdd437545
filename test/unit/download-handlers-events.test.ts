import type { DomainEventType } from '../../libs/contracts/index.js';
import type { FakeTransport } from '../../bench/support/fake-transport.js';
import { publishedData } from '../support/fake-services.js';
import { memoryDownloadLog } from '../support/memory-download-log.js';
import { IP, downloads } from '../support/download-handler-harness.js';

/**
 * The download handlers on an in-memory download log, with the update catalog's handlers on
 * in-memory stores, a fake license service and a clock that stands still: the rules of spec 4.5
 * at the handler level. The same rules through the whole system, bytes and all:
 * test/integration/downloads.test.ts.
 */

describe('download.served and download.refused: each entry of the download log, once written', () => {
  /** The data of the events of `type` so far, each checked against its schema. */
  const published = <T extends DomainEventType>(transport: FakeTransport, type: T) =>
    publishedData(transport.domainEvents, type);

  test('a served download publishes download.served with its file and version, at the time of its entry', async () => {
    const { transport, product, release, authorize, log } = downloads([
      { key: 'KEY', product_id: 1, plan_id: 7, activated: ['example.com'] },
    ]);
    const p = await product('activated_identifier');
    await release(p.id);
    await authorize({ product_id: p.id, license_key: 'KEY', identifier: 'example.com' });
    expect(published(transport, 'download.served')).toEqual([
      {
        license_key: 'KEY',
        product_id: p.id,
        identifier: 'example.com',
        ip: IP,
        version: '2.1.0',
        filename: 'plugin.zip',
      },
    ]);
    const [entry] = (await log()).entries;
    expect(transport.domainEventsOf('download.served')[0]?.timestamp).toBe(entry?.at);
    expect(published(transport, 'download.refused')).toEqual([]);
  });

  test('a refused download publishes download.refused with its error code once its batch is written, not before', async () => {
    const store = memoryDownloadLog();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let begin = () => {};
    const begun = new Promise<void>((resolve) => (begin = resolve));
    const recordRefusals = store.recordRefusals.bind(store);
    store.recordRefusals = async (entries) => {
      begin();
      await held;
      return recordRefusals(entries);
    };
    const { transport, product, outcome, log } = downloads([], store);
    const p = await product('license_key');
    expect(await outcome({ product_id: p.id, license_key: 'NONE', identifier: 'a.example' })).toBe(
      'LICENSE_INVALID (403)',
    );
    // The batch's write has begun, and the store has not taken it yet.
    await begun;
    expect(published(transport, 'download.refused')).toEqual([]);
    release();
    await log();
    expect(published(transport, 'download.refused')).toEqual([
      {
        license_key: 'NONE',
        product_id: p.id,
        identifier: 'a.example',
        ip: IP,
        reason: 'LICENSE_INVALID',
      },
    ]);
  });

  test('a refusal the gateway reports publishes download.refused with the request as sent', async () => {
    const { transport, log } = downloads();
    await transport.call('download.logRefusal', {
      entry_id: null,
      product_id: null,
      license_key: 'LIMITED',
      identifier: null,
      ip: IP,
      reason: 'RATE_LIMITED',
    });
    await log();
    expect(published(transport, 'download.refused')).toEqual([
      {
        license_key: 'LIMITED',
        product_id: null,
        identifier: null,
        ip: IP,
        reason: 'RATE_LIMITED',
      },
    ]);
  });

  test('a served download whose bytes did not reach the client publishes download.refused too, once', async () => {
    const { transport, product, release, authorize, clock } = downloads();
    const p = await product('public');
    await release(p.id);
    const { log_id } = await authorize({ product_id: p.id });
    clock.advance(5000);
    const report = {
      entry_id: log_id,
      product_id: p.id,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'RANGE_NOT_SATISFIABLE',
    };
    await transport.call('download.logRefusal', report);
    await transport.call('download.logRefusal', report);
    expect(transport.domainEvents.map((event) => event.type)).toEqual([
      'version.published',
      'download.served',
      'download.refused',
    ]);
    expect(published(transport, 'download.refused')).toEqual([
      {
        license_key: null,
        product_id: p.id,
        identifier: null,
        ip: IP,
        reason: 'RANGE_NOT_SATISFIABLE',
      },
    ]);
    // At the time it became a refusal.
    expect(transport.domainEventsOf('download.refused')[0]?.timestamp).toBe(clock().toISOString());
  });

  test('an entry the log could not write publishes nothing', async () => {
    const store = memoryDownloadLog();
    const { transport, product, release, authorize, outcome, log } = downloads([], store);
    const p = await product('public');
    await release(p.id);
    await authorize({ product_id: p.id });
    store.recordServed = async () => {
      throw new Error('database unreachable');
    };
    store.recordRefusals = async () => {
      throw new Error('database unreachable');
    };
    // The download is still served, and the refusal still answered: the log is best-effort.
    expect((await authorize({ product_id: p.id })).log_id).toBeNull();
    expect(await outcome({ product_id: 987654 })).toBe('NOT_FOUND (404)');
    await log();
    expect(published(transport, 'download.served')).toHaveLength(1);
    expect(published(transport, 'download.refused')).toEqual([]);
  });
});

describe("the overview's daily counts: each entry of the download log, counted on its UTC day", () => {
  const licenses = [{ key: 'KEY', product_id: 1, plan_id: 7, activated: ['here.example'] }];
  const day = (date: string, served: number, refused: number) => ({
    day: date,
    downloads_served: served,
    downloads_refused: refused,
  });

  test('downloads served and refused of a day equal its served and refused entries, per product and of all', async () => {
    const { transport, product, release, outcome, authorize, log, dailyCounts } =
      downloads(licenses);
    const p = await product('activated_identifier');
    const other = await product('public');
    await release(p.id);
    await release(other.id);
    await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'here.example' });
    await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'here.example' });
    await outcome({ product_id: p.id, license_key: 'KEY' });
    await outcome({ product_id: p.id, license_key: 'WRONG' });
    await outcome({ product_id: other.id });
    // A refusal the gateway made itself, of a path with no valid product id: every product's.
    await transport.call('download.logRefusal', {
      entry_id: null,
      product_id: null,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'INVALID_REQUEST',
    });
    // Served, then its bytes never reached the client: refused, as the log shows it.
    const { log_id } = await authorize({ product_id: other.id });
    await transport.call('download.logRefusal', {
      entry_id: log_id,
      product_id: other.id,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'RANGE_NOT_SATISFIABLE',
    });

    expect(await dailyCounts(p.id)).toEqual({ days: [day('2026-03-01', 2, 2)] });
    expect(await dailyCounts(other.id)).toEqual({ days: [day('2026-03-01', 1, 1)] });
    expect(await dailyCounts()).toEqual({ days: [day('2026-03-01', 3, 4)] });
    const entries = (await log({ per_page: 100 })).entries;
    expect(entries.filter((e) => e.outcome === 'served')).toHaveLength(3);
    expect(entries.filter((e) => e.outcome === 'refused')).toHaveLength(4);
  });

  test('days begin at 00:00 UTC; a served download refused after midnight stays on the day it was served', async () => {
    const { transport, clock, product, release, authorize, dailyCounts } = downloads();
    const p = await product('public');
    await release(p.id);
    // The requests of `authorize` come a second after the clock's time: 23:59:59.
    clock.advance(Date.parse('2026-03-01T23:59:58.000Z') - clock().getTime());
    const { log_id } = await authorize({ product_id: p.id });
    await authorize({ product_id: p.id });
    await transport.call('download.logRefusal', {
      entry_id: log_id,
      product_id: p.id,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'INTERNAL_ERROR',
    });
    expect(await dailyCounts(p.id)).toEqual({
      days: [day('2026-03-01', 0, 1), day('2026-03-02', 1, 0)],
    });
  });
});
