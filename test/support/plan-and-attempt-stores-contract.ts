import { defaultExpiryTerms } from '../../libs/contracts/index.js';
import { randomBytes } from 'node:crypto';
import type { TaskRunRecord } from '../../services/license/records.js';
import {
  DAY,
  EARLIER,
  LATER,
  NOW,
  NO_LEASE,
  uniqueKey,
  withOpened,
  withStores,
  type OpenStores,
} from '../../bench/support/license-store-fixtures.js';

/**
 * What every implementation of the license service's other stores must do
 * (services/license/stores.ts): plans, rejected attempts and the runs of the scheduled tasks, run
 * against each of them with the same body.
 */
export function describePlanAndAttemptStores(implementation: string, open: OpenStores): void {
  describe(`${implementation}: plans (spec 2.1)`, () => {
    const stores = withStores(open);
    // Plan names are unique: each plan of the group has its own.
    const plans = () => ({
      name: `Agency ${randomBytes(4).toString('hex')}`,
      activation_type: 'domain' as const,
      activation_limit: 25,
      ...NO_LEASE,
      max_uses: null,
      uses_reset: 'never' as const,
      entitlements: [] as string[],
      ...defaultExpiryTerms,
    });

    test('plans get ids from a sequence, are found by id and listed by id', async () => {
      const plan = plans();
      const first = await stores().plans.create({ now: NOW, plan });
      const second = await stores().plans.create({ now: NOW, plan: plans() });
      if (first.outcome !== 'created' || second.outcome !== 'created')
        throw new Error('not created');
      // A plan created without a trial length issues no trials.
      expect(first.plan).toEqual({
        ...plan,
        trial_days: null,
        id: expect.any(Number),
        created_at: expect.any(Date),
      });
      expect(second.plan.id).toBeGreaterThan(first.plan.id);
      expect(await stores().plans.find(first.plan.id)).toEqual(first.plan);
      const listed = await stores().plans.list();
      expect(listed.map((p) => p.id)).toEqual([...listed.map((p) => p.id)].sort((a, b) => a - b));
      expect(listed).toEqual(expect.arrayContaining([first.plan, second.plan]));
    });

    test('a trial length is stored, changed and cleared', async () => {
      const created = await stores().plans.create({
        now: NOW,
        plan: { ...plans(), trial_days: 14 },
      });
      if (created.outcome !== 'created') throw new Error('not created');
      expect(created.plan.trial_days).toBe(14);
      expect((await stores().plans.find(created.plan.id))?.trial_days).toBe(14);
      const cleared = await stores().plans.update({
        id: created.plan.id,
        changes: { trial_days: null },
      });
      expect(cleared).toMatchObject({ outcome: 'updated', plan: { trial_days: null } });
      expect((await stores().plans.find(created.plan.id))?.trial_days).toBeNull();
    });

    test('a chosen id is used; a chosen id already taken creates nothing', async () => {
      const id = 900_000 + Math.floor(Math.random() * 1000);
      const plan = plans();
      expect(await stores().plans.create({ now: NOW, plan, id })).toMatchObject({
        outcome: 'created',
        plan: { id },
      });
      expect(await stores().plans.create({ now: NOW, plan: plans(), id })).toEqual({
        outcome: 'id-taken',
      });
      expect((await stores().plans.find(id))?.name).toBe(plan.name);
    });

    test('the sequence skips ids an admin chose', async () => {
      const before = await stores().plans.create({ now: NOW, plan: plans() });
      if (before.outcome !== 'created') throw new Error('not created');
      await stores().plans.create({ now: NOW, plan: plans(), id: before.plan.id + 1 });
      const after = await stores().plans.create({ now: NOW, plan: plans() });
      expect(after).toMatchObject({ outcome: 'created', plan: { id: before.plan.id + 2 } });
    });

    test('an unknown id finds nothing', async () => {
      expect(await stores().plans.find(987_654_321)).toBeNull();
    });

    test('a write check that throws stops the creation before anything is written', async () => {
      const count = (await stores().plans.list()).length;
      const plan = plans();
      const stop = () => {
        throw new Error('deadline passed');
      };
      await expect(
        stores().plans.create({ now: NOW, plan, beforeEachWrite: stop }),
      ).rejects.toThrow('deadline passed');
      await expect(
        stores().plans.create({ now: NOW, plan, id: 990_001, beforeEachWrite: stop }),
      ).rejects.toThrow('deadline passed');
      expect(await stores().plans.list()).toHaveLength(count);
    });
  });

  describe(`${implementation}: rejected attempts (spec 2.5)`, () => {
    const stores = withStores(open);
    const record = (licenseKey: string, identifier: string, at = NOW) =>
      stores().rejectedAttempts.record({
        licenseKey,
        identifier,
        name: null,
        reason: 'limit_reached',
        source: 'api',
        at,
      });

    test('one row per identifier, in any letter case, with its count of tries', async () => {
      const licenseKey = uniqueKey();
      await record(licenseKey, 'PC-One', EARLIER);
      await record(licenseKey, 'pc-one', NOW);
      await record(licenseKey, 'PC-Two', EARLIER);
      expect(await stores().rejectedAttempts.listForLicense(licenseKey)).toEqual([
        {
          license_key: licenseKey,
          identifier: 'pc-one',
          identifier_key: 'pc-one',
          name: null,
          reason: 'limit_reached',
          source: 'api',
          tries: 2,
          last_attempt_at: NOW,
        },
        {
          license_key: licenseKey,
          identifier: 'PC-Two',
          identifier_key: 'pc-two',
          name: null,
          reason: 'limit_reached',
          source: 'api',
          tries: 1,
          last_attempt_at: EARLIER,
        },
      ]);
    });

    test("a row keeps the last try's name, reason and source", async () => {
      const licenseKey = uniqueKey();
      const attempts = stores().rejectedAttempts;
      await attempts.record({
        licenseKey,
        identifier: 'shop.example',
        name: 'Main shop',
        reason: 'limit_reached',
        source: 'api',
        at: EARLIER,
      });
      await attempts.record({
        licenseKey,
        identifier: 'shop.example',
        name: null,
        reason: 'expired',
        source: 'admin',
        at: NOW,
      });
      expect(await attempts.listForLicense(licenseKey)).toEqual([
        expect.objectContaining({ name: null, reason: 'expired', source: 'admin', tries: 2 }),
      ]);
    });

    test('rows belong to their license', async () => {
      const [one, other] = [uniqueKey(), uniqueKey()];
      await record(one, 'a.com');
      await record(other, 'a.com');
      expect(await stores().rejectedAttempts.listForLicense(one)).toHaveLength(1);
      expect(await stores().rejectedAttempts.listForLicense(uniqueKey())).toEqual([]);
    });

    test('first refusals that race count as tries of one row', async () => {
      const licenseKey = uniqueKey();
      await Promise.all(Array.from({ length: 5 }, () => record(licenseKey, 'a.com')));
      expect(await stores().rejectedAttempts.listForLicense(licenseKey)).toEqual([
        expect.objectContaining({ identifier: 'a.com', tries: 5 }),
      ]);
    });

    test('a write check that throws stops the record before anything is written', async () => {
      const licenseKey = uniqueKey();
      await expect(
        stores().rejectedAttempts.record({
          licenseKey,
          identifier: 'a.com',
          name: null,
          reason: 'expired',
          source: 'api',
          at: NOW,
          beforeEachWrite: () => {
            throw new Error('deadline passed');
          },
        }),
      ).rejects.toThrow('deadline passed');
      expect(await stores().rejectedAttempts.listForLicense(licenseKey)).toEqual([]);
    });

    test('rows untouched since a date, that date included, are pruned; fresher ones stay', async () => {
      const licenseKey = uniqueKey();
      const cutoff = new Date(NOW.getTime() - 90 * DAY);
      await record(licenseKey, 'old.example', new Date(cutoff.getTime() - DAY));
      await record(licenseKey, 'edge.example', cutoff);
      await record(licenseKey, 'recent.example', new Date(cutoff.getTime() + 1));
      expect(await stores().rejectedAttempts.pruneUntouchedSince(cutoff)).toBe(2);
      expect(
        (await stores().rejectedAttempts.listForLicense(licenseKey)).map((r) => r.identifier),
      ).toEqual(['recent.example']);
    });
  });

  describe(`${implementation}: scheduled task runs (spec 2.5, 3.1)`, () => {
    const opened = withOpened(open);
    const stores = () => opened().stores;
    const run = (overrides: Partial<TaskRunRecord> = {}): TaskRunRecord => ({
      name: 'license-expiry',
      ran_at: NOW,
      trigger: 'scheduled',
      affected: 3,
      error: null,
      ...overrides,
    });

    test('no task has run yet', async () => {
      expect(await stores().taskRuns.lastRuns()).toEqual([]);
    });

    test('each task keeps its last run, one per task; a later run replaces it', async () => {
      await stores().taskRuns.recordRun(run({ ran_at: EARLIER }));
      await stores().taskRuns.recordRun(run({ name: 'rejected-attempt-pruning', affected: 0 }));
      await stores().taskRuns.recordRun(run({ trigger: 'on-demand', affected: 1 }));
      const runs = await stores().taskRuns.lastRuns();
      expect(runs).toHaveLength(2);
      expect(runs).toEqual(
        expect.arrayContaining([
          run({ trigger: 'on-demand', affected: 1 }),
          run({ name: 'rejected-attempt-pruning', affected: 0 }),
        ]),
      );
    });

    test('a run that started before the one kept is not kept', async () => {
      await stores().taskRuns.recordRun(run({ ran_at: LATER, affected: 5 }));
      await stores().taskRuns.recordRun(run({ ran_at: NOW, affected: 9 }));
      expect((await stores().taskRuns.lastRuns()).find((r) => r.name === 'license-expiry')).toEqual(
        run({ ran_at: LATER, affected: 5 }),
      );
    });

    test('a failed run is kept with its error and no count', async () => {
      const failed = run({
        name: 'rejected-attempt-pruning',
        ran_at: LATER,
        affected: null,
        error: 'database unavailable',
      });
      await stores().taskRuns.recordRun(failed);
      expect(
        (await stores().taskRuns.lastRuns()).find((r) => r.name === 'rejected-attempt-pruning'),
      ).toEqual(failed);
    });

    test("the next scheduled run is the scheduler's record of the job; none without one", async () => {
      expect(await stores().taskRuns.nextScheduledRun({ jobName: 'license.some-job' })).toBeNull();
      await opened().scheduleJob('license.some-job', LATER);
      await opened().scheduleJob('license.other-job', null);
      expect(await stores().taskRuns.nextScheduledRun({ jobName: 'license.some-job' })).toEqual(
        LATER,
      );
      expect(await stores().taskRuns.nextScheduledRun({ jobName: 'license.other-job' })).toBeNull();
    });
  });
}
