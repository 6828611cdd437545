import { openMongoCatalogStores } from '../../services/update-catalog/mongo-stores.js';
import type {
  CatalogStores,
  NewPackageFile,
  NewProduct,
  NewVersion,
} from '../../services/update-catalog/stores.js';
import { memoryCatalogStores } from '../support/memory-catalog-stores.js';
import { describeStoreContract, type StoreImplementations } from '../support/store-contract.js';

const noCheck = () => {};

const plugin = (fields: Partial<NewProduct> = {}): NewProduct => ({
  title: 'Plugin',
  requires_license: true,
  download_access: 'license_key',
  bundle_items: [],
  joomla: null,
  wordpress: null,
  ...fields,
});

const versionOf = (productId: number, fields: Partial<NewVersion> = {}): NewVersion => ({
  product_id: productId,
  version: '1.0.0',
  release_notes: null,
  release_date: null,
  published: true,
  channel: 'stable',
  rollout_percent: 100,
  created_at: new Date('2026-01-02T03:04:05.000Z'),
  ...fields,
});

/** A file of `version`, of its product. */
const fileOf = (
  version: { id: number; product_id: number },
  fields: Partial<NewPackageFile> = {},
): NewPackageFile => ({
  version_id: version.id,
  product_id: version.product_id,
  filename: 'plugin.zip',
  plan_id: null,
  include_in_updates: true,
  platform: null,
  arch: null,
  signature: null,
  minimum_system_version: null,
  size: 1234,
  sha256: 'a'.repeat(64),
  sha512: 'f'.repeat(128),
  content_type: 'application/zip',
  object_key: `packages/${version.id}/plugin.zip`,
  uploaded_at: new Date('2026-01-03T00:00:00.000Z'),
  ...fields,
});

const implementations: StoreImplementations<CatalogStores> = {
  service: 'update-catalog',
  openMongo: openMongoCatalogStores,
  inMemory: memoryCatalogStores,
};

