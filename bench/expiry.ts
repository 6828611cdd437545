/**
 * `npm run bench:expiry`: what the expiry task (spec 3.1, services/license/lifecycle/scheduled-tasks.ts
 * `expireLicenses`) costs when many licenses expire on the same day. The task runs on the
 * in-memory stores the unit tests use too (bench/support), so no database speed enters the
 * figures: it reports the store calls (each one database command on MongoDB: `find` for a
 * selection, `update` for a batch's write) per license, and the CPU time per license of the task
 * itself (utime + stime from `process.cpuUsage`, less what the in-memory stores spent), its events
 * published and logged as the service does (the log silent).
 *
 *   BENCH_LICENSES=100000   licenses past due, all on the same day
 */
import { createLogger } from '../libs/logging/index.js';
import { domainEventPublisher } from '../libs/transport/domain-events.js';
import { publishedEvents } from '../services/license/events.js';
import { EXPIRY_BATCH, expireLicenses } from '../services/license/lifecycle/scheduled-tasks.js';
import { FakeTransport } from './support/fake-transport.js';
import { memoryLicenseStores } from './support/license-memory-stores.js';
import { newLicense } from './support/license-store-fixtures.js';

const count = Number(process.env.BENCH_LICENSES ?? 100_000);
const issuedAt = new Date('2026-05-01T00:00:00.000Z');
const now = new Date('2026-06-01T12:00:00.000Z');

const stores = memoryLicenseStores();
for (let i = 0; i < count; i++) {
  await stores.licenses.issue({ license: newLicense({ expires_at: issuedAt }), now: issuedAt });
}
const calls = { pastDue: 0, expirePastDue: 0 };
/** CPU spent in the in-memory stores (their scans stand for the database's work): left out. */
let storeMicros = 0;
async function counted<T>(name: keyof typeof calls, call: () => Promise<T>): Promise<T> {
  calls[name]++;
  const before = process.cpuUsage();
  try {
    return await call();
  } finally {
    const spent = process.cpuUsage(before);
    storeMicros += spent.user + spent.system;
  }
}
const { pastDue, expirePastDue } = stores.licenses;
stores.licenses.pastDue = (query) => counted('pastDue', () => pastDue.call(stores.licenses, query));
stores.licenses.expirePastDue = (batch) =>
  counted('expirePastDue', () => expirePastDue.call(stores.licenses, batch));
const logger = createLogger('bench', 'silent');
const transport = new FakeTransport(() => now);
const events = publishedEvents(domainEventPublisher(transport, logger), logger);

const cpu = process.cpuUsage();
const started = performance.now();
const expired = await expireLicenses({ stores, events }, now);
const wall = performance.now() - started;
const used = process.cpuUsage(cpu);

// Nothing else runs meanwhile, so the CPU spent while a store call was awaited is the store's.
const task = used.user + used.system - storeMicros;
const perLicense = (n: number) => (n / expired).toFixed(4);
process.stdout.write(
  [
    `| Licenses expired | ${expired} (batches of ${EXPIRY_BATCH}) |`,
    `| Events published | ${transport.domainEventsOf('license.expired').length} |`,
    `| Selections (\`find\`) | ${calls.pastDue} (${perLicense(calls.pastDue)} per license) |`,
    `| Writes (\`update\`) | ${calls.expirePastDue} (${perLicense(calls.expirePastDue)} per license) |`,
    `| CPU of the task, the stores' left out | ${(task / 1000).toFixed(0)} ms, ${(task / expired).toFixed(1)} µs per license |`,
    `| Wall time (in-memory stores) | ${wall.toFixed(0)} ms |`,
    '',
  ].join('\n'),
);
