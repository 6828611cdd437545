import type { Connection } from 'mongoose';
import { dropOwnDatabase, ownDatabase, type DatabaseOwner } from './databases.js';

/** The two implementations of a service's stores that its contract test compares. */
export interface StoreImplementations<Stores> {
  /** The service whose database the MongoDB stores keep their collections in. */
  service: DatabaseOwner;
  /** The MongoDB stores on `connection`, their models and indexes set up. */
  openMongo(connection: Connection): Promise<Stores>;
  /** A new in-memory fake, as the unit tests use it. */
  inMemory(): Stores;
}

interface Implementation<Stores> {
  start(): Promise<void>;
  /** Stores with nothing in them, the id sequences included. */
  fresh(): Promise<Stores>;
  stop(): Promise<void>;
}

/** The MongoDB stores on a database of their own on the test server, dropped after. */
function mongo<Stores>({ service, openMongo }: StoreImplementations<Stores>) {
  let connection: Connection | undefined;
  let stores: Stores | undefined;
  return {
    async start() {
      connection = await ownDatabase(service);
      stores = await openMongo(connection);
    },
    async fresh() {
      // Every collection, so that nothing a store writes (a counter, a log) outlives a test.
      const collections = await connection!.db!.collections();
      await Promise.all(collections.map((collection) => collection.deleteMany({})));
      return stores!;
    },
    async stop() {
      if (connection) await dropOwnDatabase(connection);
    },
  } satisfies Implementation<Stores>;
}

function inMemory<Stores>(implementations: StoreImplementations<Stores>) {
  return {
    start: async () => {},
    fresh: async () => implementations.inMemory(),
    stop: async () => {},
  } satisfies Implementation<Stores>;
}

/**
 * The contract of a service's stores, run against its MongoDB stores and against the in-memory
 * fake its unit tests use: both must answer alike. `contract` declares the tests; `stores` gives
 * each test stores with nothing in them.
 */
export function describeStoreContract<Stores>(
  title: string,
  implementations: StoreImplementations<Stores>,
  contract: (stores: () => Stores) => void,
): void {
  describe.each([
    ['MongoDB', mongo(implementations)],
    ['in memory', inMemory(implementations)],
  ])(`${title} (%s)`, (_name, implementation: Implementation<Stores>) => {
    let stores: Stores;
    beforeAll(() => implementation.start());
    afterAll(() => implementation.stop());
    beforeEach(async () => {
      stores = await implementation.fresh();
    });
    contract(() => stores);
  });
}
