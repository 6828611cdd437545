/** The command line's commands: each one's call, its result reported. */
import { readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { duration, required, type Common, type Values } from './cli-arguments.js';
import { UsageError, type CliIo, type Command } from './cli-io.js';
import { keepAlive } from './cli-keep-alive.js';
import { progressBar } from './cli-progress.js';
import { report } from './cli-report.js';
import { LicensingClient } from '../client.js';
import { clientFailure } from '../http.js';
import { verifyLicenseFile } from '../verification/offline-check.js';
import type { ClientOptions } from '../options.js';
import type { CheckoutData, LicenseFileData, LicensingResult, UpdateInfo } from '../result.js';

/** One run of the command line: its command, its options and where it writes. */
export interface Invocation {
  io: CliIo;
  command: Command;
  values: Values;
  positionals: string[];
  common: Common;
}

const product = ({ io, values }: Invocation) =>
  required(io, 'product', values.product, 'LICENSING_PRODUCT');

/** `licensing verify FILE`: a license file checked offline, against the keys of --keys. */
export async function verifyCommand(run: Invocation): Promise<number> {
  const { io, values, positionals } = run;
  const { keys, cache, json } = run.common;
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
      productId: product(run),
      cache,
      identifier: values.identifier,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return report(io, 'verify', result, json);
}

/** The commands that call the server: every one but `verify`. */
export async function clientCommand(run: Invocation): Promise<number> {
  const { io, values, command } = run;
  const { timeout, keys, cache, offlineGrace, json } = run.common;
  const store = required(io, 'store', values.store, 'LICENSING_STORE');
  // The key set is the server's, not a product's: `keys` needs no --product.
  const productId =
    command === 'keys' ? (values.product ?? io.env.LICENSING_PRODUCT ?? '1') : product(run);
  let client: LicensingClient;
  try {
    const options: ClientOptions = { timeout, keys, cache, offlineGrace };
    client = new LicensingClient(store, productId, options);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const key = () => required(io, 'key', values.key, 'LICENSING_KEY');
  const identifier = () => required(io, 'identifier', values.identifier);
  const optionalKey = values.key ?? io.env.LICENSING_KEY;

  let result: LicensingResult<unknown>;
  switch (command) {
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
  return report(io, command, result, json);
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
