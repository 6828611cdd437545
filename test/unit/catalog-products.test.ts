import { CatalogProducts } from '../../libs/cache/index.js';
import { LicensingError } from '../../libs/contracts/index.js';
import type { Transport } from '../../libs/transport/index.js';

/** A catalog whose answers the test releases by hand, and whose change events it sends. */
function fakeCatalog() {
  const answers: Array<(title: string) => void> = [];
  let onChange: ((payload: { id: number }) => void) | undefined;
  const transport = {
    call: () =>
      new Promise((resolve) => {
        answers.push((title) => resolve({ id: 1, title, bundle_items: [] }));
      }),
    subscribe: async (_event: string, handler: (payload: { id: number }) => void) => {
      onChange = handler;
    },
  } as unknown as Transport;
  return {
    transport,
    calls: () => answers.length,
    answer: (index: number, title: string) => answers[index]!(title),
    change: () => onChange!({ id: 1 }),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('services keep the catalog products they read on every request (spec 2.2, 4.5)', () => {
  test('concurrent misses share one catalog request, and the answer is cached', async () => {
    const catalog = fakeCatalog();
    const directory = new CatalogProducts(catalog.transport, 60_000);
    await directory.start();
    const both = Promise.all([directory.find(1), directory.find(1)]);
    await tick();
    expect(catalog.calls()).toBe(1);
    catalog.answer(0, 'Title');
    expect((await both).map((p) => p?.title)).toEqual(['Title', 'Title']);
    expect((await directory.find(1))?.title).toBe('Title');
    expect(catalog.calls()).toBe(1);
  });

  test('a change event drops the cached product at once', async () => {
    const catalog = fakeCatalog();
    const directory = new CatalogProducts(catalog.transport, 60_000);
    await directory.start();
    const first = directory.find(1);
    await tick();
    catalog.answer(0, 'Old');
    await first;
    catalog.change();
    const second = directory.find(1);
    await tick();
    catalog.answer(1, 'New');
    expect((await second)?.title).toBe('New');
  });

  test('an answer requested before a change is not cached after it', async () => {
    const catalog = fakeCatalog();
    const directory = new CatalogProducts(catalog.transport, 60_000);
    await directory.start();
    const stale = directory.find(1); // asked before the change, answered after it
    await tick();
    catalog.change();
    const fresh = directory.find(1); // asked after the change: must not join the stale request
    await tick();
    expect(catalog.calls()).toBe(2);
    catalog.answer(0, 'Old');
    catalog.answer(1, 'New');
    await Promise.all([stale, fresh]);
    const later = directory.find(1);
    await tick();
    expect(catalog.calls()).toBe(2); // served from the cache...
    expect((await later)?.title).toBe('New'); // ...which holds the answer given after the change
  });

  test('a product the catalog does not have is null to find, NOT_FOUND to get, and never kept', async () => {
    let calls = 0;
    const transport = {
      call: async () => {
        calls += 1;
        throw new LicensingError('NOT_FOUND', 'Product 9 does not exist.');
      },
      subscribe: async () => {},
    } as unknown as Transport;
    const products = new CatalogProducts(transport, 60_000);
    await products.start();
    expect(await products.find(9)).toBeNull();
    await expect(products.get(9)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Product 9 does not exist.',
    });
    expect(calls).toBe(2);
  });

  test('other failures of the catalog reach the caller of find', async () => {
    const transport = {
      call: async () => {
        throw new LicensingError('INTERNAL_ERROR', 'update-catalog did not answer.');
      },
      subscribe: async () => {},
    } as unknown as Transport;
    const products = new CatalogProducts(transport, 60_000);
    await expect(products.find(1)).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});
