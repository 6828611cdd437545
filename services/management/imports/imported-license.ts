import { z } from 'zod';

/**
 * What every import reader yields (docs/imports.md): a source's license as this service will
 * hold it, or a record the reader refused with a plain reason. Readers stream them, so a source
 * of 100,000 licenses never sits in memory at once; the import run checks each value against
 * `ImportRecord` before it writes anything.
 */

export const IMPORT_SOURCES = ['edd', 'keygen', 'lemonsqueezy', 'csv'] as const;
export const ImportSource = z.enum(IMPORT_SOURCES);
export type ImportSource = z.infer<typeof ImportSource>;

/** The spec's license statuses (3.1); `invalid` is validate's word for an unknown key only. */
export const IMPORTED_STATUSES = [
  'active',
  'expired',
  'suspended',
  'revoked',
  'cancelled',
] as const;
export const ImportedStatus = z.enum(IMPORTED_STATUSES);
export type ImportedStatus = z.infer<typeof ImportedStatus>;

/** The spec's activation types (2.1). */
export const ACTIVATION_TYPES = ['domain', 'device', 'seat', 'instance'] as const;
export const ImportedActivationType = z.enum(ACTIVATION_TYPES);
export type ImportedActivationType = z.infer<typeof ImportedActivationType>;

const IsoUtc = z.iso.datetime();

/** A limit as the spec counts it: `0` is unlimited; null says the source gives none (the plan's). */
const Limit = z.number().int().nonnegative().nullable();

export const ImportedActivation = z.object({
  /** As the source stored it: the core normalises it for the plan's activation type. */
  identifier: z.string().min(1),
  /** EDD's `is_local` (a staging or local site): kept, but uses no slot. */
  exempt: z.boolean(),
  activated_at: IsoUtc.nullable(),
});
export type ImportedActivation = z.infer<typeof ImportedActivation>;

export const PlanHint = z.object({
  name: z.string(),
  activation_type: ImportedActivationType.nullable(),
  activation_limit: Limit,
});
export type PlanHint = z.infer<typeof PlanHint>;

export const ImportedLicense = z.object({
  source: ImportSource,
  /** The source's own id of the license: EDD id, Keygen UUID, Lemon Squeezy id, CSV key. */
  source_id: z.string().min(1),
  /** 1-based row or record number in the source, for the report. */
  line: z.number().int().positive(),
  /** Byte for byte as the source has it: never trimmed or re-cased. */
  license_key: z.string().min(1),
  /** EDD download_id, Keygen product id, Lemon Squeezy product_id, CSV product_id. */
  product: z.string().min(1),
  /** EDD price_id, Keygen policy id, Lemon Squeezy variant_id, CSV plan. */
  plan: z.string().nullable(),
  /** What the source says of that plan, for creating plans the service lacks. */
  plan_hint: PlanHint.nullable(),
  status: ImportedStatus,
  /** null: the license does not expire (EDD's expiration 0). */
  expires_at: IsoUtc.nullable(),
  /** The license's own limit: `0` unlimited, null none of its own (the plan's applies). */
  activation_limit: Limit,
  customer: z.object({ email: z.string().nullable(), name: z.string().nullable() }).nullable(),
  /** An EDD bundle's child: the parent license's key. */
  parent_key: z.string().nullable(),
  activations: z.array(ImportedActivation),
});
export type ImportedLicense = z.infer<typeof ImportedLicense>;

export const RefusedRecord = z.object({
  refused: z.literal(true),
  source: ImportSource,
  line: z.number().int().positive(),
  source_id: z.string().nullable(),
  /** Plain words, e.g. "expires_at is not a date: 2024-13-45". */
  reason: z.string().min(1),
});
export type RefusedRecord = z.infer<typeof RefusedRecord>;

export const ImportRecord = z.union([RefusedRecord, ImportedLicense]);
export type ImportRecord = ImportedLicense | RefusedRecord;

export const isRefused = (record: ImportRecord): record is RefusedRecord =>
  'refused' in record && record.refused === true;

/** A reader: one source's records, in the source's order, streamed. */
export type ImportReader = AsyncIterable<ImportRecord>;
