import type {
  HandlersOf,
  ImportLicense,
  ImportedLicenseResult,
} from '../../../libs/contracts/index.js';
import type { PlanRecord } from '../records.js';
import type { ProductLookup } from '../use-cases/license-reads.js';
import type { PlanLookup } from '../use-cases/plan-lookup.js';
import {
  classifyImport,
  conflictReason,
  importedLicense,
  type StoredImport,
  type WantedImport,
} from './import-rules.js';
import type { ImportStore } from './import-store.js';

/** What an import runs on. */
export interface ImportHandlerDeps {
  imports: ImportStore;
  knownPlans: Pick<PlanLookup, 'find'>;
  products: ProductLookup;
  clock: () => Date;
}

/** A license of the batch to write, at its place in the answer. */
interface Pending {
  index: number;
  wanted: WantedImport;
}

/**
 * Licenses imported from another system (docs/imports.md), a batch at a time, written once
 * however often a batch is sent: keys not stored are created, keys stored with the same data are
 * matched, and the others are conflicts, replaced only with `update`. A dry run answers the same
 * and writes nothing. Imports send no domain events: they move licenses sold elsewhere, not new
 * sales, and sellers' endpoints would otherwise hear of every license again.
 */
export function importHandlers({
  imports,
  knownPlans,
  products,
  clock,
}: ImportHandlerDeps): Pick<HandlersOf<'license'>, 'license.importLicenses'> {
  async function plansOf(entries: ImportLicense[]) {
    const plans = new Map<number, PlanRecord | null>();
    const known = new Map<number, boolean>();
    for (const { plan_id, product_id } of entries) {
      if (!plans.has(plan_id)) plans.set(plan_id, await knownPlans.find(plan_id));
      if (!known.has(product_id)) known.set(product_id, (await products.find(product_id)) !== null);
    }
    return { plans, known };
  }

  return {
    'license.importLicenses': async ({ licenses: entries, dry_run, update }, context) => {
      const now = clock();
      const { plans, known } = await plansOf(entries);
      const results: ImportedLicenseResult[] = entries.map((entry) => ({
        line: entry.line,
        license_key: entry.license_key,
        outcome: 'refused',
        reason: null,
      }));
      const refuse = (index: number, reason: string) => {
        results[index] = { ...results[index]!, outcome: 'refused', reason };
      };
      const mapped: Pending[] = [];
      const lineOfKey = new Map<string, number>();
      entries.forEach((entry, index) => {
        const plan = plans.get(entry.plan_id);
        const earlier = lineOfKey.get(entry.license_key);
        if (earlier !== undefined) {
          return refuse(index, `The key is imported already by line ${earlier}.`);
        }
        lineOfKey.set(entry.license_key, entry.line);
        if (!known.get(entry.product_id)) {
          return refuse(index, `Product ${entry.product_id} does not exist.`);
        }
        if (!plan) return refuse(index, `Plan ${entry.plan_id} does not exist.`);
        const license = importedLicense(entry, plan, now);
        if (!license.ok) return refuse(index, license.reason);
        mapped.push({ index, wanted: license.wanted });
      });

      const classify = (pending: Pending[], stored: Map<string, StoredImport>) => {
        const create: Pending[] = [];
        const replace: Pending[] = [];
        for (const item of pending) {
          const found = stored.get(item.wanted.license.license_key) ?? null;
          const classified = classifyImport(found, item.wanted);
          const result = results[item.index]!;
          if (classified.outcome === 'create') {
            create.push(item);
            results[item.index] = { ...result, outcome: 'created', reason: null };
          } else if (classified.outcome === 'matched') {
            results[item.index] = { ...result, outcome: 'matched', reason: null };
          } else {
            if (update) replace.push(item);
            const outcome = update ? 'updated' : 'conflict';
            const reason = conflictReason(classified.differences);
            results[item.index] = { ...result, outcome, reason };
          }
        }
        return { create, replace };
      };

      const keys = mapped.map((item) => item.wanted.license.license_key);
      const { create, replace } = classify(mapped, await imports.findForImport(keys));
      if (dry_run) return { results };
      if (create.length > 0) {
        context.beforeWrite();
        const { taken } = await imports.createImported({
          licenses: create.map((item) => item.wanted),
          now,
        });
        // Stored meanwhile (a run at once, or a write that took effect after its caller gave up):
        // classified again against what is stored now.
        const again = create.filter((item) => taken.includes(item.wanted.license.license_key));
        if (again.length > 0) {
          const later = classify(again, await imports.findForImport(taken));
          replace.push(...later.replace);
        }
      }
      if (replace.length > 0) {
        context.beforeWrite();
        await imports.replaceImported({ licenses: replace.map((item) => item.wanted), now });
      }
      return { results };
    },
  };
}
