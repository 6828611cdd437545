import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { licenseIndexes } from '../../services/license/licenses/license-indexes.js';
import { SCHEDULED_TASKS_COLLECTION, type LicenseDocument } from '../../services/license/models.js';
import { NEWEST_FIRST } from '../../services/license/admin/license-read-model.js';
import { activationBytes } from '../../services/license/licenses/mongo-license-documents.js';
import { countStoredActivations, openMongoStores } from '../../services/license/mongo-stores.js';
import type { LicenseStores } from '../../services/license/stores.js';
import { connectDatabase } from '../../libs/database/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { monitorCommands, monitoredMongoUrl } from '../support/command-monitor.js';
import { dropOwnDatabase, ownDatabase } from '../support/databases.js';
import { describeLeaseStores } from '../support/lease-store-contract.js';
import { describeActivationStore } from '../support/activation-store-contract.js';
import { describeLicenseReadModel } from '../support/license-read-model-contract.js';
import { describeLicenseStores } from '../support/license-store-contract.js';
import { describeStoreLicenses } from '../support/store-license-contract.js';
import type { OpenStores } from '../../bench/support/license-store-fixtures.js';
import { describePlanAndAttemptStores } from '../support/plan-and-attempt-stores-contract.js';

const openDatabase = () => ownDatabase('license');
const silent = createLogger('test', 'silent');

// The license service's MongoDB stores, each group on a database of its own, dropped after.
const openMongo: OpenStores = async () => {
  const db = await openDatabase();
  return {
    stores: await openMongoStores(db, silent),
    close: () => dropOwnDatabase(db),
    fillRecord: async (licenseKey, bytes) => {
      await db
        .collection('licenses')
        .updateOne({ license_key: licenseKey }, { $set: { activations_bytes: bytes } });
    },
    // The shape of the record Agenda keeps of a recurring job.
    scheduleJob: async (jobName, nextRunAt) => {
      await db
        .collection(SCHEDULED_TASKS_COLLECTION)
        .updateOne(
          { name: jobName },
          { $set: { type: 'single', nextRunAt, priority: 0 } },
          { upsert: true },
        );
    },
  };
};

describeLicenseStores('MongoDB stores', openMongo);
describeStoreLicenses('MongoDB stores', openMongo);
describeActivationStore('MongoDB stores', openMongo);
describeLicenseReadModel('MongoDB stores', openMongo);
describePlanAndAttemptStores('MongoDB stores', openMongo);
describeLeaseStores('MongoDB stores', openMongo);

