/**
 * The one config loader: the settings' schema (`schema.ts`, its kinds of value in `fields.ts`,
 * `signing-keys.ts`, `sparkle-key.ts`, `store-logo.ts`), loading them (`load.ts`, `together.ts`), and the forms
 * their users read (`settings.ts`, `embedded.ts`).
 */
export { DEFAULT_WEBHOOK_RETRY_SCHEDULE } from './fields.js';
export { parseSigningKeys, generateSigningKey, type SigningKeys } from './signing-keys.js';
export { SparkleKey } from './sparkle-key.js';
export { MAX_STORE_LOGO_BYTES, type StoreLogo } from './store-logo.js';
export {
  configVariables,
  DEFAULT_LICENSE_FILE_MAX_TTL_SECONDS,
  DEFAULT_MAX_UPLOAD_BYTES,
  DEFAULT_PORT,
  DEFAULT_REQUEST_TIMEOUT_MS,
  MIN_DOWNLOAD_SIGNING_KEY_LENGTH,
  type Config,
  type ConfigVariable,
} from './schema.js';
export { ConfigError, loadConfig, settingFiles, tracingSettings } from './load.js';
export {
  adminTokenFile,
  embeddedDatabaseDirectory,
  embeddedStorageDirectory,
  generateAdminToken,
  signingKeyFile,
} from './embedded.js';
export { displayUrl, intervalMs, scheduleSettings, trustProxySetting } from './settings.js';
