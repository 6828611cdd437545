import type { Connection } from 'mongoose';
import { recordedEvents } from '../support/license-handler-harness.js';
import {
  licenseCollection,
  licenseModels,
  type LicenseModels,
} from '../../services/license/models.js';
import { MongoLicenseStore } from '../../services/license/licenses/mongo-license-store.js';
import { MongoPlanStore } from '../../services/license/plans/mongo-plan-store.js';
import { MongoRejectedAttemptStore } from '../../services/license/mongo-stores.js';
import { Sequences } from '../../libs/database/index.js';
import {
  REJECTED_ATTEMPT_RETENTION_MS,
  TASK_EXPIRE_LICENSES,
  TASK_PRUNE_REJECTED_ATTEMPTS,
  TASK_RELEASE_LAPSED_ACTIVATIONS,
  expireLicenses,
  pruneRejectedAttempts,
  type TaskStores,
} from '../../services/license/lifecycle/scheduled-tasks.js';
import { bootSystem, type TestSystem } from '../support/system.js';
import { databaseOf } from '../support/databases.js';

const PAST = '2020-01-01T00:00:00.000Z';
const FUTURE = '2099-01-01T00:00:00.000Z';
const DAY = 24 * 60 * 60 * 1000;

/** The license service's own database, to read what is stored rather than what is reported. */
async function licenseDatabase(system: TestSystem) {
  const db = await databaseOf(system, 'license');
  const models = licenseModels(db);
  // The tasks work on the service's stores; the test reads the records through the models.
  const stores = {
    licenses: new MongoLicenseStore(licenseCollection(models.License)),
    plans: new MongoPlanStore(models.Plan, new Sequences(db)),
    rejectedAttempts: new MongoRejectedAttemptStore(models.RejectedAttempt),
  };
  return { db, models, stores };
}

