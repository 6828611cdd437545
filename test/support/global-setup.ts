import { MongoMemoryServer } from 'mongodb-memory-server';

/**
 * One MongoDB server for the whole run (mongodb-memory-server, or MONGODB_URL when set). Each
 * test system uses databases of its own prefix, so test files never see each other's data.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.MONGODB_URL) return;
  const server = await MongoMemoryServer.create();
  (globalThis as { __mongo?: MongoMemoryServer }).__mongo = server;
  process.env.MONGODB_URL = server.getUri();
}
