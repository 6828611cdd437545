import { z } from 'zod';
import { Id, NonEmptyShortText, ShortText, Timestamp } from './shared.js';

/**
 * Downloads (spec 4.5): the download service decides over RPC and hands back a short-lived URL
 * of its own HTTP endpoint; package bytes never travel through the message bus.
 */
export const AuthorizeDownloadRequest = z.strictObject({
  product_id: Id,
  license_key: NonEmptyShortText.nullable(),
  identifier: ShortText.nullable(),
  ip: z.string().max(64),
});
export type AuthorizeDownloadRequest = z.infer<typeof AuthorizeDownloadRequest>;

export const AuthorizedDownload = z.object({
  /** Absolute URL on the download service, valid for a short time, for this one file. */
  url: z.url(),
  filename: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  content_type: z.string(),
  version: z.string(),
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

export const DeleteObjectRequest = z.strictObject({ object_key: z.string().min(1).max(1024) });
export const DeletedObject = z.object({ object_key: z.string(), deleted: z.boolean() });

export const downloadOutcomes = ['served', 'refused'] as const;

export const DownloadLogEntry = z.object({
  id: z.string(),
  at: Timestamp,
  product_id: Id,
  license_key: z.string().nullable(),
  identifier: z.string().nullable(),
  ip: z.string(),
  outcome: z.enum(downloadOutcomes),
  /** For a refusal: the error code the client got (the reason). */
  reason: z.string().nullable(),
  file_id: Id.nullable(),
  version: z.string().nullable(),
});
export type DownloadLogEntry = z.infer<typeof DownloadLogEntry>;

export const DownloadLogRequest = z.strictObject({
  product_id: Id.nullable().default(null),
  refused: z.boolean().nullable().default(null),
  page: z.number().int().positive().default(1),
  per_page: z.number().int().positive().max(500).default(50),
});
export type DownloadLogRequest = z.infer<typeof DownloadLogRequest>;

export const DownloadLogPage = z.object({
  entries: z.array(DownloadLogEntry),
  page: z.number().int().positive(),
  per_page: z.number().int().positive(),
  total: z.number().int().nonnegative(),
});
export type DownloadLogPage = z.infer<typeof DownloadLogPage>;
