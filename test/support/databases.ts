import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectDatabase } from '../../libs/database/index.js';
import type { TestSystem } from './system.js';

/** The services that keep a database of their own. */
export type DatabaseOwner =
  'license' | 'update-catalog' | 'download' | 'webhooks' | 'management' | 'stores';

/**
 * A database of its own on the test server (started by test/support/global-setup.ts), for a
 * store's contract test: drop it after.
 */
export function ownDatabase(service: DatabaseOwner): Promise<Connection> {
  const url = process.env.MONGODB_URL;
  if (!url) throw new Error('MONGODB_URL is not set: the global setup starts the test server.');
  return connectDatabase(url, `t${randomBytes(4).toString('hex')}`, service);
}

/** Drops a database of `ownDatabase` and closes its connection. */
export async function dropOwnDatabase(connection: Connection): Promise<void> {
  await connection.dropDatabase();
  await connection.close();
}

/** `use` on a database of its own, dropped after. */
export async function withOwnDatabase<T>(
  service: DatabaseOwner,
  use: (connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = await ownDatabase(service);
  try {
    return await use(connection);
  } finally {
    await dropOwnDatabase(connection);
  }
}

/** The database a service of a running test system uses, to set or read what no API does. */
export function databaseOf(system: TestSystem, service: DatabaseOwner): Promise<Connection> {
  return connectDatabase(system.config.MONGODB_URL!, system.config.MONGODB_DB_PREFIX, service);
}