describe('scheduled tasks (Reminders & Expiration)', () => {
  let system: TestSystem;
  let db: Connection;
  let models: LicenseModels;
  let stores: TaskStores;
  beforeAll(async () => {
    // The scheduler is off here: the tests call the tasks directly.
    system = await bootSystem();
    ({ db, models, stores } = await licenseDatabase(system));
  });
  afterAll(async () => {
    await db?.close();
    await system?.stop();
  });

  const stored = async (key: string) =>
    (await models.License.findOne({ license_key: key }).lean())!.status;

  test('spec 3.1: an active license past its expiry date becomes expired; no other changes', async () => {
    const due = await system.license({ expires_at: PAST });
    const later = await system.license({ expires_at: FUTURE });
    const never = await system.license({ expires_at: null });
    const suspended = await system.license({ status: 'suspended', expires_at: PAST });
    expect(await stored(due.key)).toBe('active');

    expect(
      await expireLicenses({ stores, events: recordedEvents() }, new Date()),
    ).toBeGreaterThanOrEqual(1);
    expect(await stored(due.key)).toBe('expired');
    expect(await stored(later.key)).toBe('active');
    expect(await stored(never.key)).toBe('active');
    expect(await stored(suspended.key)).toBe('suspended');
  });

  test('expiry strategies: a license of a plan with grace days expires once its grace has ended', async () => {
    const { product } = await system.license();
    const plan = await system.transport.call('license.createPlan', {
      name: `Graced ${Date.now()}`,
      activation_type: 'domain',
      activation_limit: 1,
      grace_days: 7,
    });
    const licenseExpired = async (daysAgo: number) =>
      (
        await system.transport.call('license.createLicense', {
          product_id: product.id,
          plan_id: plan.id,
          status: 'active',
          expires_at: new Date(Date.now() - daysAgo * DAY).toISOString(),
        })
      ).license_key;
    const inGrace = await licenseExpired(2);
    const pastGrace = await licenseExpired(8);
    const events = recordedEvents();
    await expireLicenses({ stores, events }, new Date());
    expect(await stored(inGrace)).toBe('active');
    expect(await stored(pastGrace)).toBe('expired');
    const keys = events.ofType('license.expired').map((e) => e.data.license_key);
    expect(keys).toContain(pastGrace);
    expect(keys).not.toContain(inGrace);
    // The license entering its grace is announced, once per expiry date.
    const graced = events
      .ofType('license.grace_started')
      .filter((e) => e.data.license_key === inGrace);
    expect(graced.map((e) => e.data.grace_ends_at)).toHaveLength(1);
    expect(graced[0]!.data).toMatchObject({ status: 'active', license_key: inGrace });
    const again = recordedEvents();
    await expireLicenses({ stores, events: again }, new Date());
    expect(again.ofType('license.grace_started').map((e) => e.data.license_key)).not.toContain(
      inGrace,
    );
  });

  test('spec 3.1: validate reports expired before and after the task alike', async () => {
    const { key } = await system.license({ expires_at: PAST });
    const before = await system.post('validate', { license_key: key });
    await expireLicenses({ stores, events: recordedEvents() }, new Date());
    const after = await system.post('validate', { license_key: key });
    expect(before.body.data).toMatchObject({ valid: false, status: 'expired' });
    expect(after.body.data).toEqual(expect.objectContaining({ valid: false, status: 'expired' }));
  });

  test('spec 2.5: rejected-attempt rows untouched for 90 days are removed, fresher ones stay', async () => {
    const { key } = await system.license({ expires_at: PAST });
    await system.post('activate', { license_key: key, identifier: 'old.example' });
    await system.post('activate', { license_key: key, identifier: 'recent.example' });
    const now = Date.now();
    // recent.example was tried again ten days later.
    await models.RejectedAttempt.updateOne(
      { license_key: key, identifier_key: 'recent.example' },
      { $set: { last_attempt_at: new Date(now + 10 * DAY) } },
    );
    const rows = async () =>
      (await models.RejectedAttempt.find({ license_key: key }).lean()).map((r) => r.identifier);

    await pruneRejectedAttempts({ stores, events: recordedEvents() }, new Date(now + 89 * DAY));
    expect((await rows()).sort()).toEqual(['old.example', 'recent.example']);

    await pruneRejectedAttempts(
      { stores, events: recordedEvents() },
      new Date(now + REJECTED_ATTEMPT_RETENTION_MS + 1000),
    );
    expect(await rows()).toEqual(['recent.example']);
  });
});

describe('the scheduler runs the tasks by itself (Agenda)', () => {
  let system: TestSystem;
  let db: Connection;
  let models: LicenseModels;
  beforeAll(async () => {
    system = await bootSystem({
      SCHEDULED_TASKS: 'on',
      EXPIRY_TASK_EVERY: '1 second',
      SCHEDULER_POLL_EVERY: '1 second',
      // Agenda keeps a timer of half this after each run; a short one lets the test process end.
      SCHEDULED_TASK_TIMEOUT: '2 seconds',
    });
    ({ db, models } = await licenseDatabase(system));
  });
  afterAll(async () => {
    await db?.close();
    await system?.stop();
  });

  test('every task is scheduled, and an expired license is marked without any call', async () => {
    const { key } = await system.license({ expires_at: PAST });
    let status: string | undefined;
    for (let i = 0; i < 60 && status !== 'expired'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      status = (await models.License.findOne({ license_key: key }).lean())?.status;
    }
    expect(status).toBe('expired');
    const tasks = await db.collection('scheduled_tasks').distinct('name');
    expect(tasks.sort()).toEqual(
      [TASK_EXPIRE_LICENSES, TASK_PRUNE_REJECTED_ATTEMPTS, TASK_RELEASE_LAPSED_ACTIVATIONS].sort(),
    );
  });
});

describe('SCHEDULED_TASKS=off', () => {
  test('a replica with the tasks off schedules nothing', async () => {
    const system = await bootSystem({ SCHEDULED_TASKS: 'off' });
    const { db } = await licenseDatabase(system);
    try {
      expect(await db.collection('scheduled_tasks').countDocuments()).toBe(0);
    } finally {
      await db.close();
      await system.stop();
    }
  });
});
