import { rpcMethods, type ImportOptions, type MethodName } from '../../libs/contracts/index.js';
import type {
  ImportedLicense,
  ImportRecord,
} from '../../services/management/imports/imported-license.js';
import { runImport, type ImportTransport } from '../../services/management/imports/import-run.js';
import { catalog, service, waiting } from '../support/license-handler-harness.js';

/**
 * An import run on the license service's handlers (in memory) behind a transport: products and
 * plans resolved, records sent in batches, and the report of what each row became.
 */

function system() {
  const license = service();
  const calls: string[] = [];
  const transport = {
    call: async (method: MethodName, request: unknown) => {
      calls.push(method);
      if (method === 'update-catalog.listProducts') return { products: catalog };
      const handler = license.handlers[method as keyof typeof license.handlers] as (
        request: unknown,
        context: typeof waiting,
      ) => Promise<unknown>;
      return handler(rpcMethods[method].request.parse(request), waiting);
    },
  } as unknown as ImportTransport;
  return { license, transport, calls };
}

let line = 1;
function record(fields: Partial<ImportedLicense> = {}): ImportedLicense {
  line += 1;
  return {
    source: 'csv',
    source_id: `key-${line}`,
    line,
    license_key: `Key ${line}`,
    product: '10',
    plan: 'Agency',
    plan_hint: null,
    status: 'active',
    expires_at: null,
    activation_limit: null,
    customer: { email: null, name: 'No address' },
    parent_key: null,
    activations: [],
    ...fields,
  };
}

async function* stream(records: unknown[]): AsyncIterable<unknown> {
  for (const r of records) yield r;
}

const options = (fields: Partial<ImportOptions> = {}): ImportOptions => ({
  source: 'csv',
  dry_run: false,
  update: false,
  create_plans: false,
  products: {},
  plans: {},
  ...fields,
});

test('licenses go in batches; a second run is matched; the counts say so', async () => {
  const { license, transport, calls } = system();
  await license.plan({ name: 'Agency' });
  const records = Array.from({ length: 5 }, () => record());
  const first = await runImport({
    records: stream(records),
    options: options(),
    transport,
    batchSize: 2,
  });
  expect(first.counts).toEqual({
    created: 5,
    matched: 0,
    updated: 0,
    conflicts: 0,
    refused: 0,
    skipped: 0,
  });
  expect(calls.filter((c) => c === 'license.importLicenses')).toHaveLength(3);
  const again = await runImport({ records: stream(records), options: options(), transport });
  expect(again.counts).toMatchObject({ created: 0, matched: 5 });
  expect(await license.detail(records[0]!.license_key)).toMatchObject({
    imported_from: { source: 'csv' },
    customer: null,
  });
});

test('a refused record, an unknown product or plan and a conflict are each listed with line and reason', async () => {
  const { license, transport } = system();
  await license.plan({ name: 'Agency' });
  const stored = record();
  await runImport({ records: stream([stored]), options: options(), transport });
  const refused: ImportRecord = {
    refused: true,
    source: 'csv',
    line: 40,
    source_id: null,
    reason: 'expires_at is not a date: 2024-13-45',
  };
  const noProduct = record({ product: 'edd-download-9' });
  const noPlan = record({ plan: 'Gold' });
  const report = await runImport({
    records: stream([
      refused,
      noProduct,
      noPlan,
      { ...stored, status: 'revoked' },
      { ...stored, line: 77 },
    ]),
    options: options(),
    transport,
  });
  expect(report.counts).toEqual({
    created: 0,
    matched: 0,
    updated: 0,
    conflicts: 1,
    refused: 3,
    skipped: 1,
  });
  expect(report.rows.map((r) => [r.line, r.outcome, r.reason])).toEqual([
    [40, 'refused', 'expires_at is not a date: 2024-13-45'],
    [noProduct.line, 'refused', 'Product edd-download-9 is no product here.'],
    [noPlan.line, 'refused', 'Plan Gold is no plan here.'],
    [stored.line, 'conflict', 'A license with this key exists with another status.'],
  ]);
  expect(report.unknown_products).toEqual(['edd-download-9']);
  expect(report.unknown_plans).toEqual(['Gold']);
});

test('products and plans are resolved by the mappings given, then by id and by name', async () => {
  const { license, transport } = system();
  const gold = await license.plan({ name: 'Gold Plan' });
  const mapped = record({ product: 'download-5', plan: '3' });
  const byName = record({
    plan: null,
    plan_hint: { name: ' gold  plan', activation_type: null, activation_limit: null },
  });
  const report = await runImport({
    records: stream([mapped, byName]),
    options: options({ products: { 'download-5': 11 }, plans: { '3': gold.id } }),
    transport,
  });
  expect(report.counts).toMatchObject({ created: 2, refused: 0 });
  expect(await license.detail(mapped.license_key)).toMatchObject({
    product_id: 11,
    plan_id: gold.id,
  });
  expect(await license.detail(byName.license_key)).toMatchObject({
    product_id: 10,
    plan_id: gold.id,
  });
});

test('create_plans makes a plan unknown here from what the source says of it, once', async () => {
  const { license, transport } = system();
  const hint = { name: 'Five sites', activation_type: 'domain' as const, activation_limit: 5 };
  const records = [record({ plan: '2', plan_hint: hint }), record({ plan: '2', plan_hint: hint })];
  const refused = await runImport({ records: stream(records), options: options(), transport });
  expect(refused.counts).toMatchObject({ refused: 2 });
  const dry = await runImport({
    records: stream(records),
    options: options({ create_plans: true, dry_run: true }),
    transport,
  });
  expect(dry).toMatchObject({
    counts: { created: 2 },
    plans_created: [{ id: null, name: 'Five sites' }],
  });
  const made = await runImport({
    records: stream(records),
    options: options({ create_plans: true }),
    transport,
  });
  expect(made.counts).toMatchObject({ created: 2, refused: 0 });
  expect(made.plans_created).toEqual([{ id: expect.any(Number), name: 'Five sites' }]);
  expect(await license.detail(records[0]!.license_key)).toMatchObject({
    activation_limit: 5,
    activation_type: 'domain',
  });
});

test('a value that is not of the readers’ shape is refused, not sent', async () => {
  const { transport, calls } = system();
  const report = await runImport({
    records: stream([{ line: 3, license_key: 'x' }]),
    options: options(),
    transport,
  });
  expect(report.counts.refused).toBe(1);
  expect(report.rows[0]).toMatchObject({ line: 3, outcome: 'refused' });
  expect(calls).not.toContain('license.importLicenses');
});
