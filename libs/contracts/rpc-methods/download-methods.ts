import * as download from '../downloads/download.js';
import * as overview from '../management/overview.js';
import { EmptyRequest, Health, method } from './method.js';

/** The download service's RPC methods (downloads, uploads, the download log). */
export const downloadMethods = {
  'download.health': method('download', EmptyRequest, Health),
  'download.authorize': method(
    'download',
    download.AuthorizeDownloadRequest,
    download.AuthorizedDownload,
  ),
  'download.prepareUpload': method(
    'download',
    download.PrepareUploadRequest,
    download.PreparedUpload,
  ),
  'download.deleteObject': method('download', download.DeleteObjectRequest, download.DeletedObject),
  /** The Sparkle EdDSA signature of a stored package, read back once after its upload. */
  'download.signPackage': method('download', download.SignPackageRequest, download.SignedPackage),
  'download.listLog': method('download', download.DownloadLogRequest, download.DownloadLogPage),
  /** The download log a batch at a time, for an export of any size. */
  'download.exportLog': method(
    'download',
    download.ExportDownloadLogRequest,
    download.DownloadLogBatch,
  ),
  /** Spec 4.5: a refusal the gateway answered itself (or after authorize), for the log. */
  'download.logRefusal': method('download', download.LogRefusalRequest, download.LoggedRefusal),
  /** The downloads served and refused per day (the admin overview). */
  'download.dailyCounts': method(
    'download',
    overview.DownloadDailyCountsRequest,
    overview.DownloadDailyCounts,
  ),
} as const;
