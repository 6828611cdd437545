import { z } from 'zod';
import { Id, NonEmptyShortText } from '../shared.js';
import { ImportSource } from '../licenses/license-views.js';

/** How many refused or conflicting rows a report lists; its counts hold them all. */
export const MAX_REPORTED_ROWS = 1000;

/**
 * What a source's product and plan references are here: a reference given in `products` or
 * `plans` is that product or plan; otherwise a product reference that is the id of a product here
 * is that product, and a plan reference (or, for a source without one, its plan's name) that is
 * the name of a plan here is that plan.
 */
export const ImportMappings = z.strictObject({
  products: z.record(z.string(), Id).default({}),
  plans: z.record(z.string(), Id).default({}),
});
export type ImportMappings = z.infer<typeof ImportMappings>;

/** How an import runs: a dry run writes nothing; `update` replaces conflicting licenses. */
export const ImportOptions = z.strictObject({
  source: ImportSource,
  dry_run: z.boolean().default(false),
  update: z.boolean().default(false),
  /** A plan reference known nowhere here is created from what the source says of it. */
  create_plans: z.boolean().default(false),
  ...ImportMappings.shape,
});
export type ImportOptions = z.infer<typeof ImportOptions>;

/** A row of the source that was not imported as it is, with why. */
export const ImportReportRow = z.object({
  line: z.number().int().positive(),
  source_id: z.string().nullable(),
  license_key: z.string().nullable(),
  outcome: z.enum(['refused', 'conflict']),
  reason: z.string(),
});
export type ImportReportRow = z.infer<typeof ImportReportRow>;

export const ImportCounts = z.object({
  created: z.number().int().nonnegative(),
  matched: z.number().int().nonnegative(),
  updated: z.number().int().nonnegative(),
  conflicts: z.number().int().nonnegative(),
  refused: z.number().int().nonnegative(),
  /** A key the source has again after an earlier row: imported once, from its first row. */
  skipped: z.number().int().nonnegative(),
});
export type ImportCounts = z.infer<typeof ImportCounts>;

/** What an import did (or, on a dry run, would do). */
export const ImportReport = z.object({
  source: ImportSource,
  dry_run: z.boolean(),
  update: z.boolean(),
  counts: ImportCounts,
  /** The refused and conflicting rows, in the source's order, the first MAX_REPORTED_ROWS. */
  rows: z.array(ImportReportRow),
  rows_truncated: z.boolean(),
  /** The plans created from the source (create_plans), by id and name; no id on a dry run. */
  plans_created: z.array(z.object({ id: Id.nullable(), name: NonEmptyShortText })),
  /** The references the source has that are nothing here, each once. */
  unknown_products: z.array(z.string()),
  unknown_plans: z.array(z.string()),
});
export type ImportReport = z.infer<typeof ImportReport>;