describe('MongoDB stores: the stored documents', () => {
  let db: Connection;
  let stores: LicenseStores;
  beforeAll(async () => {
    db = await openDatabase();
    stores = await openMongoStores(db, silent);
  });
  afterAll(async () => {
    if (db) await dropOwnDatabase(db);
  });

  test('the licenses collection has every index of license-indexes.ts licenseIndexes', async () => {
    const indexes = await db.collection('licenses').indexes();
    for (const declared of licenseIndexes) {
      expect(indexes).toContainEqual(
        expect.objectContaining({ key: declared.fields, ...declared.options }),
      );
    }
  });

  test('a license stored before plan changes existed has no pending change, renews and is found', async () => {
    const licenseKey = `legacy-${randomBytes(4).toString('hex')}`;
    const created = new Date('2026-01-01T00:00:00.000Z');
    await db.collection('licenses').insertOne({
      license_key: licenseKey,
      product_id: 10,
      plan_id: 1,
      status: 'expired',
      expires_at: new Date('2026-02-01T00:00:00.000Z'),
      auto_renew: false,
      next_payment_at: null,
      activation_type: 'domain',
      activation_limit: 3,
      activations: [],
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      created_at: created,
      updated_at: created,
    });
    const license = await stores.licenses.findByKey(licenseKey);
    expect(license?.pending_plan_id).toBeNull();
    // Nor had it a customer, metadata or a store sale.
    expect(license).toMatchObject({ customer: null, metadata: {}, store: null });
    const expiresAt = new Date('2027-01-01T00:00:00.000Z');
    expect(
      await stores.licenses.renew({
        licenseKey,
        basis: {
          status: 'expired',
          plan_id: 1,
          pending_plan_id: null,
          expires_at: new Date('2026-02-01T00:00:00.000Z'),
        },
        renewal: { status: 'active', expires_at: expiresAt },
        now: new Date('2026-06-01T00:00:00.000Z'),
      }),
    ).toMatchObject({ status: 'active', expires_at: expiresAt, pending_plan_id: null });
    const found = await stores.licenseReads.search({
      filters: {
        productId: null,
        planId: null,
        status: 'active',
        text: { keyPrefix: 'legacy-', identifierKeys: [], customerEmail: null, exactTexts: [] },
      },
      now: new Date('2026-06-01T00:00:00.000Z'),
      order: NEWEST_FIRST,
      page: 1,
      perPage: 10,
    });
    expect(found.licenses.map((l) => l.license_key)).toEqual([licenseKey]);
  });

  test('a license stored before its activations were counted is counted when the stores open, once', async () => {
    const licenseKey = `uncounted-${randomBytes(4).toString('hex')}`;
    const at = new Date('2026-01-01T00:00:00.000Z');
    const stored = ['a.example', 'b.example'].map((identifier) => ({
      identifier,
      identifier_key: identifier,
      name: null,
      ip: '192.0.2.1',
      activated_at: at,
      last_checkout_at: null,
      lease_expires_at: null,
      exempt: false,
    }));
    await db.collection('licenses').insertOne({
      license_key: licenseKey,
      product_id: 10,
      plan_id: 1,
      status: 'active',
      expires_at: null,
      auto_renew: false,
      next_payment_at: null,
      activation_type: 'domain',
      activation_limit: 2,
      activations: stored,
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      created_at: at,
      updated_at: at,
    });
    // What opening the stores does first, as a start of the service after this one did.
    const licenses = db.db!.collection<LicenseDocument>('licenses');
    expect(await countStoredActivations(licenses)).toBeGreaterThanOrEqual(1);
    const reopened = stores;
    const bytes = stored.reduce((sum, a) => sum + activationBytes(a), 0);
    expect(await reopened.licenses.findByKey(licenseKey)).toMatchObject({
      activations_used: 2,
      activations_bytes: bytes,
    });
    // Counted, its limit holds and a release gives its slot back.
    expect(
      await reopened.licenses.claimSlot({
        licenseKey,
        activation: {
          identifier: 'c.example',
          name: null,
          ip: '',
          activated_at: at,
          lease_expires_at: null,
          exempt: false,
        },
        now: at,
      }),
    ).toBeNull();
    await reopened.licenses.releaseSlot({ licenseKey, activation: stored[0]!, now: at });
    expect(await countStoredActivations(licenses)).toBe(0);
    expect(await reopened.licenses.findByKey(licenseKey)).toMatchObject({
      activations_used: 1,
      activations_bytes: activationBytes(stored[1]!),
    });
  });
});

describe('MongoDB stores: start-up steps done once (services/license/migrations.ts)', () => {
  const prefix = `t${randomBytes(4).toString('hex')}`;
  const start = () => connectDatabase(monitoredMongoUrl(), prefix, 'license');
  const at = new Date('2026-01-01T00:00:00.000Z');
  const licenseKey = `old-shape-${randomBytes(4).toString('hex')}`;
  let later: Connection | undefined;
  afterAll(async () => {
    if (later) await dropOwnDatabase(later);
  });

  test('a license stored without counts before the first start is counted by it; a later start reads no license', async () => {
    const first = await start();
    // As the service stored licenses before their activations were counted.
    await first.collection('licenses').insertOne({
      license_key: licenseKey,
      product_id: 10,
      plan_id: 1,
      status: 'active',
      expires_at: null,
      auto_renew: false,
      next_payment_at: null,
      activation_type: 'domain',
      activation_limit: 2,
      activations: [
        {
          identifier: 'a.example',
          identifier_key: 'a.example',
          name: null,
          ip: '192.0.2.1',
          activated_at: at,
          last_checkout_at: null,
          lease_expires_at: null,
          exempt: false,
        },
      ],
      last_check_at: null,
      last_check_ip: null,
      check_count: 0,
      created_at: at,
      updated_at: at,
    });
    const stores = await openMongoStores(first, silent);
    expect(await stores.licenses.findByKey(licenseKey)).toMatchObject({ activations_used: 1 });
    await first.close();

    later = await start();
    const commands = monitorCommands(prefix);
    const reopened = await openMongoStores(later, silent);
    // Only the collection's and its indexes' set-up: no read of a license, no write.
    const setUp = new Set(['create', 'createIndexes', 'listIndexes']);
    const onLicenses = commands.filter((c) => c.collection === 'licenses');
    expect(onLicenses.filter((c) => !setUp.has(c.name))).toEqual([]);
    expect(await reopened.licenses.findByKey(licenseKey)).toMatchObject({ activations_used: 1 });
  });
});
