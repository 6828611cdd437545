/**
 * electron-updater's own code for the generic provider, run in plain Node, for the tests of the
 * electron feeds: its GenericProvider reads the channel file and resolves the files' URLs, its
 * platform updaters' rule picks the file, and its HttpExecutor downloads that file and checks the
 * sha512. Only the transport differs: Electron's `net` is replaced by Node's http and https, so
 * no Electron binary is needed.
 *
 * The modules are imported by their paths under `out/`: the package's main module also loads,
 * but its `autoUpdater` getter builds a platform updater, which needs Electron, and an ES module
 * import of a CommonJS module reads every export.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type RequestOptions,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CancellationToken,
  type GenericServerOptions,
  type UpdateInfo,
} from 'builder-util-runtime';
import { AppUpdater } from 'electron-updater/out/AppUpdater.js';
import { ElectronHttpExecutor } from 'electron-updater/out/electronHttpExecutor.js';
import { MacUpdater } from 'electron-updater/out/MacUpdater.js';
import { GenericProvider } from 'electron-updater/out/providers/GenericProvider.js';
import { findFile } from 'electron-updater/out/providers/Provider.js';
import type { ResolvedUpdateFileInfo } from 'electron-updater/out/types.js';
import { z } from 'zod';

export type ElectronPlatform = 'win32' | 'darwin' | 'linux';

/** The package a Linux app installs from: each has its own updater, which picks its own file. */
export type LinuxTarget = 'AppImage' | 'deb' | 'rpm' | 'pacman';

export interface ElectronUpdateCheck {
  /** The feed's base URL, its query (such as `?license_key=...`) included. */
  feedUrl: string;
  /** The channel's name: `latest` asks for `latest.yml`, `latest-mac.yml` or `latest-linux.yml`. */
  channel: string;
  platform: ElectronPlatform;
  /** The app's `autoUpdater.requestHeaders`, such as `{ Authorization: 'License KEY' }`. */
  requestHeaders?: OutgoingHttpHeaders;
  /** The machine's architecture, which names Linux channel files other than x64's. */
  arch?: string;
  linuxTarget?: LinuxTarget;
}

export interface ElectronDownload {
  version: string;
  /** The channel file as electron-updater parsed it. */
  updateInfo: UpdateInfo;
  /** Every file of the channel file, resolved against the feed's URL. */
  files: URL[];
  /** The file the platform's updater chose and downloaded. */
  url: URL;
  /** What was downloaded; null when the sha512 did not match, as electron-updater then drops it. */
  bytes: Buffer | null;
  sha512Ok: boolean;
  /** electron-updater's own message when the sha512 did not match. */
  sha512Error: string | null;
}

/**
 * Electron's HttpExecutor, its `download` kept, with its requests made by Node's http and https
 * in the way of electron-builder's NodeHttpExecutor.
 */
export class NodeHttpExecutor extends ElectronHttpExecutor {
  override createRequest(
    options: RequestOptions,
    callback: (response: IncomingMessage) => void,
  ): ClientRequest {
    // A connection for each request, as the executor sets a timeout listener on each request's
    // socket, which would pile up on a kept-alive one.
    const fresh = { ...options, agent: false };
    return (options.protocol === 'http:' ? httpRequest : httpsRequest)(fresh, callback);
  }
}

/** MacUpdater's choice between the Intel and the Apple silicon files, for an Intel Mac. */
class MacFiles extends MacUpdater {
  static forIntel(files: ResolvedUpdateFileInfo[]): ResolvedUpdateFileInfo[] {
    return MacUpdater.filterFilesForArch(files, false);
  }
}

/**
 * An AppUpdater built without its constructor, which needs Electron's `app`: the provider reads
 * only its `channel` and `isAddNoCacheQuery` getters, which are electron-updater's own.
 */
function updaterWith(requestHeaders: OutgoingHttpHeaders | null): AppUpdater {
  const updater: AppUpdater = Object.create(AppUpdater.prototype);
  updater.requestHeaders = requestHeaders;
  return updater;
}

