import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoMemoryServer } from 'mongodb-memory-server';
import type { BrowserServer } from 'playwright-core';
import type * as BrowserModule from './browser.js';

// Jest loads this file as CommonJS and without its module mapping ('./browser.js' names no file
// here), so the browser module is required by its own name, through Jest's TypeScript transform.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startSharedBrowser } = require('./browser.ts') as typeof BrowserModule;

/**
 * One MongoDB server for the whole run (mongodb-memory-server, or MONGODB_URL when set). Each
 * test system uses databases of its own prefix, so test files never see each other's data.
 * The run's id marks its queue prefixes (amqp-queues.ts), checked by global-teardown.ts. One
 * Chromium for the whole run too (browser.ts), which the browser test files connect to.
 */
export default async function globalSetup(): Promise<void> {
  const runId = `r${randomBytes(3).toString('hex')}`;
  process.env.TEST_RUN_ID = runId;
  process.env.TEST_QUEUE_FILE = path.join(tmpdir(), `licensing-test-queues-${runId}`);
  (globalThis as { __browser?: BrowserServer }).__browser = await startSharedBrowser();
  if (process.env.MONGODB_URL) return;
  const server = await MongoMemoryServer.create();
  (globalThis as { __mongo?: MongoMemoryServer }).__mongo = server;
  process.env.MONGODB_URL = server.getUri();
}
