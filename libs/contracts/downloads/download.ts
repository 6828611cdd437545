import { z } from 'zod';
import { FileSignature, ReleaseChannel } from '../catalog/updaters.js';
import { DEFAULT_DOWNLOAD_LOG_SORT, downloadLogSortFields, sortOrders } from '../bounds.js';
import {
  ClientIp,
  Id,
  LicenseStatus,
  ListCursor,
  MAX_BATCH,
  MAX_FIELD_LENGTH,
  MAX_PAGE,
  MAX_PER_PAGE,
  DEFAULT_PER_PAGE,
  NonEmptyShortText,
  ShortText,
  Timestamp,
  WellFormedText,
} from '../shared.js';

/**
 * Downloads (spec 4.5): the download service decides over RPC and hands back a short-lived URL
 * of its own HTTP endpoint; package bytes never travel through the message bus.
 */
/** How the gateway gives an allowed download (DOWNLOAD_DELIVERY). */
export const DownloadDelivery = z.enum(['relay', 'redirect']);
export type DownloadDelivery = z.infer<typeof DownloadDelivery>;

export const AuthorizeDownloadRequest = z.strictObject({
  product_id: Id,
  license_key: NonEmptyShortText.nullable(),
  identifier: ShortText.nullable(),
  ip: ClientIp,
  /** Who reads the URL: the gateway (relay), or the client it redirects (S3_PUBLIC_ENDPOINT). */
  delivery: DownloadDelivery.default('relay'),
  /** The client's method: a redirected HEAD needs a URL signed for HEAD. */
  method: z.enum(['GET', 'HEAD']).default('GET'),
  /** The channel whose newest version is served (docs/updaters.md). */
  channel: ReleaseChannel.default('stable'),
  /**
   * A file a feed listed, and the name its URL ends with: that file rather than the newest. A
   * name that is not the file's is refused like a file that is not there.
   */
  file: z.strictObject({ id: Id, filename: ShortText }).nullable().default(null),
});
export type AuthorizeDownloadRequest = z.infer<typeof AuthorizeDownloadRequest>;

export const AuthorizedDownload = z.object({
  /**
   * The object's bytes in the store: a presigned URL, valid for a short time, for this one file
   * (any Range), answered with the file's Content-Disposition. The gateway relays from it.
   */
  url: z.url(),
  /** The stored object's date, for If-Range (RFC 9110 13.1.5) and Last-Modified. */
  last_modified: z.iso.datetime(),
  filename: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  content_type: z.string(),
  version: z.string(),
  /**
   * The download log entry written as `served` (null when the log could not be written). The
   * gateway turns it into a refusal when the bytes do not reach the client after all (spec 4.5:
   * every refusal is logged with its reason; docs/api-decisions.md).
   */
  log_id: z.string().nullable(),
});
export type AuthorizedDownload = z.infer<typeof AuthorizedDownload>;

/** Management uploads: a short-lived URL on the download service that accepts the bytes. */
export const PrepareUploadRequest = z.strictObject({
  filename: NonEmptyShortText,
});
export const PreparedUpload = z.object({
  upload_url: z.url(),
  object_key: z.string(),
});

export const DeleteObjectRequest = z.strictObject({ object_key: WellFormedText.min(1).max(1024) });
export const DeletedObject = z.object({ object_key: z.string(), deleted: z.boolean() });

/** A stored package to sign with the seller's Sparkle key (docs/updaters/sparkle.md). */
export const SignPackageRequest = z.strictObject({ object_key: WellFormedText.min(1).max(1024) });
/** `sparkle:edSignature` of the object (base64), or null when no Sparkle key is configured. */
export const SignedPackage = z.object({ signature: FileSignature.nullable() });

export const downloadOutcomes = ['served', 'refused'] as const;

/**
 * A key or identifier as the download log keeps it: at most 255 characters (spec 8), without NUL
 * bytes, an unpaired surrogate as U+FFFD; empty is null. A refused request may carry anything, so over-long values are cut rather
 * than failing the log entry.
 */
export function logValue(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  // eslint-disable-next-line no-control-regex
  const clean = Array.from(value.replace(/\u0000/g, '').toWellFormed())
    .slice(0, MAX_FIELD_LENGTH)
    .join('');
  return clean === '' ? null : clean;
}

/** The error code a refused client got: the reason of a Refused Download. */
const RefusalReason = z.string().regex(/^[A-Z][A-Z_]{0,63}$/);
/** A download log entry id (MongoDB ObjectId, hex). */
const LogEntryId = z.string().regex(/^[0-9a-f]{24}$/);

