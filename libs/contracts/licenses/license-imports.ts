import { z } from 'zod';
import { Id, LicenseStatus, NonEmptyShortText, Timestamp } from '../shared.js';
import { LicenseKey } from './license-key.js';
import { Customer, ImportedFrom } from './license-views.js';

/** How many licenses one `license.importLicenses` call writes at most. */
export const MAX_IMPORT_BATCH = 500;

/** An activation as the source kept it; the license service normalises it for the plan. */
export const ImportActivation = z.strictObject({
  identifier: NonEmptyShortText,
  /** It takes no slot (EDD's local and staging sites). */
  exempt: z.boolean(),
  /** Null: the source does not say; it is then dated at the import. */
  activated_at: Timestamp.nullable(),
});
export type ImportActivation = z.infer<typeof ImportActivation>;

/**
 * A license to import, on this service's product and plan. Its key is kept as the source has it,
 * byte for byte: any key validate can be sent (a key this service would not generate included).
 */
export const ImportLicense = z.strictObject({
  /** Its row or record in the source, for the report. */
  line: z.number().int().positive(),
  imported_from: ImportedFrom,
  license_key: LicenseKey,
  product_id: Id,
  plan_id: Id,
  status: LicenseStatus,
  expires_at: Timestamp.nullable(),
  /** Null: the plan's limit. 0 is unlimited (spec 2.1). */
  activation_limit: z.number().int().nonnegative().max(1_000_000).nullable(),
  customer: Customer.nullable(),
  activations: z.array(ImportActivation).max(10_000),
});
export type ImportLicense = z.infer<typeof ImportLicense>;

/**
 * A batch of licenses to import. A key not stored is created; one stored with the same data is
 * `matched`; one with other data is a `conflict`, overwritten only with `update`. `dry_run`
 * classifies alike and writes nothing.
 */
export const ImportLicensesRequest = z.strictObject({
  licenses: z.array(ImportLicense).min(1).max(MAX_IMPORT_BATCH),
  dry_run: z.boolean().default(false),
  update: z.boolean().default(false),
});
export type ImportLicensesRequest = z.infer<typeof ImportLicensesRequest>;

export const ImportOutcome = z.enum(['created', 'matched', 'conflict', 'updated', 'refused']);
export type ImportOutcome = z.infer<typeof ImportOutcome>;

/** What became of one license of the batch, in the batch's order. */
export const ImportedLicenseResult = z.object({
  line: z.number().int().positive(),
  license_key: z.string(),
  outcome: ImportOutcome,
  /** Why it was refused, or which fields differ from the stored license; null otherwise. */
  reason: z.string().nullable(),
});
export type ImportedLicenseResult = z.infer<typeof ImportedLicenseResult>;

export const ImportLicensesResult = z.object({ results: z.array(ImportedLicenseResult) });
export type ImportLicensesResult = z.infer<typeof ImportLicensesResult>;
