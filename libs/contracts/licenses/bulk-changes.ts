import { z } from 'zod';
import { LicenseStatus, Timestamp } from '../shared.js';
import { MAX_BULK_LICENSES, MAX_EXTEND_DAYS } from '../bounds.js';
import { errorCodes, type ErrorCode } from '../errors.js';
import { LicenseKey } from './license-key.js';
import { LicenseSummary } from './license-views.js';

// ---- Bulk changes (management API) ----

const BulkKeys = z
  .array(LicenseKey)
  .min(1)
  .max(MAX_BULK_LICENSES)
  .refine((keys) => new Set(keys).size === keys.length, { message: 'must not repeat a key' })
  .meta({ description: `1 to ${MAX_BULK_LICENSES} license keys, each once.` });

/**
 * One change made to each license named, as the single change makes it (PATCH
 * /licenses/{key}): a status; an expiry moved by a number of days; or an expiry date (null:
 * never expires).
 */
export const BulkLicenseChangeRequest = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('set_status'),
    license_keys: BulkKeys,
    status: LicenseStatus,
  }),
  z.strictObject({
    action: z.literal('extend_expiry'),
    license_keys: BulkKeys,
    days: z.number().int().positive().max(MAX_EXTEND_DAYS),
  }),
  z.strictObject({
    action: z.literal('set_expiry'),
    license_keys: BulkKeys,
    expires_at: Timestamp.nullable(),
  }),
]);
export type BulkLicenseChangeRequest = z.infer<typeof BulkLicenseChangeRequest>;

/** What became of one license of a bulk change: the license after it, or why it was refused. */
export const BulkLicenseOutcome = z.discriminatedUnion('ok', [
  z.object({ license_key: z.string(), ok: z.literal(true), license: LicenseSummary }),
  z.object({
    license_key: z.string(),
    ok: z.literal(false),
    error: z.object({
      code: z.enum(errorCodes as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
    }),
  }),
]);
export type BulkLicenseOutcome = z.infer<typeof BulkLicenseOutcome>;

/** Every license of a bulk change, in the order named, and how many changed or were refused. */
export const BulkLicenseChangeResult = z.object({
  results: z.array(BulkLicenseOutcome),
  succeeded: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
});
export type BulkLicenseChangeResult = z.infer<typeof BulkLicenseChangeResult>;