describeStoreContract('the update catalog stores', implementations, (stores) => {
  async function product(fields: Partial<NewProduct> = {}, id?: number) {
    const created = await stores().products.create({
      product: plugin(fields),
      id,
      beforeEachWrite: noCheck,
    });
    if (created.outcome !== 'created') throw new Error(`product ${id} was not created`);
    return created.product;
  }

  describe('products and bundles', () => {
    test('ids come from a sequence that skips ids chosen in admin; a chosen id that is taken stores nothing', async () => {
      expect((await product({}, 2)).id).toBe(2);
      expect((await product()).id).toBe(1);
      expect((await product()).id).toBe(3);
      expect(
        await stores().products.create({
          product: plugin({ title: 'Again' }),
          id: 2,
          beforeEachWrite: noCheck,
        }),
      ).toEqual({ outcome: 'id-taken' });
      expect((await stores().products.list()).map((p) => [p.id, p.title])).toEqual([
        [1, 'Plugin'],
        [2, 'Plugin'],
        [3, 'Plugin'],
      ]);
    });

    test('a product is stored with its fields, bundle items and timestamps', async () => {
      const before = Date.now();
      const bundle = await product({
        title: 'Bundle',
        download_access: 'activated_identifier',
        requires_license: false,
        bundle_items: [5, 4],
      });
      expect(bundle).toEqual({
        id: 1,
        title: 'Bundle',
        requires_license: false,
        download_access: 'activated_identifier',
        bundle_items: [5, 4],
        joomla: null,
        wordpress: null,
        trial_plan_id: null,
        created_at: expect.any(Date),
        updated_at: expect.any(Date),
      });
      expect(bundle.created_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(await stores().products.find(1)).toEqual(bundle);
      expect(await stores().products.find(2)).toBeNull();
    });

    test("a product's updater settings are stored whole, changed whole and removed", async () => {
      const joomla = {
        element: 'pkg_example',
        type: 'package' as const,
        client: 'site' as const,
        folder: null,
        target_platform: '[45]\\.',
        php_minimum: '8.1',
      };
      const wordpress = { slug: 'example', requires: '6.4', tested: null, requires_php: null };
      const stored = await product({ joomla, wordpress });
      expect(await stores().products.find(stored.id)).toMatchObject({ joomla, wordpress });
      const changed = { ...joomla, php_minimum: null };
      await stores().products.update(stored.id, { joomla: changed, wordpress: null });
      expect(await stores().products.find(stored.id)).toMatchObject({
        joomla: changed,
        wordpress: null,
      });
    });

    test('existingIds names the products among the ids given', async () => {
      await product();
      await product();
      expect(await stores().products.existingIds([2, 9, 1, 2])).toEqual(new Set([1, 2]));
      expect(await stores().products.existingIds([])).toEqual(new Set());
    });

    test('update changes the fields given, and updated_at; an unknown id is null', async () => {
      const created = await product({ bundle_items: [7] });
      const updated = await stores().products.update(created.id, {
        title: 'Renamed',
        bundle_items: [8, 9],
        download_access: undefined,
      });
      expect(updated).toEqual({
        ...created,
        title: 'Renamed',
        bundle_items: [8, 9],
        updated_at: expect.any(Date),
      });
      expect(updated!.updated_at.getTime()).toBeGreaterThanOrEqual(created.updated_at.getTime());
      expect(await stores().products.find(created.id)).toEqual(updated);
      expect(await stores().products.update(99, { title: 'Nobody' })).toBeNull();
    });

    test('records are copies: changing one changes nothing stored', async () => {
      const created = await product({ bundle_items: [3] });
      created.bundle_items.push(4);
      created.title = 'Changed';
      const found = await stores().products.find(created.id);
      expect(found).toMatchObject({ title: 'Plugin', bundle_items: [3] });
      found!.bundle_items.push(5);
      expect((await stores().products.list())[0]!.bundle_items).toEqual([3]);
    });

    test('the check before each write can stop a creation: nothing is stored', async () => {
      let writes = 0;
      const stopAt = (n: number) => () => {
        writes++;
        if (writes >= n) throw new Error('deadline passed');
      };
      await expect(
        stores().products.create({ product: plugin(), beforeEachWrite: stopAt(2) }),
      ).rejects.toThrow('deadline passed');
      writes = 0;
      await expect(
        stores().products.create({ product: plugin(), id: 5, beforeEachWrite: stopAt(1) }),
      ).rejects.toThrow('deadline passed');
      expect(await stores().products.list()).toEqual([]);
      // The id sequence and the insert: a check before each.
      writes = 0;
      await stores().products.create({ product: plugin(), beforeEachWrite: stopAt(99) });
      expect(writes).toBe(2);
    });

    test('when the next id was chosen in admin, the counter write done again is checked too', async () => {
      await stores().products.create({ product: plugin(), id: 1, beforeEachWrite: noCheck });
      let writes = 0;
      const created = await stores().products.create({
        product: plugin(),
        beforeEachWrite: () => void writes++,
      });
      expect(created).toMatchObject({ outcome: 'created', product: { id: 2 } });
      // The counter (1), the insert refused (1 is taken), the counter (2), the insert.
      expect(writes).toBe(4);
    });
  });

  describe('versions', () => {
    test('versions get ids from their own sequence, and are listed by product, by id', async () => {
      const p = await product();
      const other = await product();
      const first = await stores().versions.create({
        version: versionOf(p.id),
        beforeEachWrite: noCheck,
      });
      await stores().versions.create({ version: versionOf(other.id), beforeEachWrite: noCheck });
      const draft = await stores().versions.create({
        version: versionOf(p.id, { version: '2.0.0-beta', published: false }),
        beforeEachWrite: noCheck,
      });
      expect(first).toEqual({ id: 1, ...versionOf(p.id) });
      expect(draft.id).toBe(3);
      expect((await stores().versions.list({ product_id: p.id })).map((v) => v.id)).toEqual([1, 3]);
      expect(await stores().versions.list({ product_id: p.id, published: true })).toEqual([first]);
      expect(await stores().versions.list({ product_id: p.id, published: false })).toEqual([draft]);
      expect(await stores().versions.find(3)).toEqual(draft);
      expect(await stores().versions.find(4)).toBeNull();
    });

    test('update changes the fields given, with the version as it was just before; an unknown id is null', async () => {
      const p = await product();
      const created = await stores().versions.create({
        version: versionOf(p.id),
        beforeEachWrite: noCheck,
      });
      const updated = await stores().versions.update(created.id, {
        published: false,
        release_notes: 'Notes.',
        release_date: '2026-02-01',
        version: undefined,
      });
      expect(updated).toEqual({
        version: {
          ...created,
          published: false,
          release_notes: 'Notes.',
          release_date: '2026-02-01',
        },
        previous: created,
      });
      expect(await stores().versions.find(created.id)).toEqual(updated?.version);
      expect(await stores().versions.update(99, { published: true })).toBeNull();
    });
  });

  describe('package files', () => {
    async function version(productId: number) {
      return stores().versions.create({ version: versionOf(productId), beforeEachWrite: noCheck });
    }
    const file = (fields: NewPackageFile) =>
      stores().packageFiles.create({ file: fields, beforeEachWrite: noCheck });

    test('files get ids from their own sequence, and are listed by version or by product, by id', async () => {
      const p = await product();
      const v1 = await version(p.id);
      const v2 = await version(p.id);
      const a = await file(fileOf(v1));
      const b = await file(fileOf(v2, { plan_id: 7 }));
      const c = await file(fileOf(v1, { filename: 'plugin-2.zip', sha512: null }));
      expect(a).toEqual({ id: 1, ...fileOf(v1) });
      expect([a.sha512, c.sha512]).toEqual(['f'.repeat(128), null]);
      expect(await stores().packageFiles.list({ version_id: v1.id })).toEqual([a, c]);
      expect(await stores().packageFiles.list({ product_id: p.id })).toEqual([a, b, c]);
      expect(await stores().packageFiles.find(b.id)).toEqual(b);
      expect(await stores().packageFiles.find(9)).toBeNull();
    });

    test("the files in auto-updates: the product's ticked ones, of every plan, by id", async () => {
      const p = await product();
      const other = await product();
      const v = await version(p.id);
      const v2 = await version(p.id);
      const w = await version(other.id);
      const plan7 = await file(fileOf(v2, { plan_id: 7 }));
      const allPlans = await file(fileOf(v));
      const plan8 = await file(fileOf(v, { plan_id: 8 }));
      await file(fileOf(v, { include_in_updates: false }));
      await file(fileOf(v, { plan_id: 7, include_in_updates: false }));
      await file(fileOf(w));
      expect(await stores().packageFiles.listInAutoUpdates({ product_id: p.id })).toEqual([
        plan7,
        allPlans,
        plan8,
      ]);
      expect(await stores().packageFiles.listInAutoUpdates({ product_id: 99 })).toEqual([]);
    });

    test('update changes plan and tick; delete forgets the file and answers it', async () => {
      const p = await product();
      const v = await version(p.id);
      const created = await file(fileOf(v));
      const updated = await stores().packageFiles.update(created.id, {
        plan_id: 3,
        include_in_updates: false,
      });
      expect(updated).toEqual({ ...created, plan_id: 3, include_in_updates: false });
      expect(await stores().packageFiles.update(created.id, { plan_id: null })).toEqual({
        ...updated,
        plan_id: null,
      });
      expect(await stores().packageFiles.update(99, { plan_id: 1 })).toBeNull();
      expect(await stores().packageFiles.delete(created.id)).toEqual({
        ...created,
        plan_id: null,
        include_in_updates: false,
      });
      expect(await stores().packageFiles.find(created.id)).toBeNull();
      expect(await stores().packageFiles.delete(created.id)).toBeNull();
    });

    test('records are copies: changing one changes nothing stored', async () => {
      const p = await product();
      const v = await version(p.id);
      const created = await file(fileOf(v));
      created.uploaded_at.setUTCFullYear(1999);
      created.size = 1;
      expect(await stores().packageFiles.find(created.id)).toEqual({
        id: created.id,
        ...fileOf(v),
      });
    });
  });
});
