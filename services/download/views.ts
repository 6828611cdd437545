import type {
  AuthorizedDownload,
  DownloadLogBatch,
  DownloadLogEntry,
  DownloadLogPage,
  ListCursor,
  SelectedFile,
} from '../../libs/contracts/index.js';
import type { DownloadLogRecord } from './download-log/stores.js';

/** Response shapes built from stored records and the catalog's answers. */

function logEntryView(entry: DownloadLogRecord): DownloadLogEntry {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    product_id: entry.product_id,
    license_key: entry.license_key,
    identifier: entry.identifier,
    ip: entry.ip,
    outcome: entry.outcome,
    reason: entry.reason,
    license_status: entry.license_status,
    file_id: entry.file_id,
    version: entry.version,
  };
}

export function logPageView({
  entries,
  total,
  page,
  per_page,
}: {
  entries: readonly DownloadLogRecord[];
  total: number;
  page: number;
  per_page: number;
}): DownloadLogPage {
  return { entries: entries.map(logEntryView), page, per_page, total };
}

/** A batch of the log read for an export, and where the next one starts. */
export function logBatchView({
  entries,
  next,
}: {
  entries: readonly DownloadLogRecord[];
  next: ListCursor | null;
}): DownloadLogBatch {
  return { entries: entries.map(logEntryView), next };
}

/** The answer to an allowed download: the file, and the link to its bytes in the store. */
export function authorizedDownloadView({
  selection,
  url,
  lastModified,
  logId,
}: {
  selection: NonNullable<SelectedFile['selection']>;
  url: string;
  lastModified: Date;
  /** The log entry written as served (null when the log could not be written). */
  logId: string | null;
}): AuthorizedDownload {
  const { file, version } = selection;
  return {
    url,
    last_modified: lastModified.toISOString(),
    filename: file.filename,
    size: file.size,
    sha256: file.sha256,
    content_type: file.content_type,
    version: version.version,
    log_id: logId,
  };
}
