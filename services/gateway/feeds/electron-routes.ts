import { z } from 'zod';
import {
  IdText,
  LicensingError,
  forbiddenDownloadCodes,
  type FileArch,
  type FilePlatform,
  type ReleaseChannel,
} from '../../../libs/contracts/index.js';
import { feedKeyFields } from './feed-inputs.js';
import { feedRoute } from './feed-route.js';

/** What a channel file's name asks for. */
export interface ElectronChannelFile {
  channel: ReleaseChannel;
  platform: FilePlatform;
  /** Null: any processor (Windows installers and macOS zips name theirs in the file). */
  arch: FileArch | null;
}

/**
 * electron-updater's channel names: `latest` is its default, the stable channel; the others are
 * the catalog's channels by their own names (an app setting `autoUpdater.channel`).
 */
const channelNames = new Map<string, ReleaseChannel>([
  ['latest', 'stable'],
  ['stable', 'stable'],
  ['rc', 'rc'],
  ['beta', 'beta'],
  ['alpha', 'alpha'],
  ['dev', 'dev'],
]);

/**
 * The suffix electron-updater adds for Linux is `-linux` plus `-${process.arch}` off x64; the
 * 32-bit ARM file is also known by electron-builder's own name for it, `armv7l`.
 */
const linuxArchitectures = new Map<string, FileArch>([
  ['', 'x86_64'],
  ['arm64', 'aarch64'],
  ['arm', 'armv7'],
  ['armv7l', 'armv7'],
  ['ia32', 'i686'],
]);

const CHANNEL_FILE = /^(.+?)(?:(-mac)|-linux(?:-([a-z0-9]+))?)?\.yml$/;

/**
 * The channel, platform and processor a channel file's name asks for, as electron-updater names
 * it: `{channel}.yml` on Windows, `{channel}-mac.yml` on macOS, `{channel}-linux.yml` (or
 * `-linux-{arch}.yml`) on Linux. Null for a channel or processor there is no file for.
 */
export function electronChannelFile(name: string): ElectronChannelFile | null {
  const match = CHANNEL_FILE.exec(name);
  if (!match) return null;
  const [whole, channelName = '', mac, linuxArch] = match;
  const channel = channelNames.get(channelName);
  if (!channel) return null;
  if (mac) return { channel, platform: 'darwin', arch: null };
  if (whole.slice(channelName.length).startsWith('-linux')) {
    const arch = linuxArchitectures.get(linuxArch ?? '');
    return arch ? { channel, platform: 'linux', arch } : null;
  }
  return { channel, platform: 'windows', arch: null };
}

const ElectronPath = z.object({
  product_id: IdText,
  file: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}\.yml$/, { message: 'must be a channel file name (.yml)' })
    .meta({
      description:
        'The channel file electron-updater asks for: `latest.yml` (Windows), `latest-mac.yml`, ' +
        '`latest-linux.yml` or `latest-linux-arm64.yml`; `beta.yml` etc. for another channel.',
    }),
});

/**
 * electron-updater's generic provider: electron-builder's `publish` set to
 * `{ provider: 'generic', url: '{api_base}/updates/{product_id}/electron?license_key=KEY' }`.
 */
export const electronFeedRoute = feedRoute({
  path: '/updates/:product_id/electron/:file',
  operationId: 'electronFeed',
  summary:
    "electron-updater's channel file: the newest version of the channel for the platform, " +
    'with each of its files (relative URL, SHA-512, size).',
  body: { text: 'text/yaml' },
  params: ElectronPath,
  query: z.object(feedKeyFields),
  request: (params) => {
    const asked = electronChannelFile(params.file);
    if (!asked) {
      throw new LicensingError('NOT_FOUND', `There is no channel file ${params.file}.`);
    }
    return { format: 'electron' as const, product_id: params.product_id, ...asked };
  },
  errors: {
    403: {
      codes: [...forbiddenDownloadCodes, 'ACTIVATION_NOT_FOUND'],
      description:
        'The key may not download this product (spec 4.5); an identifier not activated is 403 ' +
        'here, as electron-updater reads a 404 as a missing channel.',
    },
    404: {
      codes: ['NOT_FOUND'],
      description:
        'No such product or channel file, or no version of the channel for the platform: ' +
        'electron-updater reports the channel file not found.',
    },
  },
});
