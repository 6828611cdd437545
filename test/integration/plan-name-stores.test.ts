import { defaultExpiryTerms } from '../../libs/contracts/index.js';
import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectDatabase } from '../../libs/database/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { openMongoStores } from '../../services/license/mongo-stores.js';
import type { PlanRecord } from '../../services/license/records.js';
import { dropOwnDatabase } from '../support/databases.js';
import { memoryLicenseStores } from '../../bench/support/license-memory-stores.js';
import { describeStoreContract } from '../support/store-contract.js';

/**
 * Plan names are unique (docs/api-decisions.md, "Plan names"), kept so by the plan store's write
 * (a unique index on the name's key in MongoDB), and plans stored under one name before the rule
 * renamed when the service starts.
 */

const NOW = new Date('2026-06-01T12:00:00.000Z');
const silent = createLogger('test', 'silent');
const terms = {
  activation_type: 'domain' as const,
  activation_limit: 1,
  lease_seconds: null,
  entitlements: [],
  exempt_identifiers: [],
  exempt_limit: 3,
  max_uses: null,
  uses_reset: 'never' as const,
  ...defaultExpiryTerms,
};

describeStoreContract(
  'plan names are unique, compared without letter case and extra white space',
  {
    service: 'license',
    openMongo: (db) => openMongoStores(db, silent),
    inMemory: memoryLicenseStores,
  },
  (stores) => {
    async function create(name: string): Promise<PlanRecord> {
      const created = await stores().plans.create({ plan: { ...terms, name }, now: NOW });
      if (created.outcome !== 'created') throw new Error(`${name}: ${created.outcome}`);
      return created.plan;
    }

    test('a plan named as another, in any spelling, creates nothing and names the plan that has it', async () => {
      const single = await create('Single site');
      for (const name of ['Single site', ' single  SITE ', 'Single\u00a0site']) {
        expect(await stores().plans.create({ plan: { ...terms, name }, now: NOW })).toEqual({
          outcome: 'name-taken',
          holder: single,
        });
      }
      expect(await stores().plans.list()).toEqual([single]);
    });

    test('creations of one name at the same time: exactly one is created, the others told which plan has it', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 5 }, () =>
          stores().plans.create({ plan: { ...terms, name: 'Agency' }, now: NOW }),
        ),
      );
      const created = outcomes.flatMap((o) => (o.outcome === 'created' ? [o.plan] : []));
      expect(created).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === 'name-taken')).toEqual(
        Array.from({ length: 4 }, () => ({ outcome: 'name-taken', holder: created[0] })),
      );
      expect(await stores().plans.list()).toEqual(created);
    });

    test("a rename to another plan's name changes nothing; to its own in another spelling, it is made", async () => {
      const single = await create('Single site');
      const three = await create('Three sites');
      expect(
        await stores().plans.update({ id: three.id, changes: { name: 'SINGLE site' } }),
      ).toEqual({ outcome: 'name-taken', holder: single });
      expect(await stores().plans.find(three.id)).toEqual(three);
      expect(
        await stores().plans.update({ id: single.id, changes: { name: 'Single Site' } }),
      ).toEqual({ outcome: 'updated', plan: { ...single, name: 'Single Site' } });
      // The old name is free again.
      await create('Three  SITES (old)');
    });
  },
);

describe('plans stored under one name before names were unique', () => {
  test('are renamed when the service starts, the first stored keeping the name, one log line each', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('test', {
      level: 'info',
      format: 'json',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    const prefix = `t${randomBytes(4).toString('hex')}`;
    const start = () => connectDatabase(process.env.MONGODB_URL!, prefix, 'license');
    const db = await start();
    let later: Connection | undefined;
    try {
      // As plans were stored before: no key of their name.
      const stored = (id: number, name: string) => ({ _id: id, name, ...terms, created_at: NOW });
      await db
        .db!.collection<{ _id: number }>('plans')
        .insertMany([
          stored(1, 'Basic'),
          stored(2, ' basic '),
          stored(3, 'Basic (2)'),
          stored(4, 'Pro'),
          stored(5, 'BASIC'),
        ]);
      const stores = await openMongoStores(db, logger);
      expect((await stores.plans.list()).map((plan) => [plan.id, plan.name])).toEqual([
        [1, 'Basic'],
        [2, 'basic (3)'],
        [3, 'Basic (2)'],
        [4, 'Pro'],
        [5, 'BASIC (4)'],
      ]);
      const renamed = lines.filter((line) => line.plan_id !== undefined);
      expect(renamed).toEqual([
        expect.objectContaining({
          plan_id: 2,
          previous_name: ' basic ',
          name: 'basic (3)',
          kept_by: 1,
        }),
        expect.objectContaining({
          plan_id: 5,
          previous_name: 'BASIC',
          name: 'BASIC (4)',
          kept_by: 1,
        }),
      ]);
      expect(renamed.every((line) => line.level === 'warn' || line.level === 40)).toBe(true);
      // The rule holds from then on.
      expect(
        await stores.plans.create({ plan: { ...terms, name: 'basic' }, now: NOW }),
      ).toMatchObject({ outcome: 'name-taken', holder: { id: 1 } });
      // A later start renames nothing and says nothing.
      lines.length = 0;
      later = await start();
      await openMongoStores(later, logger);
      expect(lines.filter((line) => line.plan_id !== undefined)).toEqual([]);
    } finally {
      await later?.close();
      await dropOwnDatabase(db);
    }
  });
});
