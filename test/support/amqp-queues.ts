import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import * as amqp from 'amqplib';
import { durableQueues } from '../../libs/transport/index.js';

/**
 * The test run's mark in every queue prefix it uses, set by global-setup.ts for every worker, so
 * the check at the end of the run names only this run's queues on a broker other runs share.
 */
export function testRunId(): string {
  process.env.TEST_RUN_ID ??= `r${randomBytes(3).toString('hex')}`;
  return process.env.TEST_RUN_ID;
}

/**
 * A queue prefix of a test's own: `test.<run>.<label>.<random>`. Its queues' names are noted in
 * TEST_QUEUE_FILE for global-teardown.ts, which checks them where it cannot list the broker's.
 */
export function testAmqpPrefix(label: string): string {
  const prefix = `test.${testRunId()}.${label}.${randomBytes(4).toString('hex')}`;
  const file = process.env.TEST_QUEUE_FILE;
  if (file)
    appendFileSync(
      file,
      queuesOf(prefix)
        .map((queue) => `${queue}\n`)
        .join(''),
    );
  return prefix;
}

/** Every durable queue a system of `prefix` declares. */
export function queuesOf(prefix: string): string[] {
  return durableQueues(prefix, 'classic').map(({ queue }) => queue);
}

/**
 * Deletes the durable queues of these prefixes: the RPC queues would stay 30 minutes without a
 * consumer and the domain-event queue for ever. Deleting a queue that is not there succeeds.
 */
export async function deleteQueuesOf(
  prefixes: Array<string | undefined>,
  url = process.env.AMQP_URL,
): Promise<void> {
  const known = prefixes.filter((prefix): prefix is string => Boolean(prefix));
  if (!url || known.length === 0) return;
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    for (const prefix of known) {
      for (const queue of queuesOf(prefix)) await channel.deleteQueue(queue);
    }
    await channel.close();
  } finally {
    await connection.close();
  }
}
