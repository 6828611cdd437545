/**
 * The `licensing` command line: one subcommand per operation, readable output or `--json`, a
 * progress bar on downloads, and exit codes that tell success, license problems and transient
 * failures apart. With `--keys` it verifies what the server signed; `--state` is its store for
 * the offline grace and clock-tamper detection. Node only.
 */
import { readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LicensingClient, verifyLicenseFile, type ClientOptions } from './client.js';
import type { DownloadProgress } from './download.js';
import type { HeartbeatEvent } from './heartbeat.js';
import { clientFailure } from './http.js';
import { jsonFileStore } from './node-file.js';
import {
  classifyResult,
  type ActivationData,
  type CheckoutData,
  type DownloadData,
  type LicenseFileData,
  type LicensingResult,
  type UpdateInfo,
  type ValidationData,
} from './result.js';
import { isKeysOption, pinKeys, type KeysOption } from './verify.js';

/** Exit codes of the command line. */
export const EXIT = {
  /** The operation succeeded (validate: the license is valid and the identifier activated). */
  OK: 0,
  /** Any other failure: an invalid request, an error code this client does not know. */
  FAILURE: 1,
  /** Wrong command-line usage. */
  USAGE: 2,
  /** The service answered about the license: invalid, expired, limit reached, not activated... */
  LICENSE: 3,
  /** Says nothing about the license: connection failure, timeout, rate limit, server error. Retry later. */
  TRANSIENT: 4,
} as const;

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  /** Ends `heartbeat --keep-alive` when aborted; default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
}

const COMMANDS = [
  'activate',
  'validate',
  'heartbeat',
  'deactivate',
  'check-update',
  'download',
  'checkout',
  'verify',
  'keys',
] as const;
type Command = (typeof COMMANDS)[number];

const USAGE = `Usage: licensing <command> [options]

Commands:
  activate       Activate the license on an identifier   --key --identifier [--name]
  validate       Check the license (and an identifier)    --key [--identifier] [--offline-grace]
  heartbeat      Renew the lease of an activation         --key --identifier [--keep-alive]
  deactivate     Free the activation of an identifier     --key --identifier
  check-update   Show the latest published version        [--key]
  download       Download the package                     --key [--identifier] [--output] [--url]
  checkout       Save an offline license file             --key --identifier [--ttl] [--output]
  verify FILE    Check a license file offline             --product --keys [--identifier]
  keys           Print the server's public key set (JWK Set), to save and pin with --keys

Options:
  --store URL        Store root URL (or LICENSING_STORE)
  --product ID       Product id (or LICENSING_PRODUCT)
  --key KEY          License key (or LICENSING_KEY, which keeps it out of the process list)
  --identifier ID    Domain, device, e-mail address or instance, per the plan's activation type
  --name NAME        Label of the activation (activate)
  --output PATH      Where to save the download (default: .) or the license file
                     (default: ./license-PRODUCT.jwt); a file or an existing directory
  --url URL          Download URL from check-update (default: the download endpoint)
  --ttl DURATION     Lease of the license file, e.g. 30d, 12h, 3600 (seconds); at most the
                     store's maximum (30 days by default)
  --keys FILE        The server's JWK Set (from "licensing keys"): verify every answer and file
  --state FILE       JSON file for the offline grace and clock-tamper detection (with --keys)
  --offline-grace D  How long validate answers from the last verified validation while the
                     server cannot answer (default 72h with --keys and --state; 0: never)
  --keep-alive       heartbeat: keep renewing the lease, at a third of it, until interrupted
                     (Ctrl-C or SIGTERM, exit code 0)
  --timeout SECONDS  Request timeout (default 15)
  --json             Print the result as JSON on stdout
  --progress         Show the download progress bar even when stderr is not a terminal
  --no-progress      Never show it
  -h, --help         Show this help
  -v, --version      Show the version

Exit codes: 0 success, 1 other failure, 2 usage error,
            3 license problem (also an answer or license file that fails verification,
              an expired lease, a clock set back),
            4 temporary failure (connection, timeout, rate limit, server error): retry later.
`;

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of `30d`, `72h`, `15m`, `90s`, `500ms` or plain seconds. */
function duration(name: string, text: string): number {
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

class UsageError extends Error {}

function version(): string {
  try {
    const pkg: unknown = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    );
    const v = (pkg as { version?: unknown }).version;
    return typeof v === 'string' ? v : 'unknown';
  } catch {
    return 'unknown';
  }
}

function defaultIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** Runs the command line; resolves to the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
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
  } catch (error) {
    return usage(io, error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.version) {
    io.stdout.write(`${version()}\n`);
    return EXIT.OK;
  }
  if (values.help || positionals[0] === 'help') {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const command = positionals[0];
  if (command === undefined) return usage(io, 'No command given.');
  if (!(COMMANDS as readonly string[]).includes(command)) {
    return usage(io, `Unknown command: ${command}`);
  }
  const arity = command === 'verify' ? 2 : 1;
  if (positionals.length > arity) return usage(io, `Unexpected argument: ${positionals[arity]}`);

  try {
    const option = (name: string, value: string | undefined, env?: string) => {
      const found = value ?? (env === undefined ? undefined : io.env[env]);
      if (found === undefined || found === '') {
        throw new UsageError(`--${name} is required${env ? ` (or set ${env})` : ''}.`);
      }
      return found;
    };
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
    const product = () => option('product', values.product, 'LICENSING_PRODUCT');
    if (values['keep-alive'] && command !== 'heartbeat') {
      throw new UsageError('--keep-alive is an option of heartbeat.');
    }

    if (command === 'verify') {
      const file = positionals[1];
      if (file === undefined) throw new UsageError('verify needs the license file: verify FILE.');
      if (keys === undefined) throw new UsageError('--keys is required to verify a license file.');
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        throw new UsageError(
          `Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      let result: LicensingResult<LicenseFileData>;
      try {
        result = await verifyLicenseFile(text, {
          keys,
          productId: product(),
          cache,
          identifier: values.identifier,
        });
      } catch (error) {
        throw new UsageError(error instanceof Error ? error.message : String(error));
      }
      return report(io, 'verify', result, json);
    }

    const store = option('store', values.store, 'LICENSING_STORE');
    // The key set is the server's, not a product's: `keys` needs no --product.
    const productId =
      command === 'keys' ? (values.product ?? io.env.LICENSING_PRODUCT ?? '1') : product();
    let client: LicensingClient;
    try {
      const options: ClientOptions = { timeout, keys, cache, offlineGrace };
      client = new LicensingClient(store, productId, options);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const key = () => option('key', values.key, 'LICENSING_KEY');
    const identifier = () => option('identifier', values.identifier);
    const optionalKey = values.key ?? io.env.LICENSING_KEY;

    let result: LicensingResult<unknown>;
    switch (command as Command) {
      case 'activate':
        result = await client.activate(key(), identifier(), values.name);
        break;
      case 'validate':
        result = await client.validate(key(), values.identifier);
        break;
      case 'heartbeat':
        if (values['keep-alive']) return await keepAlive(io, client, key(), identifier(), json);
        result = await client.heartbeat(key(), identifier());
        break;
      case 'deactivate':
        result = await client.deactivate(key(), identifier());
        break;
      case 'check-update':
        result = await client.checkUpdate(optionalKey === '' ? undefined : optionalKey);
        break;
      case 'download': {
        const licenseKey = key();
        let update: UpdateInfo | undefined;
        if (keys !== undefined) {
          // The signed update check names the package's size and SHA-256: the download must match.
          const checked = await client.checkUpdate(licenseKey);
          if (!checked.success) return report(io, 'check-update', checked, json);
          update = checked.data;
        }
        const showProgress =
          !json && !values['no-progress'] && (values.progress === true || io.stderr.isTTY === true);
        const bar = showProgress ? progressBar(io.stderr) : undefined;
        result = await client.download(licenseKey, values.identifier, values.output ?? '.', {
          url: values.url,
          update,
          onProgress: bar?.update,
        });
        bar?.end();
        break;
      }
      case 'checkout': {
        const ttl = values.ttl === undefined ? undefined : duration('ttl', values.ttl) / 1000;
        if (ttl !== undefined && !(ttl >= 1)) throw new UsageError('--ttl must be at least 1s.');
        const checkedOut = await client.checkout(key(), identifier(), ttl && Math.round(ttl));
        result = checkedOut.success
          ? await save(checkedOut, values.output, client.productId)
          : checkedOut;
        break;
      }
      case 'keys':
        result = await client.fetchKeys();
        break;
      case 'verify':
        throw new Error('unreachable');
    }
    return report(io, command as Command, result, json);
  } catch (error) {
    if (error instanceof UsageError) return usage(io, error.message);
    throw error;
  }
}

/** Writes the license file of a checkout; its data gains the `path` it was saved to. */
async function save(
  result: LicensingResult<CheckoutData> & { success: true },
  output: string | undefined,
  productId: number,
): Promise<LicensingResult<CheckoutData & { path: string }>> {
  const name = `license-${productId}.jwt`;
  let path = resolve(output ?? name);
  const isDirectory =
    output !== undefined &&
    (/[\\/]$/.test(output) || (statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false));
  if (isDirectory) path = join(path, name);
  try {
    // The file holds the license key: readable by its owner only.
    await writeFile(path, `${result.data.license_file}\n`, { mode: 0o600 });
  } catch (error) {
    return clientFailure(
      `Could not write the license file: ${error instanceof Error ? error.message : String(error)}`,
      result.httpStatus,
    );
  }
  return { ...result, data: { ...result.data, path } };
}

function usage(io: CliIo, message: string): number {
  io.stderr.write(`licensing: ${message}\nRun "licensing --help" for usage.\n`);
  return EXIT.USAGE;
}

function exitCode(result: LicensingResult<unknown>, command?: Command): number {
  // An answer from the offline grace keeps the software running, but renewed no lease.
  if (command === 'heartbeat' && result.success && result.stale) return EXIT.TRANSIENT;
  switch (classifyResult(result)) {
    case 'ok':
      return EXIT.OK;
    case 'license':
      return EXIT.LICENSE;
    case 'transient':
      return EXIT.TRANSIENT;
    case 'failure':
      return EXIT.FAILURE;
  }
}

function report(
  io: CliIo,
  command: Command,
  result: LicensingResult<unknown>,
  json: boolean,
): number {
  const code = exitCode(result, command);
  if (json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return code;
  }
  if (!result.success) {
    const lines = [`licensing: ${result.message}${result.code ? ` [${result.code}]` : ''}`];
    const details = result.details ?? {};
    if (
      typeof details.activations_used === 'number' &&
      typeof details.activation_limit === 'number'
    ) {
      lines.push(`Activations: ${details.activations_used} of ${details.activation_limit} used.`);
    }
    if (code === EXIT.TRANSIENT) {
      const wait = result.retryAfter === undefined ? '' : ` (retry after ${result.retryAfter} s)`;
      lines.push(
        `This is a temporary problem, not a verdict on the license: try again later${wait}.`,
      );
    }
    io.stderr.write(`${lines.join('\n')}\n`);
    return code;
  }
  const out = (lines: Array<string | null>) =>
    io.stdout.write(`${lines.filter((line) => line !== null).join('\n')}\n`);
  switch (command) {
    case 'activate':
    case 'deactivate': {
      const data = result.data as ActivationData;
      out([
        `${command === 'activate' ? 'Activated' : 'Deactivated'}: ${data.identifier}`,
        statusSentence(data.status),
        ...licenseLines(data),
      ]);
      break;
    }
    case 'validate':
    case 'heartbeat':
    case 'verify': {
      const data = result.data as ValidationData;
      const file = command === 'verify' ? (result.data as LicenseFileData) : null;
      const offline =
        result.stale && result.cause
          ? `Offline: the server could not answer (${result.cause.message}); this is its last verified answer, of ${result.checked_at}.`
          : null;
      const fileLines = file
        ? [
            `License file: for ${file.identifier}, product ${file.product_id}`,
            `Lease: until ${file.lease_expires_at} (issued ${file.issued_at})`,
          ]
        : [];
      if (data.status === 'invalid') {
        // Spec 4.2 rule 1: an unknown key comes with a limit of 0, which elsewhere means
        // unlimited; its zeros and nulls describe no license, so none of them is shown.
        out([
          ...fileLines,
          'Valid: no (status invalid)',
          'The license key is unknown: the store has no license with this key.',
          offline,
        ]);
        break;
      }
      const heartbeat = command === 'heartbeat';
      out([
        ...fileLines,
        `Valid: ${data.valid ? 'yes' : 'no'} (status ${data.status})`,
        statusSentence(data.status),
        data.identifier_activated ? null : 'Identifier: not activated on this license',
        heartbeat && !data.identifier_activated
          ? 'The activation has lapsed or was removed: activate it again.'
          : null,
        ...licenseLines(data),
        offline,
        heartbeat && data.identifier_activated ? leaseLine(data, result.stale === true) : null,
      ]);
      break;
    }
    case 'checkout': {
      const data = result.data as CheckoutData & { path: string };
      out([`Saved: ${data.path}`, `Lease: until ${data.expires_at} (issued ${data.issued_at})`]);
      break;
    }
    case 'keys':
      out([JSON.stringify(result.data, null, 2)]);
      break;
    case 'check-update': {
      const data = result.data as UpdateInfo;
      if (!data.update_available) {
        out(['No published version.']);
        break;
      }
      out([
        `${data.name ?? 'Product'} ${data.version ?? ''}${data.date ? ` (${data.date})` : ''}`.trim(),
        data.file_size === undefined ? null : `Size: ${bytes(data.file_size)}`,
        data.download_url
          ? `Download: ${data.download_url}${data.download_requires ? ` (needs ${data.download_requires.replace('_', ' ')})` : ''}`
          : 'Download: from the customer account only',
        data.license_status ? updateLicenseLine(data) : null,
        data.release_notes ? `\n${data.release_notes}` : null,
      ]);
      break;
    }
    case 'download': {
      const data = result.data as DownloadData;
      out([
        `Saved: ${data.path ?? data.filename}`,
        `Size: ${bytes(data.size)}`,
        `SHA-256: ${data.sha256}${data.checksumVerified ? ' (verified)' : ''}`,
      ]);
      break;
    }
  }
  return code;
}

/** When the lease a heartbeat answered with ends, or why there is none. */
function leaseLine(data: ValidationData, stale: boolean): string {
  const ends = data.lease_expires_at ?? null;
  if (stale) {
    return `Lease: not renewed (the server could not answer)${ends === null ? '' : `; it ends ${ends} unless renewed`}`;
  }
  if (ends === null) return 'Lease: none (the activation does not lapse)';
  return `Lease: renewed; ends ${ends} unless renewed again`;
}

/** `3.3s`, `45s`, `5m`, `1m 30s`, `2h 5m`, `3d 4h`: a wait, to read. */
function wait(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms / 100) / 10}s`;
  let rest = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return parts.slice(0, 2).join(' ');
}

/**
 * `heartbeat --keep-alive`: heartbeats at a third of the lease until SIGINT or SIGTERM (exit code
 * 0), or until an answer ends them (a verdict: its exit code). The first answer is reported in
 * full, each later one on a line of its own (or as a JSON line with --json).
 */
function keepAlive(
  io: CliIo,
  client: LicensingClient,
  key: string,
  identifier: string,
  json: boolean,
): Promise<number> {
  return new Promise<number>((resolve) => {
    // The heartbeat's timers are unref'd: this keeps the command running meanwhile.
    const keeper = setInterval(() => undefined, 2 ** 30);
    const controller = new AbortController();
    let ends: string | null = null;
    let first = true;
    const interrupted = () => {
      controller.abort();
      io.stdout.write(
        json
          ? `${JSON.stringify({ status: 'stopped', lease_expires_at: ends })}\n`
          : `Stopped.${ends === null ? '' : ` The lease ends ${ends} unless renewed.`}\n`,
      );
      finish(EXIT.OK);
    };
    const signals = ['SIGINT', 'SIGTERM'] as const;
    const finish = (code: number) => {
      clearInterval(keeper);
      io.signal?.removeEventListener('abort', interrupted);
      // Removed, so a second Ctrl-C ends the command at once, even while a call is in flight.
      if (!io.signal) for (const name of signals) process.off(name, interrupted);
      resolve(code);
    };
    if (io.signal) io.signal.addEventListener('abort', interrupted);
    else for (const name of signals) process.on(name, interrupted);
    if (io.signal?.aborted) return interrupted();

    const onResult = (result: LicensingResult<ValidationData>, event: HeartbeatEvent) => {
      if (result.success && !result.stale) ends = result.data.lease_expires_at ?? null;
      const at = new Date().toISOString();
      if (json) {
        io.stdout.write(`${JSON.stringify({ at, ...event, result })}\n`);
      } else if (first || event.status === 'ended') {
        report(io, 'heartbeat', result, false);
        if (event.next !== null) {
          const what = event.status === 'retrying' ? 'Retrying' : 'Next heartbeat';
          const why = event.status === 'renewed' ? ' (a third of the lease)' : '';
          io.stdout.write(`${what} in ${wait(event.next)}${why}; stop with Ctrl-C.\n`);
        }
      } else if (event.status === 'retrying') {
        const failure = result.success ? result.cause : result;
        const why = failure
          ? `${failure.message}${failure.code ? ` [${failure.code}]` : ''}`
          : 'the server could not answer';
        const lease = ends === null ? '' : ` (the lease ends ${ends} unless renewed)`;
        io.stderr.write(
          `${at} licensing: ${why}; not renewed, retrying in ${wait(event.next ?? 0)}${lease}\n`,
        );
      } else if (event.status === 'renewed') {
        io.stdout.write(
          `${at} Lease renewed; ends ${ends} unless renewed again; next heartbeat in ${wait(event.next ?? 0)}\n`,
        );
      } else {
        io.stdout.write(`${at} Lease: none; next check in ${wait(event.next ?? 0)}\n`);
      }
      first = false;
      if (event.status === 'ended') finish(exitCode(result, 'heartbeat'));
    };
    client.startHeartbeat(key, identifier, { onResult, signal: controller.signal });
  });
}

/** A sentence for a license that is not active; none for `active` or a status added later. */
function statusSentence(status: string): string | null {
  switch (status) {
    case 'expired':
      return 'The license has expired.';
    case 'suspended':
      return 'The license is suspended.';
    case 'revoked':
      return 'The license has been revoked.';
    case 'cancelled':
      return 'The license has been cancelled.';
    default:
      return null;
  }
}

function expiryLine(status: string, expiresAt: string | null): string | null {
  if (status === 'expired') return expiresAt === null ? null : `Expired: ${expiresAt}`;
  return `Expires: ${expiresAt ?? 'never'}`;
}

function licenseLines(data: ActivationData | ValidationData): Array<string | null> {
  return [
    data.product ? `Product: ${data.product}${data.plan ? ` (plan ${data.plan})` : ''}` : null,
    data.activation_type ? `Activation type: ${data.activation_type}` : null,
    data.activation_limit === 0
      ? `Activations: ${data.activations_used} used, no limit`
      : `Activations: ${data.activations_used} of ${data.activation_limit} used`,
    expiryLine(data.status, data.expires_at),
  ];
}

/** The license state the update check adds when a key was sent. */
function updateLicenseLine(data: Extract<UpdateInfo, { update_available: true }>): string {
  const expiresAt = data.license_expires_at ?? null;
  switch (data.license_status) {
    case 'active':
      return `License: active, ${expiresAt === null ? 'does not expire' : `expires ${expiresAt}`}${data.auto_renew ? ', renews automatically' : ''}`;
    case 'expired':
      return `License: expired${expiresAt === null ? '' : ` on ${expiresAt}`}`;
    default:
      // Suspended, revoked or cancelled: the expiry date no longer matters.
      return `License: ${data.license_status}`;
  }
}

function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A one-line progress bar redrawn with a carriage return, at most every 100 ms. */
function progressBar(stream: Output) {
  const width = 30;
  let last = 0;
  let drawn = '';
  const draw = ({ received, total }: DownloadProgress) => {
    let line: string;
    if (total !== null && total > 0) {
      const ratio = Math.min(1, received / total);
      const filled = Math.round(ratio * width);
      const percent = String(Math.floor(ratio * 100)).padStart(3);
      line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}%  ${bytes(received)} / ${bytes(total)}`;
    } else {
      line = `${bytes(received)} received`;
    }
    stream.write(`\r${line}${' '.repeat(Math.max(0, drawn.length - line.length))}`);
    drawn = line;
  };
  let latest: DownloadProgress | undefined;
  return {
    update(progress: DownloadProgress) {
      latest = progress;
      const now = Date.now();
      if (now - last >= 100 || progress.received === progress.total) {
        last = now;
        draw(progress);
      }
    },
    end() {
      if (latest) {
        draw(latest);
        stream.write('\n');
      }
    },
  };
}
