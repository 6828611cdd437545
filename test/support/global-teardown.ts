import type { MongoMemoryServer } from 'mongodb-memory-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __mongo?: MongoMemoryServer }).__mongo?.stop();
}
