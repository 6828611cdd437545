import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectDatabase } from '../../libs/database/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { openMongoStores } from '../../services/license/mongo-stores.js';
import { expireLicenses } from '../../services/license/lifecycle/scheduled-tasks.js';
import type { LicenseStores } from '../../services/license/stores.js';
import { monitorCommands, monitoredMongoUrl } from '../support/command-monitor.js';
import { dropOwnDatabase } from '../support/databases.js';
import { recordedEvents } from '../support/license-handler-harness.js';
import { newLicense } from '../../bench/support/license-store-fixtures.js';
import { memoryLicenseStores } from '../../bench/support/license-memory-stores.js';
import { describeStoreContract } from '../support/store-contract.js';

/**
 * Spec 3.1, the expiry task (services/license/lifecycle/scheduled-tasks.ts `expireLicenses`): licenses
 * expired a batch at a time, one write per batch, one `license.expired` event per license.
 */

const silent = createLogger('test', 'silent');
const NOW = new Date('2026-06-01T12:00:00.000Z');
const EARLIER = new Date('2026-05-01T00:00:00.000Z');
const LATER = new Date('2027-01-01T00:00:00.000Z');

async function issuePastDue(stores: LicenseStores, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const issued = await stores.licenses.issue({
      license: newLicense({ expires_at: EARLIER }),
      now: EARLIER,
    });
    if (issued.outcome !== 'issued') throw new Error('not issued');
    keys.push(issued.license.license_key);
  }
  return keys;
}

describeStoreContract(
  'spec 3.1: the expiry task, a batch at a time',
  {
    service: 'license',
    openMongo: (db) => openMongoStores(db, silent),
    inMemory: memoryLicenseStores,
  },
  (stores) => {
    test('a license renewed between its selection and the write is not expired; the others are', async () => {
      const [renewed, ...others] = await issuePastDue(stores(), 3);
      const due = await stores().licenses.pastDue({ now: NOW, limit: 10 });
      expect(due).toHaveLength(3);
      await stores().licenses.update({
        licenseKey: renewed!,
        changes: { expires_at: LATER },
        now: NOW,
      });
      const expired = await stores().licenses.expirePastDue({ licenses: due, now: NOW });
      expect(expired.map((license) => license.license_key).sort()).toEqual([...others].sort());
      expect(await stores().licenses.findByKey(renewed!)).toMatchObject({
        status: 'active',
        expires_at: LATER,
      });
    });

    test('every license past due is expired, each with exactly one license.expired event', async () => {
      const keys = await issuePastDue(stores(), 9);
      const events = recordedEvents();
      expect(await expireLicenses({ stores: stores(), events }, NOW, 4)).toBe(9);
      const said = events.ofType('license.expired').map((event) => event.data.license_key);
      expect(said.sort()).toEqual([...keys].sort());
      expect(events.ofType('license.expired').every((e) => e.data.status === 'expired')).toBe(true);
      // Nothing is left: a run again expires none and says nothing.
      expect(await expireLicenses({ stores: stores(), events }, NOW, 4)).toBe(0);
      expect(events.published).toHaveLength(9);
    });
  },
);

describe('spec 3.1: the expiry task on MongoDB, in commands', () => {
  const prefix = `t${randomBytes(4).toString('hex')}`;
  let db: Connection;
  let stores: LicenseStores;
  beforeAll(async () => {
    db = await connectDatabase(monitoredMongoUrl(), prefix, 'license');
    stores = await openMongoStores(db, silent);
  });
  afterAll(async () => {
    if (db) await dropOwnDatabase(db);
  });

  test('N licenses past due take ceil(N / batch) writes, and one read per batch', async () => {
    await issuePastDue(stores, 25);
    const commands = monitorCommands(prefix);
    expect(await expireLicenses({ stores, events: recordedEvents() }, NOW, 10)).toBe(25);
    const onLicenses = commands.filter((c) => c.collection === 'licenses');
    expect(onLicenses.filter((c) => c.name === 'update')).toHaveLength(Math.ceil(25 / 10));
    expect(onLicenses.map((c) => c.name).sort()).toEqual([
      ...Array(3).fill('find'),
      ...Array(3).fill('update'),
    ]);
  });
});
