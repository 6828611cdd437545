import { chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  embeddedDatabaseDirectory,
  embeddedStorageDirectory,
  type Config,
} from '../../libs/config/index.js';
import type { Logger } from '../../libs/logging/index.js';

/** Kept data (the database, packages, the admin token, the signing key) is this user's alone. */
const PRIVATE_DIRECTORY = 0o700;

/**
 * Makes each directory (and any missing parent) readable by this user only, and closes to other
 * users one that exists open to them. The directories that were open.
 */
export async function makePrivateDirectories(directories: readonly string[]): Promise<string[]> {
  const tightened: string[] = [];
  for (const directory of directories) {
    await mkdir(directory, { recursive: true, mode: PRIVATE_DIRECTORY });
    const { mode } = await stat(directory);
    if ((mode & 0o077) !== 0) {
      await chmod(directory, PRIVATE_DIRECTORY);
      tightened.push(directory);
    }
  }
  return tightened;
}

/**
 * The directories `npm start` keeps its data in (DATA_DIR, and the embedded database's and
 * package storage's when they are used), made before anything is written to them; the files in
 * them are made by a process whose umask (runProcess) closes them to other users.
 */
export async function makeDataDirectories(config: Config, logger: Logger): Promise<void> {
  const directories = [
    config.DATA_DIR === '' ? undefined : path.resolve(config.DATA_DIR),
    config.MONGODB_URL ? undefined : embeddedDatabaseDirectory(config),
    config.S3_ENDPOINT ? undefined : embeddedStorageDirectory(config),
  ].filter((directory): directory is string => directory !== undefined);
  const tightened = await makePrivateDirectories(directories);
  if (tightened.length > 0) {
    logger.warn(
      { directories: tightened },
      'data directories were open to other users: now readable by this user only (mode 0700)',
    );
  }
}
