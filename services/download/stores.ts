import type { RefusedLicenseStatus, downloadOutcomes } from '../../libs/contracts/index.js';

/**
 * The download log (spec 4.5): one entry per download request, served or refused with the error
 * code the client got as its reason (the Refused Downloads of admin). The handlers and the byte
 * port see only this interface; `mongo-stores.ts` keeps it in MongoDB. Every method answers
 * copies: changing a returned entry changes nothing stored.
 */

export interface DownloadLogRecord {
  /** 24 lower-case hexadecimal digits; later entries have greater ids. */
  id: string;
  at: Date;
  /** Null for a refused request whose path named no valid product id. */
  product_id: number | null;
  license_key: string | null;
  identifier: string | null;
  ip: string;
  outcome: (typeof downloadOutcomes)[number];
  /** For a refused download: the error code the client got. */
  reason: string | null;
  /** For a refusal decided on a key: the license's status then (`invalid`: no such license). */
  license_status: RefusedLicenseStatus | null;
  file_id: number | null;
  version: string | null;
}

/** A download request as the log keeps it. */
export type DownloadRequestRecord = Pick<
  DownloadLogRecord,
  'at' | 'product_id' | 'license_key' | 'identifier' | 'ip'
>;

export interface DownloadLogQuery {
  /** Null: every product. */
  product_id: number | null;
  /** True: refused downloads only; false: served ones only; null: both. */
  refused: boolean | null;
  /** From 1. */
  page: number;
  per_page: number;
}

export interface DownloadLogStore {
  /** A served download of one file of a version; answers the entry's id. */
  recordServed(
    entry: DownloadRequestRecord & { file_id: number; version: string },
  ): Promise<string>;
  /** Refused downloads with their reasons, in one write; answers their ids, in order. */
  recordRefusals(
    entries: ReadonlyArray<
      DownloadRequestRecord & { reason: string; license_status: RefusedLicenseStatus | null }
    >,
  ): Promise<string[]>;
  /**
   * A served download whose bytes did not reach the client becomes a refused one with `reason`,
   * keeping its file and version, in one conditional update. The entry after the change, or null
   * when no served entry has this id (an unknown or malformed id, or an entry already refused).
   */
  markServedAsRefused(change: { id: string; reason: string }): Promise<DownloadLogRecord | null>;
  /** Newest first (by `at`, then id), one page, and how many entries match in all. */
  list(query: DownloadLogQuery): Promise<{ entries: DownloadLogRecord[]; total: number }>;
}
