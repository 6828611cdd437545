import { mkdir } from 'node:fs/promises';
import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import { ConfigError } from '../config/index.js';
import type { DependencyCheck } from '../observability/index.js';

/**
 * Each service owns its collections in a database of its own (`<prefix>_<service>`) on the
 * server MONGODB_URL names; no service opens another's database. The connection string reaches
 * the driver as it is (several hosts, `replicaSet`, `w=majority`, TLS, credentials), except its
 * `readPreference`: every read goes to the primary, since each one either decides a write (a
 * limit, a claim) or is trusted by the next request (a validate after an activate, a cache
 * filled again after a change), and a secondary may not have the latest write yet.
 */
export async function connectDatabase(
  url: string,
  dbPrefix: string,
  service: string,
): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    dbName: `${dbPrefix}_${service.replace(/-/g, '_')}`,
    // Over the URL's: an option given here wins over the same one in the connection string.
    readPreference: 'primary',
    // Nothing may hang: a database that does not answer fails the operation in bounded time.
    serverSelectionTimeoutMS: 10_000,
    socketTimeoutMS: 30_000,
    maxPoolSize: 20,
    autoIndex: true,
  });
  await connection.asPromise();
  return connection;
}

/** Readiness of a service's database: connected, and answering a ping. */
export function databaseCheck(connection: Connection): DependencyCheck {
  return {
    name: 'mongodb',
    check: async () => {
      const db = connection.readyState === mongoose.ConnectionStates.connected && connection.db;
      if (!db) throw new Error('not connected');
      await db.command({ ping: 1 });
    },
  };
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * The embedded default when MONGODB_URL is unset: a MongoDB server run by this process
 * (`mongodb-memory-server`). With a directory its data is kept there across restarts; without,
 * it lives in a temporary directory removed at stop. When no server can be started (it cannot
 * be downloaded, or MONGOMS_SYSTEM_BINARY names nothing usable), the error says what to set.
 */
export async function startEmbeddedDatabase(directory?: string): Promise<EmbeddedDatabase> {
  const { MongoMemoryServer } = await import('mongodb-memory-server');
  if (directory !== undefined) await mkdir(directory, { recursive: true });
  let server: InstanceType<typeof MongoMemoryServer>;
  // mongodb-memory-server prints a failure to start, stack trace and all, on console.warn (unless
  // its debug log is on, DEBUG=MongoMS:*); the error below says it in one line instead.
  const warn = console.warn;
  console.warn = () => {};
  try {
    server = await MongoMemoryServer.create({
      ...(directory === undefined
        ? {}
        : { instance: { dbPath: directory, storageEngine: 'wiredTiger' } }),
      // A process group of its own: Ctrl+C reaches this process, which stops the server after
      // its last writes, and not the server itself. mongodb-memory-server's watchdog still stops
      // it if this process dies.
      spawn: { detached: true },
    });
  } catch (error) {
    const reason = ((error as Error).message ?? String(error)).split('\n')[0];
    throw new ConfigError(
      `The embedded MongoDB server could not be started (${reason}). Set MONGODB_URL to the ` +
        'address of a MongoDB server, or MONGOMS_SYSTEM_BINARY to the path of a mongod binary ' +
        '(DEBUG=MongoMS:* shows the details).',
    );
  } finally {
    console.warn = warn;
  }
  return {
    url: server.getUri(),
    stop: async () => {
      await server.stop();
    },
  };
}

/** A stored record under MongoDB's `_id` as the record's `id` (products, plans, versions). */
export const withId = <T extends { _id: number }>({ _id, ...rest }: T) => ({ id: _id, ...rest });

/** `$set` of the changes given; a key whose value is undefined is not a change. */
export function setOf<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(changes).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}

const DUPLICATE_KEY = 11000;

/** MongoDB's answer to an index created again with other options. */
const INDEX_OPTIONS_CONFLICT = 85;

/**
 * The TTL index that makes the database remove a collection's records `days` after the date in
 * `field`: created, or changed in place when it was created with another retention.
 */
export async function ensureRetentionIndex(
  connection: Connection,
  collection: string,
  field: string,
  days: number,
): Promise<void> {
  const expireAfterSeconds = days * 86_400;
  try {
    await connection.db!.collection(collection).createIndex({ [field]: 1 }, { expireAfterSeconds });
  } catch (error) {
    if ((error as { code?: unknown }).code !== INDEX_OPTIONS_CONFLICT) throw error;
    await connection.db!.command({
      collMod: collection,
      index: { keyPattern: { [field]: 1 }, expireAfterSeconds },
    });
  }
}

/** MongoDB's duplicate key error: a unique index refused the write. */
export function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === DUPLICATE_KEY;
}

interface SequenceDocument {
  _id: string;
  seq: number;
}

/**
 * Integer ids for a service's records (products and plans have integer ids): an atomic counter
 * per sequence name in the service's own `counters` collection.
 */
export class Sequences {
  private readonly model: Model<SequenceDocument>;

  constructor(connection: Connection) {
    this.model = connection.model<SequenceDocument>(
      'Sequence',
      new Schema<SequenceDocument>(
        { _id: { type: String, required: true }, seq: { type: Number, required: true } },
        { collection: 'counters', versionKey: false },
      ),
    );
  }

  async next(name: string): Promise<number> {
    const doc = await this.model
      .findOneAndUpdate(
        { _id: name },
        { $inc: { seq: 1 } },
        { upsert: true, returnDocument: 'after' },
      )
      .lean();
    return doc!.seq;
  }

  /**
   * Inserts a record under the next id of the sequence, skipping ids that admins chose
   * themselves. `beforeEachWrite` runs before each of its writes (every counter increment and
   * every insert), so a call whose caller has gone stops before its next write.
   */
  async insertNext<T>(
    name: string,
    insert: (id: number) => Promise<T>,
    beforeEachWrite: () => void,
  ): Promise<T> {
    for (;;) {
      beforeEachWrite();
      const id = await this.next(name);
      beforeEachWrite();
      try {
        return await insert(id);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    }
  }

  /** As `insertNext`, or under the id an admin chose (`id-taken` when a record has it). */
  async insert<T>(
    name: string,
    chosenId: number | undefined,
    insert: (id: number) => Promise<T>,
    beforeEachWrite: () => void,
  ): Promise<{ outcome: 'created'; record: T } | { outcome: 'id-taken' }> {
    if (chosenId === undefined) {
      return { outcome: 'created', record: await this.insertNext(name, insert, beforeEachWrite) };
    }
    beforeEachWrite();
    try {
      return { outcome: 'created', record: await insert(chosenId) };
    } catch (error) {
      if (isDuplicateKey(error)) return { outcome: 'id-taken' };
      throw error;
    }
  }
}
export * from './lists.js';