/**
 * Spec 4.5 (Refused Downloads): a refusal the download service did not decide itself, reported by
 * the gateway. With `entry_id` (a download that was authorised and logged as served, whose bytes
 * then did not reach the client) that entry becomes a refusal; without it a new refused entry is
 * written from the request as sent. `product_id` is null when the path named no valid product id.
 * Keys and identifiers are at most 255 characters: the gateway cuts longer ones before logging.
 */
export const LogRefusalRequest = z.strictObject({
  entry_id: LogEntryId.nullable(),
  product_id: Id.nullable(),
  license_key: ShortText.nullable(),
  identifier: ShortText.nullable(),
  ip: ClientIp,
  reason: RefusalReason,
});
export type LogRefusalRequest = z.infer<typeof LogRefusalRequest>;
/**
 * With `entry_id`: whether that served entry became a refusal. Without: true once the new entry
 * is taken for the log, which writes it with its batch (DOWNLOAD_LOG_BATCH_MS).
 */
export const LoggedRefusal = z.object({ logged: z.boolean() });

/** A license's reported status when a download was refused; `invalid`: no license has the key. */
export const RefusedLicenseStatus = z.union([LicenseStatus, z.literal('invalid')]);
export type RefusedLicenseStatus = z.infer<typeof RefusedLicenseStatus>;

export const DownloadLogEntry = z.object({
  id: z.string(),
  at: Timestamp,
  /** Null for a refused request whose path named no valid product id. */
  product_id: Id.nullable(),
  license_key: z.string().nullable(),
  identifier: z.string().nullable(),
  ip: z.string(),
  outcome: z.enum(downloadOutcomes),
  /** For a refusal: the error code the client got (the reason). */
  reason: z.string().nullable(),
  /**
   * For a refusal decided on a license key: the license's reported status then, or `invalid`
   * when no license has the key (validate's word, spec 4.2), so a refused revoked license is
   * told from an unknown key. Null when no key was looked up, and in entries logged before.
   */
  license_status: RefusedLicenseStatus.nullable(),
  file_id: Id.nullable(),
  version: z.string().nullable(),
});
export type DownloadLogEntry = z.infer<typeof DownloadLogEntry>;

/** The orders of the download log (`-` first: descending); ties are broken by the entry's id. */
export const DownloadLogSort = z.enum(sortOrders(downloadLogSortFields)).meta({
  description:
    'The order: at (the time of the request) or license_key (entries without a key first when ' +
    `ascending); a leading - reverses it. Default ${DEFAULT_DOWNLOAD_LOG_SORT}.`,
});
export type DownloadLogSort = z.infer<typeof DownloadLogSort>;

/**
 * What an admin's view of the log holds: one product, one outcome, entries from `from`
 * (included) to `to` (excluded), which must come after it.
 */
const DownloadLogFilters = z.strictObject({
  product_id: Id.nullable().default(null),
  refused: z.boolean().nullable().default(null),
  from: Timestamp.nullable().default(null),
  to: Timestamp.nullable().default(null),
  sort: DownloadLogSort.default(DEFAULT_DOWNLOAD_LOG_SORT),
});

export const DownloadLogRequest = DownloadLogFilters.extend({
  // Bounded, so a deep page is refused rather than turned into a huge skip.
  page: z.number().int().positive().max(MAX_PAGE).default(1),
  per_page: z.number().int().positive().max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});
export type DownloadLogRequest = z.infer<typeof DownloadLogRequest>;

export const DownloadLogPage = z.object({
  entries: z.array(DownloadLogEntry),
  page: z.number().int().positive(),
  per_page: z.number().int().positive(),
  total: z.number().int().nonnegative(),
});
export type DownloadLogPage = z.infer<typeof DownloadLogPage>;

/** The log read in batches (a CSV export): the batch after `after` (null: the first). */
export const ExportDownloadLogRequest = DownloadLogFilters.extend({
  after: ListCursor.nullable().default(null),
  limit: z.number().int().positive().max(MAX_BATCH),
});
export type ExportDownloadLogRequest = z.infer<typeof ExportDownloadLogRequest>;

/** A batch of the log, and where the next one starts (null: this was the last). */
export const DownloadLogBatch = z.object({
  entries: z.array(DownloadLogEntry),
  next: ListCursor.nullable(),
});
export type DownloadLogBatch = z.infer<typeof DownloadLogBatch>;
