/**
 * Reference client of the Licensing Service Interface: activate, validate, deactivate, the update
 * check and downloads, for Node 18+ and browsers, with no dependencies beyond `fetch`.
 */
export { API_PATH, DEFAULT_TIMEOUT_MS, LicensingClient, type ClientOptions } from './client.js';
export type { DownloadDestination, DownloadOptions, DownloadProgress } from './download.js';
export { CONNECTION_ERROR, INVALID_RESPONSE } from './http.js';
export {
  classifyResult,
  ERROR_CODES,
  isLicenseProblem,
  isTransientFailure,
  LICENSE_PROBLEM_CODES,
  retryDelay,
  TRANSIENT_CODES,
  type ActivationData,
  type ActivationType,
  type DownloadData,
  type FailureResult,
  type LicenseStatus,
  type LicensingResult,
  type ResultKind,
  type RetryOptions,
  type SuccessResult,
  type UpdateInfo,
  type ValidationData,
} from './result.js';
export { Sha256 } from './sha256.js';
