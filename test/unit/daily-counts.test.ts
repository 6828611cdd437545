import { jest } from '@jest/globals';
import {
  DailyCounter,
  DailyTally,
  addDays,
  everyDay,
  utcDay,
} from '../../libs/daily-counts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { overviewRange, overviewView } from '../../services/management/overview/overview.js';
import { contractMetrics, describeDailyCountStore } from '../support/daily-count-store-contract.js';
import {
  DAY,
  FUTURE,
  PAST,
  service,
  waiting,
  waitingCall,
} from '../support/license-handler-harness.js';
import { memoryDailyCountStore } from '../support/memory-daily-counts.js';

/**
 * The daily counts of the admin overview (docs/architecture.md, "Daily counts"): the days they
 * are kept by, how a process holds and writes them, what the license service counts, and how
 * the management API puts the overview together. The downloads' counts: the download handler
 * tests; the whole system, through the gateway: test/integration/overview.test.ts.
 */

const silent = createLogger('test', 'silent');

describeDailyCountStore('in memory', async () => ({
  store: memoryDailyCountStore(contractMetrics),
  close: async () => {},
}));

describe('days are UTC calendar days', () => {
  test('a day begins at 00:00 UTC, whatever the time zone of the process', () => {
    expect(utcDay(new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01');
    expect(utcDay(new Date('2026-03-02T00:00:00.000Z'))).toBe('2026-03-02');
    expect(utcDay(new Date('2026-03-02T01:30:00.000+02:00'))).toBe('2026-03-01');
  });

  test('days are counted across months, years and leap days', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2027-01-01', -1)).toBe('2026-12-31');
  });

  test('every day of a range is given, each metric 0 where none was found', () => {
    expect(
      everyDay({ from: '2026-02-27', to: '2026-03-01' }, contractMetrics, [
        { day: '2026-02-28', served: 3, refused: 1 },
      ]),
    ).toEqual([
      { day: '2026-02-27', served: 0, refused: 0 },
      { day: '2026-02-28', served: 3, refused: 1 },
      { day: '2026-03-01', served: 0, refused: 0 },
    ]);
  });
});

describe('a tally holds one increment per day and product, however many counts', () => {
  test('counts of one day and product add up; another day or product is another increment', () => {
    const tally = new DailyTally<'served' | 'refused'>();
    for (let i = 0; i < 1000; i++) tally.add('served', 1, new Date('2026-03-01T10:00:00Z'));
    tally.add('refused', 1, new Date('2026-03-01T23:59:59Z'));
    tally.add('served', 1, new Date('2026-03-02T00:00:00Z'));
    tally.add('served', 2, new Date('2026-03-01T10:00:00Z'));
    tally.add('refused', null, new Date('2026-03-01T10:00:00Z'));
    expect(tally.take()).toEqual([
      { day: '2026-03-01', product_id: 1, counts: { served: 1000, refused: 1 } },
      { day: '2026-03-02', product_id: 1, counts: { served: 1 } },
      { day: '2026-03-01', product_id: 2, counts: { served: 1 } },
      { day: '2026-03-01', product_id: null, counts: { refused: 1 } },
    ]);
    expect(tally.empty).toBe(true);
    expect(tally.take()).toEqual([]);
  });

  test('a count taken back cancels it: nothing is left to write', () => {
    const tally = new DailyTally<'served'>();
    tally.add('served', 1, new Date('2026-03-01T10:00:00Z'));
    tally.add('served', 1, new Date('2026-03-01T11:00:00Z'), -1);
    expect(tally.empty).toBe(true);
  });
});

describe('a process counts in memory and writes every second', () => {
  const at = new Date('2026-03-01T10:00:00Z');
  const range = { from: '2026-03-01', to: '2026-03-01', productId: null };

  test('counting writes nothing; a write is one add of one increment per day and product', async () => {
    const store = memoryDailyCountStore(contractMetrics);
    const counter = new DailyCounter({ store, logger: silent });
    for (let i = 0; i < 500; i++) counter.count('served', 1 + (i % 2), at);
    expect(store.adds).toBe(0);
    await counter.flush();
    expect(store.adds).toBe(1);
    await expect(store.totals(range)).resolves.toEqual([
      { day: '2026-03-01', served: 500, refused: 0 },
    ]);
    // Nothing held: nothing written.
    await counter.flush();
    expect(store.adds).toBe(1);
  });

  test('a read writes what this process holds first', async () => {
    const counter = new DailyCounter({
      store: memoryDailyCountStore(contractMetrics),
      logger: silent,
    });
    counter.count('refused', 7, at);
    await expect(counter.totals(range)).resolves.toEqual([
      { day: '2026-03-01', served: 0, refused: 1 },
    ]);
  });

  test('increments the store did not write, or a write that failed, are held for the next write', async () => {
    const store = memoryDailyCountStore(contractMetrics);
    const counter = new DailyCounter({ store, logger: silent });
    counter.count('served', 1, at);
    counter.count('served', 2, at);
    store.refuseNext([2]);
    await counter.flush();
    await expect(store.totals({ ...range, productId: 2 })).resolves.toEqual([]);
    counter.count('served', 2, at);
    store.failNext();
    await counter.flush();
    await counter.flush();
    await expect(store.totals({ ...range, productId: 2 })).resolves.toEqual([
      { day: '2026-03-01', served: 2, refused: 0 },
    ]);
    await expect(store.totals(range)).resolves.toEqual([
      { day: '2026-03-01', served: 3, refused: 0 },
    ]);
  });

  test('once started, what is held is written every DAILY_COUNT_FLUSH_MS; a stop writes the rest', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    try {
      const store = memoryDailyCountStore(contractMetrics);
      const counter = new DailyCounter({ store, logger: silent, flushMs: 1000 });
      counter.start();
      counter.count('served', 1, at);
      await jest.advanceTimersByTimeAsync(999);
      expect(store.adds).toBe(0);
      await jest.advanceTimersByTimeAsync(1);
      await counter.flush();
      expect(store.adds).toBe(1);
      counter.count('served', 1, at);
      await counter.stop();
      expect(store.adds).toBe(2);
      await jest.advanceTimersByTimeAsync(5000);
      expect(store.adds).toBe(2);
      await expect(store.totals(range)).resolves.toEqual([
        { day: '2026-03-01', served: 2, refused: 0 },
      ]);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('what the license service counts, each on the day it happened, under the license’s product', () => {
  const today = '2026-06-01';
  const days = (product_id: number | null = null) =>
    ({ product_id, from: today, to: today }) as const;

  test('activations, deactivations and rejected activations equal their domain events', async () => {
    const { handlers, events, license, activate, deactivate } = service();
    const key = await license({ activation_limit: 2 });
    await activate({ license_key: key, identifier: 'one.example' });
    // Again: already active, no new activation, no event.
    await activate({ license_key: key, identifier: 'one.example' });
    await handlers['license.addActivation'](
      { license_key: key, identifier: 'two.example', name: null },
      waiting,
    );
    // Full: refused and recorded (spec 2.5).
    await expect(activate({ license_key: key, identifier: 'three.example' })).rejects.toThrow();
    await deactivate({ license_key: key, identifier: 'one.example' });
    await handlers['license.removeActivation'](
      { license_key: key, identifier: 'two.example' },
      waiting,
    );

    const overview = await handlers['license.overview'](days(), waiting);
    expect(overview.days).toEqual([
      {
        day: today,
        activations: events.ofType('activation.created').length,
        deactivations: events.ofType('activation.deleted').length,
        validations: 0,
        rejected_activations: events.ofType('activation.rejected').length,
      },
    ]);
    expect(overview.days[0]).toMatchObject({
      activations: 2,
      deactivations: 2,
      rejected_activations: 1,
    });
  });

  test('a validate counts when it counts as a check (spec 4.2 rule 3); one that does not, or of an unknown key, does not', async () => {
    const { handlers, license, activate, validate, detail } = service();
    const key = await license();
    const expired = await license({ expires_at: PAST });
    await activate({ license_key: key, identifier: 'one.example' });
    await validate({ license_key: key, identifier: 'one.example' });
    await validate({ license_key: key });
    await validate({ license_key: key, identifier: 'not-activated.example' });
    await validate({ license_key: expired });
    await expect(validate({ license_key: key, product_id: 11 })).rejects.toThrow();
    await validate({ license_key: 'no-such-key' });
    const overview = await handlers['license.overview'](days(), waiting);
    const checks = (await detail(key)).check_count + (await detail(expired)).check_count;
    expect(overview.days).toEqual([expect.objectContaining({ validations: 3 })]);
    expect(checks).toBe(3);
  });

  test('a validate delivered again (the same call) counts once, as its check does', async () => {
    const { handlers, license, activate, validate } = service();
    const key = await license();
    const bundleKey = await license({ product_id: 20 });
    await activate({ license_key: key, identifier: 'one.example' });
    // RabbitMQ hands the request of a replica that died to another: the same call id. The first
    // is counted in the validate's first write; the second on a fresh read (a bundle key).
    const again = waitingCall();
    await validate({ license_key: key, identifier: 'one.example' }, again);
    await validate({ license_key: key, identifier: 'one.example' }, again);
    const bundleAgain = waitingCall();
    await validate({ license_key: bundleKey, product_id: 10 }, bundleAgain);
    await validate({ license_key: bundleKey, product_id: 10 }, bundleAgain);
    const overview = await handlers['license.overview'](days(), waiting);
    expect(overview.days).toEqual([expect.objectContaining({ validations: 2 })]);
  });

  test('counts are kept per product; a bundle license counts under its bundle', async () => {
    const { handlers, license, activate } = service();
    await activate({ license_key: await license({ product_id: 10 }), identifier: 'a.example' });
    await activate({ license_key: await license({ product_id: 20 }), identifier: 'b.example' });
    await activate({ license_key: await license({ product_id: 20 }), identifier: 'c.example' });
    const count = async (productId: number | null) =>
      (await handlers['license.overview'](days(productId), waiting)).days[0]?.activations ?? 0;
    expect([await count(10), await count(20), await count(30), await count(null)]).toEqual([
      1, 2, 0, 3,
    ]);
  });

  test('the figures of now: active licenses, the slots they take, and those expiring within 30 days', async () => {
    const { handlers, license, activate } = service();
    const soon = new Date(Date.parse('2026-06-01T12:00:00.000Z') + 20 * DAY).toISOString();
    const later = new Date(Date.parse('2026-06-01T12:00:00.000Z') + 31 * DAY).toISOString();
    await activate({ license_key: await license({ expires_at: soon }), identifier: 'a.example' });
    await license({ expires_at: later });
    await license({ expires_at: FUTURE, product_id: 11 });
    await license({ expires_at: PAST });
    await license({ status: 'suspended' });
    const current = async (productId: number | null) =>
      (await handlers['license.overview'](days(productId), waiting)).current;
    await expect(current(null)).resolves.toEqual({
      active_licenses: 3,
      activations_in_use: 1,
      expiring_in_30_days: 1,
      trials_started: 0,
      trials_converted: 0,
    });
    await expect(current(11)).resolves.toEqual({
      active_licenses: 1,
      activations_in_use: 0,
      expiring_in_30_days: 0,
      trials_started: 0,
      trials_converted: 0,
    });
  });
});

describe('the overview the management API answers', () => {
  test('30 or 90 UTC days, the last one today', () => {
    const now = new Date('2026-03-10T23:30:00.000-02:00');
    expect(overviewRange(now, 30)).toEqual({ from: '2026-02-10', to: '2026-03-11' });
    expect(overviewRange(now, 90)).toEqual({ from: '2025-12-12', to: '2026-03-11' });
  });

  test('every day of the range with every counter, 0 where none was counted; today’s refusals from the last day', () => {
    const overview = overviewView({
      productId: 4,
      days: 30,
      range: { from: '2026-02-10', to: '2026-03-11' },
      current: {
        active_licenses: 5,
        activations_in_use: 7,
        expiring_in_30_days: 1,
        trials_started: 2,
        trials_converted: 1,
      },
      licenseDays: [
        {
          day: '2026-03-11',
          activations: 2,
          deactivations: 1,
          validations: 40,
          rejected_activations: 3,
        },
      ],
      downloadDays: [
        { day: '2026-02-10', downloads_served: 9, downloads_refused: 0 },
        { day: '2026-03-11', downloads_served: 4, downloads_refused: 2 },
      ],
    });
    expect(overview.series).toHaveLength(30);
    expect(overview.series[0]).toEqual({
      day: '2026-02-10',
      activations: 0,
      deactivations: 0,
      validations: 0,
      rejected_activations: 0,
      downloads_served: 9,
      downloads_refused: 0,
    });
    expect(overview.series[1]).toMatchObject({ day: '2026-02-11', downloads_served: 0 });
    expect(overview.today).toEqual({
      day: '2026-03-11',
      rejected_activations: 3,
      downloads_served: 4,
      downloads_refused: 2,
    });
    expect(overview).toMatchObject({ product_id: 4, days: 30, current: { active_licenses: 5 } });
  });
});
