import type {
  DownloadLogSortField,
  ListCursor,
  RefusedLicenseStatus,
  downloadOutcomes,
} from '../../../libs/contracts/index.js';

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

/**
 * A download request as it was sent: the log writer stamps the time and cuts over-long values (and
 * its events carry it so cut, as the entry holds it).
 */
export type LoggedRequest = Omit<DownloadRequestRecord, 'at'>;

/** Which entries an admin's view of the log holds (every filter given holds). */
export interface DownloadLogFilters {
  /** Null: every product. */
  product_id: number | null;
  /** True: refused downloads only; false: served ones only; null: both. */
  refused: boolean | null;
  /** Entries at this time or later; null: from the first. */
  from: Date | null;
  /** Entries before this time; null: up to the last. */
  to: Date | null;
}

/** The order of the log: a field, then the entry's id, both one way. */
export interface DownloadLogOrder {
  field: DownloadLogSortField;
  descending: boolean;
}

/** The order the log had before it could be sorted: newest first. */
export const LATEST_FIRST: DownloadLogOrder = { field: 'at', descending: true };

export interface DownloadLogQuery extends DownloadLogFilters {
  order: DownloadLogOrder;
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
  /** In `order` (then by id, the same way), one page, and how many entries match in all. */
  list(query: DownloadLogQuery): Promise<{ entries: DownloadLogRecord[]; total: number }>;
  /**
   * The same list a batch at a time: up to `limit` entries after the cursor `after` (null: from
   * the start), and the cursor of the last one; null when the batch is not full, the list's end.
   */
  scan(
    scan: DownloadLogFilters & {
      order: DownloadLogOrder;
      after: ListCursor | null;
      limit: number;
    },
  ): Promise<{ entries: DownloadLogRecord[]; next: ListCursor | null }>;
}
