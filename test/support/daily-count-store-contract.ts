import type { DailyCountStore } from '../../libs/daily-counts/index.js';

/** The metrics the contract counts. */
export const contractMetrics = ['served', 'refused'] as const;
type Metric = (typeof contractMetrics)[number];

/** Opens an empty store of `contractMetrics`; `close` removes whatever it holds. */
export type OpenDailyCountStore = () => Promise<{
  store: DailyCountStore<Metric>;
  close(): Promise<void>;
}>;

/**
 * The contract of a daily count store (libs/daily-counts/store.ts), run against the in-memory
 * fake (test/unit) and the MongoDB store (test/integration).
 */
export function describeDailyCountStore(implementation: string, open: OpenDailyCountStore): void {
  describe(`${implementation}: daily counts`, () => {
    let opened: Awaited<ReturnType<OpenDailyCountStore>>;
    const store = () => opened.store;
    beforeEach(async () => {
      opened = await open();
    });
    afterEach(async () => {
      await opened?.close();
    });

    test('increments add up per day and product; a range sums the products of each day, oldest first', async () => {
      await expect(
        store().add([
          { day: '2026-03-02', product_id: 1, counts: { served: 2 } },
          { day: '2026-03-01', product_id: 1, counts: { served: 1, refused: 1 } },
          { day: '2026-03-01', product_id: 2, counts: { refused: 4 } },
          { day: '2026-03-01', product_id: null, counts: { refused: 1 } },
        ]),
      ).resolves.toEqual([]);
      await store().add([{ day: '2026-03-01', product_id: 1, counts: { served: 5 } }]);
      const range = { from: '2026-03-01', to: '2026-03-02' };
      await expect(store().totals({ ...range, productId: null })).resolves.toEqual([
        { day: '2026-03-01', served: 6, refused: 6 },
        { day: '2026-03-02', served: 2, refused: 0 },
      ]);
      await expect(store().totals({ ...range, productId: 1 })).resolves.toEqual([
        { day: '2026-03-01', served: 6, refused: 1 },
        { day: '2026-03-02', served: 2, refused: 0 },
      ]);
      await expect(store().totals({ ...range, productId: 3 })).resolves.toEqual([]);
    });

    test('a range includes both its ends and leaves out days without a record', async () => {
      for (const day of ['2026-02-28', '2026-03-01', '2026-03-03', '2026-03-04']) {
        await store().add([{ day, product_id: 1, counts: { served: 1 } }]);
      }
      const totals = await store().totals({ from: '2026-03-01', to: '2026-03-03', productId: 1 });
      expect(totals.map(({ day }) => day)).toEqual(['2026-03-01', '2026-03-03']);
    });

    test('a negative increment takes back what was counted', async () => {
      await store().add([{ day: '2026-03-01', product_id: 1, counts: { served: 2 } }]);
      await store().add([{ day: '2026-03-01', product_id: 1, counts: { served: -1, refused: 1 } }]);
      await expect(
        store().totals({ from: '2026-03-01', to: '2026-03-01', productId: 1 }),
      ).resolves.toEqual([{ day: '2026-03-01', served: 1, refused: 1 }]);
    });

    test('concurrent first increments of a day: each is counted or answered as not written', async () => {
      const increment = { day: '2026-03-05', product_id: 9, counts: { served: 1 } };
      const unwritten = await Promise.all(
        Array.from({ length: 10 }, () => store().add([increment])),
      );
      const [totals] = await store().totals({
        from: '2026-03-05',
        to: '2026-03-05',
        productId: 9,
      });
      expect((totals?.served ?? 0) + unwritten.flat().length).toBe(10);
    });
  });
}