/** The file each platform's updater downloads (NsisUpdater, MacUpdater, the Linux updaters). */
function chosenFile(
  files: ResolvedUpdateFileInfo[],
  platform: ElectronPlatform,
  linuxTarget: LinuxTarget,
): ResolvedUpdateFileInfo {
  const others: Record<LinuxTarget, string[]> = {
    AppImage: ['rpm', 'deb', 'pacman'],
    deb: ['AppImage', 'rpm', 'pacman'],
    rpm: ['AppImage', 'deb', 'pacman'],
    pacman: ['AppImage', 'deb', 'rpm'],
  };
  const chosen =
    platform === 'win32'
      ? findFile(files, 'exe')
      : platform === 'darwin'
        ? findFile(MacFiles.forIntel(files), 'zip', ['pkg', 'dmg'])
        : findFile(files, linuxTarget, others[linuxTarget]);
  if (chosen == null) {
    throw new Error(`no file for ${platform} among ${files.map((file) => file.url.href).join()}`);
  }
  return chosen;
}

/** The hex sha256 that old channel files carry, untyped, and electron-updater still checks. */
const legacySha2 = z.object({ sha2: z.string().optional() });

/** Runs `task` with electron-updater's test switch for the architecture set. */
async function withArch<T>(arch: string, task: () => Promise<T>): Promise<T> {
  const before = process.env['TEST_UPDATER_ARCH'];
  process.env['TEST_UPDATER_ARCH'] = arch;
  try {
    return await task();
  } finally {
    if (before === undefined) delete process.env['TEST_UPDATER_ARCH'];
    else process.env['TEST_UPDATER_ARCH'] = before;
  }
}

/** The generic provider for a feed, as electron-updater builds it for `provider: generic`. */
export function genericProvider(check: ElectronUpdateCheck): GenericProvider {
  const configuration: GenericServerOptions = {
    provider: 'generic',
    url: check.feedUrl,
    channel: check.channel,
  };
  const requestHeaders = check.requestHeaders ?? null;
  const provider = new GenericProvider(configuration, updaterWith(requestHeaders), {
    isUseMultipleRangeRequest: true,
    platform: check.platform,
    executor: new NodeHttpExecutor(),
  });
  // AppUpdater sends its staging id, and the app's headers, with the channel file's request.
  provider.setRequestHeaders({ 'x-user-staging-id': randomUUID(), ...requestHeaders });
  return provider;
}

/**
 * Checks the feed and downloads the update as electron-updater would: the channel file, the
 * platform's file resolved against the feed's URL, and that file with its sha512 checked. A
 * refused request throws electron-updater's own error.
 */
export async function checkAndDownload(check: ElectronUpdateCheck): Promise<ElectronDownload> {
  const provider = genericProvider(check);
  const updateInfo = await withArch(check.arch ?? 'x64', () => provider.getLatestVersion());
  const files = provider.resolveFiles(updateInfo);
  const file = chosenFile(files, check.platform, check.linuxTarget ?? 'AppImage');
  const directory = await mkdtemp(join(tmpdir(), 'electron-updater-'));
  const destination = join(directory, 'update');
  try {
    await new NodeHttpExecutor().download(file.url, destination, {
      // AppUpdater's download headers, for a provider with no extra download headers.
      headers: { accept: '*/*', ...check.requestHeaders },
      sha2: legacySha2.parse(file.info).sha2 ?? null,
      sha512: file.info.sha512 ?? null,
      cancellationToken: new CancellationToken(),
    });
    const bytes = await readFile(destination);
    return { ...found(updateInfo, files, file), bytes, sha512Ok: true, sha512Error: null };
  } catch (error) {
    if (!isChecksumMismatch(error)) throw error;
    const sha512Error = error.message;
    return { ...found(updateInfo, files, file), bytes: null, sha512Ok: false, sha512Error };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function found(
  updateInfo: UpdateInfo,
  files: ResolvedUpdateFileInfo[],
  file: ResolvedUpdateFileInfo,
) {
  return {
    version: updateInfo.version,
    updateInfo,
    files: files.map((each) => each.url),
    url: file.url,
  };
}

function isChecksumMismatch(error: unknown): error is Error {
  return error instanceof Error && 'code' in error && error.code === 'ERR_CHECKSUM_MISMATCH';
}
