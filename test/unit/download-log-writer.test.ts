import { createLogger, type Logger } from '../../libs/logging/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import { publishedDownloadEvents } from '../../services/download/events.js';
import { DownloadLogWriter, REFUSALS_BATCH_MAX } from '../../services/download/download-log/log.js';
import {
  LATEST_FIRST,
  type DownloadLogStore,
} from '../../services/download/download-log/stores.js';
import { callContext, FakeTransport } from '../../bench/support/fake-transport.js';
import { fixedClock } from '../support/fake-services.js';
import { memoryDownloadLog } from '../support/memory-download-log.js';

/**
 * How the download service writes refusals to its log (docs/performance.md, Download log): in
 * batches, never holding up an answer, all of them written by a stop.
 */

const request = (n: number) => ({
  product_id: 12,
  license_key: `KEY-${n}`,
  identifier: null,
  ip: '203.0.113.5',
});

/** A memory log that counts its writes of refusals. */
function countedStore(): DownloadLogStore & { writes: number[] } {
  const store = memoryDownloadLog();
  const writes: number[] = [];
  const recordRefusals = store.recordRefusals.bind(store);
  return Object.assign(store, {
    writes,
    recordRefusals: (entries: Parameters<DownloadLogStore['recordRefusals']>[0]) => {
      writes.push(entries.length);
      return recordRefusals(entries);
    },
  });
}

