/**
 * Reference client of the Licensing Service Interface: activate, validate, deactivate, lease
 * heartbeats, the update check, downloads and offline license files, for Node 20+ and browsers,
 * with no dependencies beyond `fetch` and WebCrypto.
 */
export { LicensingClient } from './client.js';
export {
  API_PATH,
  DEFAULT_CLOCK_TOLERANCE_MS,
  DEFAULT_NEGATIVE_CACHE_MS,
  DEFAULT_OFFLINE_GRACE_MS,
  DEFAULT_RETRY_BASE_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  MAX_RETRIES,
  type ClientOptions,
  type VerifyLicenseFileOptions,
} from './options.js';
export { verifyLicenseFile, type OfflineVerifyOptions } from './verification/offline-check.js';
export { hasEntitlement, type WithEntitlements } from './entitlements.js';
export type {
  DownloadDestination,
  DownloadOptions,
  DownloadProgress,
} from './downloads/download.js';
export {
  DEFAULT_HEARTBEAT_RETRY_DELAY_MS,
  DEFAULT_NO_LEASE_INTERVAL_MS,
  MIN_HEARTBEAT_INTERVAL_MS,
  type Heartbeat,
  type HeartbeatEvent,
  type HeartbeatOptions,
  type HeartbeatStatus,
  type HeartbeatTimers,
} from './validation/heartbeat.js';
export { CONNECTION_ERROR, INVALID_RESPONSE } from './http.js';
export { jsonFileStore } from './node-file.js';
export {
  classifyResult,
  CLIENT_ERROR_CODES,
  ERROR_CODES,
  isLicenseProblem,
  isTransientFailure,
  LICENSE_PROBLEM_CODES,
  retryDelay,
  TRANSIENT_CODES,
  type ActivationData,
  type ActivationType,
  type CheckoutData,
  type DownloadData,
  type FailureResult,
  type LicenseFileData,
  type LicenseStatus,
  type LicensingResult,
  type ReleaseChannel,
  type ResultKind,
  type TrialData,
  type RetryOptions,
  type SuccessResult,
  type UpdateInfo,
  type UsageData,
  type UsageOptions,
  type ValidateOptions,
  type ValidationData,
} from './result.js';
export { Sha256 } from './downloads/sha256.js';
export type { CacheOption, KeyValueStore, StorageLike } from './store.js';
export type { KeysOption } from './verification/verify.js';
export type { Ed25519PublicJwk, JwkSet } from '../../signatures/index.js';
