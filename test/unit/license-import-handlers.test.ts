import type { ImportLicense, ImportLicensesRequest } from '../../libs/contracts/index.js';
import { abandoned, service, waiting } from '../support/license-handler-harness.js';

/**
 * `license.importLicenses` on the in-memory stores: licenses moved from another system, written
 * once however often a batch is sent, their keys kept byte for byte and found by validate.
 */

let counter = 0;
function entry(planId: number, fields: Partial<ImportLicense> = {}): ImportLicense {
  counter += 1;
  return {
    line: counter,
    imported_from: { source: 'csv', source_id: `row-${counter}` },
    license_key: `imported key ${counter} ÄÖ`,
    product_id: 10,
    plan_id: planId,
    status: 'active',
    expires_at: null,
    activation_limit: null,
    customer: null,
    activations: [{ identifier: 'https://Example.com/', exempt: false, activated_at: null }],
    ...fields,
  };
}

function run(system: ReturnType<typeof service>, request: Partial<ImportLicensesRequest>) {
  return system.handlers['license.importLicenses'](
    { licenses: [], dry_run: false, update: false, ...request },
    waiting,
  );
}

const outcomes = (answer: { results: { outcome: string }[] }) =>
  answer.results.map((r) => r.outcome);

test('a new key is created with its activations, and validate finds it by its exact string', async () => {
  const system = service();
  const plan = await system.plan({ activation_limit: 2 });
  const license = entry(plan.id, {
    activations: [
      { identifier: 'https://www.Example.com/shop', exempt: false, activated_at: null },
      { identifier: 'staging.example.com', exempt: true, activated_at: null },
    ],
  });
  expect(outcomes(await run(system, { licenses: [license] }))).toEqual(['created']);
  const detail = await system.detail(license.license_key);
  expect(detail).toMatchObject({
    license_key: license.license_key,
    activations_used: 1,
    exempt_used: 1,
    imported_from: license.imported_from,
  });
  expect(detail.activations.map((a) => [a.identifier, a.exempt])).toEqual([
    ['example.com', false],
    ['staging.example.com', true],
  ]);
  const valid = await system.validate({
    license_key: license.license_key,
    identifier: 'example.com',
  });
  expect(valid).toMatchObject({ valid: true });
  const otherCase = await system.validate({ license_key: license.license_key.toUpperCase() });
  expect(otherCase).toMatchObject({ valid: false, status: 'invalid' });
});

test('the same batch again is matched and writes nothing', async () => {
  const system = service();
  const plan = await system.plan();
  const licenses = [entry(plan.id), entry(plan.id)];
  await run(system, { licenses });
  const writes = system.stores.writes();
  expect(outcomes(await run(system, { licenses }))).toEqual(['matched', 'matched']);
  expect(system.stores.writes()).toBe(writes);
});

test('a stored key with other data is a conflict, left alone unless update is set', async () => {
  const system = service();
  const plan = await system.plan();
  const first = entry(plan.id);
  await run(system, { licenses: [first] });
  const changed = { ...first, status: 'revoked' as const, activation_limit: 9 };
  const conflict = await run(system, { licenses: [changed] });
  expect(conflict.results).toEqual([
    {
      line: first.line,
      license_key: first.license_key,
      outcome: 'conflict',
      reason: 'A license with this key exists with another status, activation_limit.',
    },
  ]);
  expect(await system.detail(first.license_key)).toMatchObject({ status: 'active' });
  expect(outcomes(await run(system, { licenses: [changed], update: true }))).toEqual(['updated']);
  expect(await system.detail(first.license_key)).toMatchObject({
    status: 'revoked',
    activation_limit: 9,
  });
  expect(outcomes(await run(system, { licenses: [changed] }))).toEqual(['matched']);
});

test('a dry run classifies as a run would and writes nothing', async () => {
  const system = service();
  const plan = await system.plan();
  const stored = entry(plan.id);
  await run(system, { licenses: [stored] });
  const writes = system.stores.writes();
  const answer = await run(system, {
    licenses: [
      stored,
      { ...stored, license_key: 'new one' },
      entry(plan.id, { status: 'expired' }),
    ],
    dry_run: true,
    update: true,
  });
  expect(outcomes(answer)).toEqual(['matched', 'created', 'created']);
  expect(system.stores.writes()).toBe(writes);
  await expect(system.detail('new one')).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

test('unknown products and plans, bad identifiers and keys twice in a batch are refused per row', async () => {
  const system = service();
  const plan = await system.plan();
  const good = entry(plan.id);
  const answer = await run(system, {
    licenses: [
      good,
      entry(plan.id, { product_id: 999 }),
      entry(998),
      entry(plan.id, {
        activations: [{ identifier: 'https://', exempt: false, activated_at: null }],
      }),
      { ...good, line: 99 },
    ],
  });
  expect(answer.results.map((r) => [r.outcome, r.reason])).toEqual([
    ['created', null],
    ['refused', 'Product 999 does not exist.'],
    ['refused', 'Plan 998 does not exist.'],
    ['refused', expect.stringContaining('"https://"')],
    ['refused', `The key is imported already by line ${good.line}.`],
  ]);
});

test('a call whose caller gave up writes nothing', async () => {
  const system = service();
  const plan = await system.plan();
  const license = entry(plan.id);
  const writes = system.stores.writes();
  await expect(
    system.handlers['license.importLicenses'](
      { licenses: [license], dry_run: false, update: false },
      abandoned,
    ),
  ).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  expect(system.stores.writes()).toBe(writes);
});

test("the admin search finds an imported license by its source's id", async () => {
  const system = service();
  const plan = await system.plan();
  const license = entry(plan.id, { imported_from: { source: 'keygen', source_id: 'kg-uuid-1' } });
  await run(system, { licenses: [license, entry(plan.id)] });
  const found = await system.handlers['license.searchLicenses'](
    {
      product_id: null,
      plan_id: null,
      status: null,
      q: 'kg-uuid-1',
      sort: '-created_at',
      page: 1,
      per_page: 20,
    },
    waiting,
  );
  expect(found.licenses.map((l) => l.license_key)).toEqual([license.license_key]);
});
