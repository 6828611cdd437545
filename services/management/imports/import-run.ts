import {
  MAX_IMPORT_BATCH,
  MAX_REPORTED_ROWS,
  type ImportLicense,
  type ImportOptions,
  type ImportReport,
  type ImportReportRow,
} from '../../../libs/contracts/index.js';
import type { Transport } from '../../../libs/transport/index.js';
import { ImportRecord, isRefused, type ImportedLicense } from './imported-license.js';
import {
  importLicense,
  planNameKey,
  planOf,
  planReference,
  planToCreate,
  productOf,
  type KnownCatalog,
} from './import-rules.js';

/** What a run calls: the catalog's products, the license service's plans and its batch write. */
export type ImportTransport = Pick<Transport, 'call'>;

/** What a run reports as it goes: the records read so far. */
export type ImportProgress = (read: number) => void;

async function knownCatalog(transport: ImportTransport) {
  const [{ products }, { plans }] = await Promise.all([
    transport.call('update-catalog.listProducts', {}),
    transport.call('license.listPlans', {}),
  ]);
  return {
    productIds: new Set(products.map((p) => p.id)),
    plansByName: new Map(plans.map((p) => [planNameKey(p.name), p.id])),
    planIds: new Set(plans.map((p) => p.id)),
  };
}

/**
 * An import run (docs/imports.md): the source's records, read as they stream, are checked against
 * the shape every reader yields, their products and plans resolved (plans created from the
 * source with `create_plans`), and sent to the license service in batches, whose answers make the
 * report. A record refused anywhere is counted and listed with its line and reason; so is a
 * conflict. The first row of a key is imported; a later one is skipped.
 */
export async function runImport({
  records,
  options,
  transport,
  batchSize = MAX_IMPORT_BATCH,
  onProgress = () => {},
}: {
  records: AsyncIterable<unknown>;
  options: ImportOptions;
  transport: ImportTransport;
  batchSize?: number;
  onProgress?: ImportProgress;
}): Promise<ImportReport> {
  const catalog: KnownCatalog & { plansByName: Map<string, number>; planIds: Set<number> } =
    await knownCatalog(transport);
  const report: ImportReport = {
    source: options.source,
    dry_run: options.dry_run,
    update: options.update,
    counts: { created: 0, matched: 0, updated: 0, conflicts: 0, refused: 0, skipped: 0 },
    rows: [],
    rows_truncated: false,
    plans_created: [],
    unknown_products: [],
    unknown_plans: [],
  };
  const list = (row: ImportReportRow) => {
    if (report.rows.length < MAX_REPORTED_ROWS) report.rows.push(row);
    else report.rows_truncated = true;
  };
  const refuse = (line: number, sourceId: string | null, key: string | null, reason: string) => {
    report.counts.refused += 1;
    list({ line, source_id: sourceId, license_key: key, outcome: 'refused', reason });
  };
  const unknown = (into: string[], reference: string) => {
    if (!into.includes(reference)) into.push(reference);
  };
  // On a dry run, a plan create_plans would make has no id yet: its licenses count as created.
  const wouldCreate = new Set<string>();
  const seenKeys = new Set<string>();
  let batch: ImportLicense[] = [];
  const sourceIds = new Map<number, string>();

  async function flush() {
    if (batch.length === 0) return;
    const sent = batch;
    batch = [];
    const { results } = await transport.call('license.importLicenses', {
      licenses: sent,
      dry_run: options.dry_run,
      update: options.update,
    });
    for (const result of results) {
      const sourceId = sourceIds.get(result.line) ?? null;
      sourceIds.delete(result.line);
      if (result.outcome === 'refused') {
        refuse(result.line, sourceId, result.license_key, result.reason ?? 'Refused.');
      } else if (result.outcome === 'conflict') {
        report.counts.conflicts += 1;
        list({ ...result, source_id: sourceId, outcome: 'conflict', reason: result.reason ?? '' });
      } else {
        report.counts[result.outcome] += 1;
      }
    }
  }

  async function planFor(license: ImportedLicense): Promise<number | 'would-create' | null> {
    const found = planOf(license, options, catalog);
    if (found !== null || !options.create_plans) return found;
    const wanted = planToCreate(license);
    if (wanted === null) return null;
    if (options.dry_run) {
      if (!wouldCreate.has(planNameKey(wanted.name))) {
        wouldCreate.add(planNameKey(wanted.name));
        report.plans_created.push({ id: null, name: wanted.name });
      }
      return 'would-create';
    }
    const plan = await transport.call('license.createPlan', wanted);
    catalog.plansByName.set(planNameKey(plan.name), plan.id);
    catalog.planIds.add(plan.id);
    report.plans_created.push({ id: plan.id, name: plan.name });
    return plan.id;
  }

  let read = 0;
  for await (const value of records) {
    onProgress(++read);
    const checked = ImportRecord.safeParse(value);
    if (!checked.success) {
      const line = (value as { line?: unknown } | null)?.line;
      refuse(typeof line === 'number' && line > 0 ? line : read, null, null, checked.error.message);
      continue;
    }
    const record = checked.data;
    if (isRefused(record)) {
      refuse(record.line, record.source_id, null, record.reason);
      continue;
    }
    const { line, source_id, license_key } = record;
    if (seenKeys.has(license_key)) {
      report.counts.skipped += 1;
      continue;
    }
    seenKeys.add(license_key);
    const productId = productOf(record.product, options, catalog);
    if (productId === null) {
      unknown(report.unknown_products, record.product);
      refuse(line, source_id, license_key, `Product ${record.product} is no product here.`);
      continue;
    }
    const planId = await planFor(record);
    if (planId === null) {
      const reference = planReference(record) ?? '(none)';
      unknown(report.unknown_plans, reference);
      refuse(line, source_id, license_key, `Plan ${reference} is no plan here.`);
      continue;
    }
    if (planId === 'would-create') {
      report.counts.created += 1;
      continue;
    }
    sourceIds.set(line, source_id);
    batch.push(importLicense(record, { product_id: productId, plan_id: planId }));
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return report;
}
