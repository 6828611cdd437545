/** What `npm start` keeps under DATA_DIR for its embedded parts, and the admin token it generates. */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Config } from './schema.js';

/** For the embedded default only: one random admin token, printed at start-up. */
export function generateAdminToken(): string {
  return randomBytes(24).toString('base64url');
}

/** A place under DATA_DIR, or undefined when nothing is to be kept (DATA_DIR empty). */
function dataPath(config: Pick<Config, 'DATA_DIR'>, name: string): string | undefined {
  return config.DATA_DIR === '' ? undefined : path.resolve(config.DATA_DIR, name);
}

/** The embedded MongoDB's data (`npm start` without MONGODB_URL). */
export function embeddedDatabaseDirectory(config: Pick<Config, 'DATA_DIR'>): string | undefined {
  return dataPath(config, 'mongodb');
}

/** The embedded package storage's files (no S3_ENDPOINT): STORAGE_DIR, else under DATA_DIR. */
export function embeddedStorageDirectory(
  config: Pick<Config, 'DATA_DIR' | 'STORAGE_DIR'>,
): string | undefined {
  return config.STORAGE_DIR === ''
    ? dataPath(config, 'packages')
    : path.resolve(config.STORAGE_DIR);
}

/** Where `npm start` keeps the admin token it generated when ADMIN_TOKENS is unset. */
export function adminTokenFile(config: Pick<Config, 'DATA_DIR'>): string | undefined {
  return dataPath(config, 'admin-token');
}

/** Where `npm start` keeps the signing key it generated when SIGNING_KEY is unset. */
export function signingKeyFile(config: Pick<Config, 'DATA_DIR'>): string | undefined {
  return dataPath(config, 'signing-key.pem');
}
