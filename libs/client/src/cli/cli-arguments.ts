/** The command line's arguments: the options parsed, and those every command shares read. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UsageError, type CliIo, type Command } from './cli-io.js';
import { jsonFileStore } from '../node-file.js';
import type { KeyValueStore } from '../store.js';
import { isKeysOption, pinKeys, type KeysOption } from '../verification/verify.js';

/** The options and positionals of `argv`; throws on an unknown option or a missing value. */
export function parseArguments(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      store: { type: 'string' },
      product: { type: 'string' },
      key: { type: 'string' },
      identifier: { type: 'string' },
      name: { type: 'string' },
      output: { type: 'string', short: 'o' },
      url: { type: 'string' },
      ttl: { type: 'string' },
      keys: { type: 'string' },
      state: { type: 'string' },
      'offline-grace': { type: 'string' },
      'keep-alive': { type: 'boolean' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
      progress: { type: 'boolean' },
      'no-progress': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

export type Values = ReturnType<typeof parseArguments>['values'];

/** The options every command reads the same way. */
export interface Common {
  json: boolean;
  /** Milliseconds. */
  timeout: number | undefined;
  keys: KeysOption | undefined;
  cache: KeyValueStore | undefined;
  /** Milliseconds. */
  offlineGrace: number | undefined;
}

/** The value of option `name`, else of the variable `env`; a usage error when neither is set. */
export function required(io: CliIo, name: string, value: string | undefined, env?: string) {
  const found = value ?? (env === undefined ? undefined : io.env[env]);
  if (found === undefined || found === '') {
    throw new UsageError(`--${name} is required${env ? ` (or set ${env})` : ''}.`);
  }
  return found;
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of `30d`, `72h`, `15m`, `90s`, `500ms` or plain seconds. */
export function duration(name: string, text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) {
    throw new UsageError(`--${name} must be a duration such as 72h, 30d, 15m or 3600 (seconds).`);
  }
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 's']!);
}

/** The JWK Set (or list of JWKs) in `path`, with at least one usable key. */
async function readKeys(path: string): Promise<KeysOption> {
  let keys: unknown;
  try {
    keys = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(
      `--keys: cannot read a JSON key set from ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!isKeysOption(keys) || (await pinKeys(keys)).size === 0) {
    throw new UsageError(`--keys: ${path} holds no usable Ed25519 key (a JWK Set is expected).`);
  }
  return keys;
}

/** The shared options read and checked, or a usage error naming the first that is wrong. */
export async function commonOptions(values: Values, command: Command): Promise<Common> {
  const json = values.json === true;
  let timeout: number | undefined;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new UsageError('--timeout must be a positive number of seconds.');
    }
    timeout = Math.round(seconds * 1000);
  }
  const keys = values.keys === undefined ? undefined : await readKeys(values.keys);
  const cache = values.state === undefined ? undefined : jsonFileStore(values.state);
  let offlineGrace: number | undefined;
  if (values['offline-grace'] !== undefined) {
    if (keys === undefined || cache === undefined) {
      throw new UsageError(
        '--offline-grace needs --keys and --state: only a verified answer, kept in the state file, is used offline.',
      );
    }
    offlineGrace = duration('offline-grace', values['offline-grace']);
  }
  if (values['keep-alive'] && command !== 'heartbeat') {
    throw new UsageError('--keep-alive is an option of heartbeat.');
  }
  return { json, timeout, keys, cache, offlineGrace };
}
