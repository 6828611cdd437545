import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import * as amqp from 'amqplib';
import type { MongoMemoryServer } from 'mongodb-memory-server';
import type { BrowserServer } from 'playwright-core';

// Jest loads this file without its module mapping, so it imports no module of the project.

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __browser?: BrowserServer }).__browser?.close();
  await (globalThis as { __mongo?: MongoMemoryServer }).__mongo?.stop();
  const runId = process.env.TEST_RUN_ID;
  const file = process.env.TEST_QUEUE_FILE;
  if (!runId || !file || !process.env.AMQP_URL) return;
  // Every test deletes the queues it declared; one left would stay on the shared broker.
  const left = await queuesLeft(`test.${runId}.`, noted(file), process.env.AMQP_URL);
  rmSync(file, { force: true });
  if (left.length > 0) {
    throw new Error(`The tests left ${left.length} queues on the broker: ${left.join(', ')}`);
  }
}

/** The queues the run's tests could have declared (test/support/amqp-queues.ts notes them). */
function noted(file: string): string[] {
  try {
    return [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))];
  } catch {
    return [];
  }
}

/**
 * The broker's queues whose names start with `prefix`, listed by `rabbitmqctl` when this machine
 * may use it; otherwise those of `queues` that exist, checked passively over AMQP.
 */
async function queuesLeft(prefix: string, queues: string[], url: string): Promise<string[]> {
  try {
    const { stdout } = await promisify(execFile)(
      'rabbitmqctl',
      ['list_queues', '--quiet', '--no-table-headers', 'name'],
      { timeout: 30_000 },
    );
    return stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((name) => name.startsWith(prefix));
  } catch {
    // rabbitmqctl missing, or not allowed to reach this broker
  }
  const left: string[] = [];
  const connection = await amqp.connect(url);
  try {
    for (const queue of queues) {
      // A passive check of a missing queue closes its channel: one channel per check.
      const channel = await connection.createChannel();
      channel.on('error', () => undefined);
      try {
        await channel.checkQueue(queue);
        left.push(queue);
        await channel.close();
      } catch {
        // not there
      }
    }
  } finally {
    await connection.close();
  }
  return left;
}
