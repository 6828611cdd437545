import type {
  CatalogStores,
  PackageFileRecord,
  PackageFileStore,
  ProductRecord,
  ProductStore,
  VersionRecord,
  VersionStore,
} from '../../services/update-catalog/stores.js';
import { deepCopy } from '../../bench/support/deep-copy.js';

/**
 * The update catalog's stores in memory, with the semantics of the MongoDB ones
 * (test/integration/catalog-stores.test.ts runs the same contract against both): ids from one
 * sequence per kind that skips taken ids, a taken id refused like the `_id` index, lists by id,
 * copies in and out.
 */
export function memoryCatalogStores(options: { clock?: () => Date } = {}): CatalogStores {
  const clock = options.clock ?? (() => new Date());
  const copy = deepCopy;
  const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
  const definedOnly = <T extends object>(changes: T): Partial<T> =>
    Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    ) as Partial<T>;

  const counters = new Map<string, number>();
  /** Like the MongoDB store: the next id of the sequence, then the insert, until one is free. */
  function nextFreeId(
    sequence: string,
    table: ReadonlyMap<number, unknown>,
    beforeEachWrite: () => void,
  ): number {
    for (;;) {
      beforeEachWrite();
      const id = (counters.get(sequence) ?? 0) + 1;
      counters.set(sequence, id);
      beforeEachWrite();
      if (!table.has(id)) return id;
    }
  }

  const productTable = new Map<number, ProductRecord>();
  const versionTable = new Map<number, VersionRecord>();
  const fileTable = new Map<number, PackageFileRecord>();

  const products: ProductStore = {
    async find(id) {
      const product = productTable.get(id);
      return product ? copy(product) : null;
    },
    async existingIds(ids) {
      return new Set(ids.filter((id) => productTable.has(id)));
    },
    async list() {
      return [...productTable.values()].sort(byId).map(copy);
    },
    async create({ product, id, beforeEachWrite }) {
      let chosen: number;
      if (id === undefined) {
        chosen = nextFreeId('product', productTable, beforeEachWrite);
      } else {
        beforeEachWrite();
        if (productTable.has(id)) return { outcome: 'id-taken' };
        chosen = id;
      }
      const now = clock();
      const record: ProductRecord = {
        ...copy(product),
        trial_plan_id: product.trial_plan_id ?? null,
        id: chosen,
        created_at: now,
        updated_at: now,
      };
      productTable.set(chosen, record);
      return { outcome: 'created', product: copy(record) };
    },
    async update(id, changes) {
      const product = productTable.get(id);
      if (!product) return null;
      const updated = { ...product, ...copy(definedOnly(changes)), updated_at: clock() };
      productTable.set(id, updated);
      return copy(updated);
    },
  };

  const versions: VersionStore = {
    async find(id) {
      const version = versionTable.get(id);
      return version ? copy(version) : null;
    },
    async list({ product_id, published }) {
      return [...versionTable.values()]
        .filter((v) => v.product_id === product_id)
        .filter((v) => published === undefined || v.published === published)
        .sort(byId)
        .map(copy);
    },
    async create({ version, beforeEachWrite }) {
      const id = nextFreeId('version', versionTable, beforeEachWrite);
      const record: VersionRecord = { ...copy(version), id };
      versionTable.set(id, record);
      return copy(record);
    },
    async update(id, changes) {
      const version = versionTable.get(id);
      if (!version) return null;
      const updated = { ...version, ...definedOnly(changes) };
      versionTable.set(id, updated);
      return { version: copy(updated), previous: copy(version) };
    },
  };

  const packageFiles: PackageFileStore = {
    async find(id) {
      const file = fileTable.get(id);
      return file ? copy(file) : null;
    },
    async list(filter) {
      return [...fileTable.values()]
        .filter((f) =>
          'version_id' in filter
            ? f.version_id === filter.version_id
            : f.product_id === filter.product_id,
        )
        .sort(byId)
        .map(copy);
    },
    async listInAutoUpdates({ product_id }) {
      return [...fileTable.values()]
        .filter((f) => f.product_id === product_id && f.include_in_updates)
        .sort(byId)
        .map(copy);
    },
    async create({ file, beforeEachWrite }) {
      const id = nextFreeId('file', fileTable, beforeEachWrite);
      const record: PackageFileRecord = { ...copy(file), id };
      fileTable.set(id, record);
      return copy(record);
    },
    async update(id, changes) {
      const file = fileTable.get(id);
      if (!file) return null;
      const updated = { ...file, ...definedOnly(changes) };
      fileTable.set(id, updated);
      return copy(updated);
    },
    async delete(id) {
      const file = fileTable.get(id);
      if (!file) return null;
      fileTable.delete(id);
      return copy(file);
    },
  };

  return { products, versions, packageFiles };
}