const everything = {
  product_id: null,
  refused: true,
  from: null,
  to: null,
  order: LATEST_FIRST,
  page: 1,
  per_page: 500,
};
const silent = createLogger('test', 'silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A writer on `store` whose events are published as the service publishes them, on a transport
 * that records them (`transport.domainEvents`).
 */
function writerOn(
  store: DownloadLogStore,
  options: { batchMs: number; logger?: Logger; clock?: () => Date },
) {
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger ?? silent;
  const transport = new FakeTransport(clock);
  const events = publishedDownloadEvents(domainEventPublisher(transport, logger), logger);
  const writer = new DownloadLogWriter({ store, events, logger, batchMs: options.batchMs, clock });
  return Object.assign(writer, { transport });
}

describe('the download log writer: refusals are written in batches', () => {
  test('the refusals of a burst are written in one write, within DOWNLOAD_LOG_BATCH_MS', async () => {
    const store = countedStore();
    const writer = writerOn(store, { batchMs: 30 });
    const written = Array.from({ length: 5 }, (_, n) =>
      writer.refused({ request: request(n), reason: 'LICENSE_EXPIRED' }),
    );
    expect(store.writes).toEqual([]);
    await sleep(5);
    expect(store.writes).toEqual([]);
    expect(await Promise.all(written)).toEqual([true, true, true, true, true]);
    expect(store.writes).toEqual([5]);
    const { entries } = await store.list(everything);
    expect(entries.map((e) => e.license_key)).toEqual([
      'KEY-4',
      'KEY-3',
      'KEY-2',
      'KEY-1',
      'KEY-0',
    ]);
  });

  test(`${REFUSALS_BATCH_MAX} refusals waiting are written at once`, async () => {
    const store = countedStore();
    const writer = writerOn(store, { batchMs: 10_000 });
    const full = Array.from({ length: REFUSALS_BATCH_MAX }, (_, n) =>
      writer.refused({ request: request(n), reason: 'RATE_LIMITED' }),
    );
    expect(store.writes).toEqual([REFUSALS_BATCH_MAX]);
    await Promise.all(full);
    const next = writer.refused({ request: request(0), reason: 'RATE_LIMITED' });
    expect(store.writes).toEqual([REFUSALS_BATCH_MAX]);
    await writer.flush();
    expect(await next).toBe(true);
    expect(store.writes).toEqual([REFUSALS_BATCH_MAX, 1]);
  });

  test('DOWNLOAD_LOG_BATCH_MS=0 writes each refusal at once', async () => {
    const store = countedStore();
    const writer = writerOn(store, { batchMs: 0 });
    const first = writer.refused({ request: request(1), reason: 'NOT_FOUND' });
    const second = writer.refused({ request: request(2), reason: 'NOT_FOUND' });
    expect(store.writes).toEqual([1, 1]);
    expect([await first, await second]).toEqual([true, true]);
  });

  test('flush writes the refusals waiting and waits for the writes under way', async () => {
    const store = countedStore();
    let finish = () => {};
    const slow = new Promise<void>((resolve) => (finish = resolve));
    const recordRefusals = store.recordRefusals;
    store.recordRefusals = async (entries) => {
      const ids = await recordRefusals(entries);
      await slow;
      return ids;
    };
    const writer = writerOn(store, { batchMs: 10_000 });
    void writer.refused({ request: request(1), reason: 'LICENSE_EXPIRED' });
    let flushed = false;
    const flushing = writer.flush().then(() => (flushed = true));
    expect(store.writes).toEqual([1]);
    await sleep(5);
    expect(flushed).toBe(false);
    finish();
    await flushing;
    expect((await store.list(everything)).total).toBe(1);
  });

  test('once closed (a stop), the refusals waiting are written, and a later one at once', async () => {
    const store = countedStore();
    const writer = writerOn(store, { batchMs: 10_000 });
    void writer.refused({ request: request(1), reason: 'LICENSE_EXPIRED' });
    await writer.close();
    expect(store.writes).toEqual([1]);
    const late = writer.refused({ request: request(2), reason: 'LICENSE_EXPIRED' });
    expect(store.writes).toEqual([1, 1]);
    expect(await late).toBe(true);
  });

  test('a failed write is reported once as an error; its refusals say not written; nothing throws', async () => {
    const store = countedStore();
    store.recordRefusals = async () => {
      throw new Error('database unreachable');
    };
    const errors: unknown[] = [];
    const logger = { ...silent, error: (...args: unknown[]) => errors.push(args) } as Logger;
    const writer = writerOn(store, { batchMs: 10_000, logger });
    const written = [1, 2, 3].map((n) => writer.refused({ request: request(n), reason: 'X' }));
    await writer.flush();
    expect(await Promise.all(written)).toEqual([false, false, false]);
    expect(errors).toHaveLength(1);
  });

  test('a call whose caller has given up gets its deadline error, and nothing is kept', async () => {
    const store = countedStore();
    const writer = writerOn(store, { batchMs: 0 });
    const clock = fixedClock('2026-03-01T09:00:00.000Z');
    const gone = callContext({
      method: 'download.authorize',
      clock,
      deadline: clock().getTime() - 1,
    });
    expect(() =>
      writer.refused({ request: request(1), reason: 'LICENSE_EXPIRED', context: gone }),
    ).toThrow();
    await writer.flush();
    expect(store.writes).toEqual([]);
  });
});

describe('the download log writer: each entry, once written, is a domain event', () => {
  test('the refusals of a batch publish download.refused once it is written; a failed write publishes none', async () => {
    const store = countedStore();
    const writer = writerOn(store, { batchMs: 10_000 });
    const first = [1, 2].map((n) => writer.refused({ request: request(n), reason: 'NOT_FOUND' }));
    expect(writer.transport.domainEvents).toEqual([]);
    await writer.flush();
    expect(await Promise.all(first)).toEqual([true, true]);
    const recordRefusals = store.recordRefusals;
    store.recordRefusals = async () => {
      throw new Error('database unreachable');
    };
    const lost = writer.refused({ request: request(3), reason: 'NOT_FOUND' });
    await writer.flush();
    expect(await lost).toBe(false);
    store.recordRefusals = recordRefusals;
    expect(
      writer.transport.domainEventsOf('download.refused').map((event) => event.data.license_key),
    ).toEqual(['KEY-1', 'KEY-2']);
  });

  test('a refusal whose reason is no error code is written, but not published as one', async () => {
    const store = countedStore();
    const warnings: unknown[] = [];
    const logger = { ...silent, warn: (...args: unknown[]) => warnings.push(args) } as Logger;
    const writer = writerOn(store, { batchMs: 0, logger });
    await writer.refused({ request: request(1), reason: 'NOT_A_CODE' });
    await writer.refused({ request: request(2), reason: 'RATE_LIMITED' });
    expect((await store.list(everything)).total).toBe(2);
    expect(
      writer.transport.domainEventsOf('download.refused').map((event) => event.data.reason),
    ).toEqual(['RATE_LIMITED']);
    expect(warnings).toHaveLength(1);
  });
});
