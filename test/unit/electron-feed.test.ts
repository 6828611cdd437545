import { createHash } from 'node:crypto';
import { parseUpdateInfo, resolveFiles } from 'electron-updater/out/providers/Provider.js';
import { newUrlFromBase } from 'electron-updater/out/util.js';
import type { FeedRequest, LicenseCoverage } from '../../libs/contracts/index.js';
import { electronChannelFile } from '../../services/gateway/feeds/electron-routes.js';
import { electronFeed } from '../../services/update-catalog/feeds/electron.js';
import { feedContext } from '../../services/update-catalog/feeds/feed-context.js';
import type {
  PackageFileRecord,
  ProductRecord,
  VersionRecord,
} from '../../services/update-catalog/stores.js';

/**
 * The Electron channel file (docs/updaters/electron.md) as a pure rendering of the catalog, read
 * back with electron-updater's own parser and URL resolution; and the channel files' names.
 */

const API = 'https://licensing.example/api/index.php/v1/licensing';
const product: ProductRecord = {
  id: 7,
  title: 'App',
  requires_license: true,
  download_access: 'license_key',
  bundle_items: [],
  joomla: null,
  wordpress: null,
  trial_plan_id: null,
  created_at: new Date('2026-01-01T00:00:00Z'),
  updated_at: new Date('2026-01-01T00:00:00Z'),
};

const version = (id: number, number: string, fields: Partial<VersionRecord> = {}) =>
  ({
    id,
    product_id: 7,
    version: number,
    release_notes: null,
    release_date: null,
    published: true,
    channel: 'stable',
    rollout_percent: 100,
    created_at: new Date('2026-01-01T00:00:00Z'),
    ...fields,
  }) satisfies VersionRecord;

const hex512 = (text: string) => createHash('sha512').update(text).digest('hex');

const file = (
  id: number,
  versionId: number,
  filename: string,
  fields: Partial<PackageFileRecord> = {},
) =>
  ({
    id,
    version_id: versionId,
    product_id: 7,
    filename,
    plan_id: null,
    include_in_updates: true,
    size: 1000 + id,
    sha256: 'a'.repeat(64),
    sha512: hex512(filename),
    content_type: 'application/octet-stream',
    object_key: `packages/${id}`,
    platform: null,
    arch: null,
    signature: null,
    minimum_system_version: null,
    uploaded_at: new Date(Date.UTC(2026, 0, 1, 0, id)),
    ...fields,
  }) satisfies PackageFileRecord;

const covering: LicenseCoverage = {
  found: true,
  covers: true,
  status: 'active',
  plan_id: 3,
  expires_at: null,
  auto_renew: false,
  next_payment_at: null,
  in_grace: false,
  grace_ends_at: null,
  updates_until: null,
  identifier_activated: null,
  identifier: null,
  entitlements: [],
};

function render(
  name: string,
  { versions, files }: { versions: VersionRecord[]; files: PackageFileRecord[] },
  coverage: LicenseCoverage | null = covering,
  caller: Partial<FeedRequest> = {},
) {
  const asked = electronChannelFile(name);
  if (!asked) throw new Error(`not a channel file: ${name}`);
  const request = {
    format: 'electron' as const,
    product_id: 7,
    license_key: coverage ? 'KEY-1' : null,
    identifier: null,
    key_in_query: true,
    api_url: API,
    if_none_match: null,
    ...asked,
    ...caller,
  } as Extract<FeedRequest, { format: 'electron' }>;
  const rendered = electronFeed(feedContext(request, { product, versions, files }, coverage));
  if ('status' in rendered) throw new Error('no body');
  return { ...rendered, info: parseUpdateInfo(rendered.body, name, new URL(`${API}/x`)) };
}

const app = {
  versions: [version(1, '1.0.0'), version(2, '1.1.0', { release_date: '2026-03-04' })],
  files: [
    file(1, 1, 'App Setup 1.0.0.exe', { platform: 'windows' }),
    file(2, 2, 'App Setup 1.1.0.exe', { platform: 'windows' }),
    file(3, 2, 'App-1.1.0-mac.zip', { platform: 'darwin', arch: 'x86_64' }),
    file(4, 2, 'App-1.1.0-arm64-mac.zip', { platform: 'darwin', arch: 'aarch64' }),
    file(5, 2, 'App-1.1.0.AppImage', { platform: 'linux', arch: 'x86_64' }),
    file(6, 2, 'App-1.1.0-arm64.AppImage', { platform: 'linux', arch: 'aarch64' }),
  ],
};

describe('electronChannelFile: what a channel file name asks for', () => {
  test.each([
    ['latest.yml', { channel: 'stable', platform: 'windows', arch: null }],
    ['stable.yml', { channel: 'stable', platform: 'windows', arch: null }],
    ['beta.yml', { channel: 'beta', platform: 'windows', arch: null }],
    ['latest-mac.yml', { channel: 'stable', platform: 'darwin', arch: null }],
    ['alpha-mac.yml', { channel: 'alpha', platform: 'darwin', arch: null }],
    ['latest-linux.yml', { channel: 'stable', platform: 'linux', arch: 'x86_64' }],
    ['latest-linux-arm64.yml', { channel: 'stable', platform: 'linux', arch: 'aarch64' }],
    ['rc-linux-arm.yml', { channel: 'rc', platform: 'linux', arch: 'armv7' }],
    ['dev-linux-armv7l.yml', { channel: 'dev', platform: 'linux', arch: 'armv7' }],
    ['latest-linux-ia32.yml', { channel: 'stable', platform: 'linux', arch: 'i686' }],
  ])('%s', (name, asked) => {
    expect(electronChannelFile(name)).toEqual(asked);
  });

  test.each(['nightly.yml', 'latest-linux-s390x.yml', 'latest-windows.yml', 'latest.json', '.yml'])(
    '%s names no channel file',
    (name) => {
      expect(electronChannelFile(name)).toBeNull();
    },
  );
});

describe('electronFeed: the channel file', () => {
  test("Windows: the newest version's files for Windows, read by electron-updater's parser", () => {
    const { info, content_type } = render('latest.yml', app);
    expect(content_type).toMatch(/^text\/yaml/);
    const url = '../../../downloads/7/files/2/App%20Setup%201.1.0.exe';
    const sha512 = Buffer.from(hex512('App Setup 1.1.0.exe'), 'hex').toString('base64');
    expect(info).toEqual({
      version: '1.1.0',
      files: [{ url, sha512, size: 1002 }],
      path: url,
      sha512,
      releaseDate: '2026-03-04T00:00:00.000Z',
    });
  });

  test("the relative URL resolves, as electron-updater resolves it, to the file's pinned download with the feed's query", () => {
    const { info } = render('latest-mac.yml', app);
    // electron-updater's base: the configured URL with a `/` added to its path.
    const base = new URL(`${API}/updates/7/electron/?license_key=KEY-1`);
    expect(newUrlFromBase('latest-mac.yml', base).href).toBe(
      `${API}/updates/7/electron/latest-mac.yml?license_key=KEY-1`,
    );
    // Both zips: MacUpdater picks by the name, `arm64` in it for Apple silicon.
    expect(resolveFiles(info, base).map((each) => each.url.href)).toEqual([
      `${API}/downloads/7/files/4/App-1.1.0-arm64-mac.zip?license_key=KEY-1`,
      `${API}/downloads/7/files/3/App-1.1.0-mac.zip?license_key=KEY-1`,
    ]);
    // Without a query the same paths, with none.
    expect(new URL(info.files[1]!.url, `${API}/updates/7/electron/`).href).toBe(
      `${API}/downloads/7/files/3/App-1.1.0-mac.zip`,
    );
  });

  test('Linux: the file for the processor the name asks for; the upload time without a release date', () => {
    const x64 = render('latest-linux.yml', app).info;
    expect(x64.files.map((each) => each.url)).toEqual([
      '../../../downloads/7/files/5/App-1.1.0.AppImage',
    ]);
    const arm = render('latest-linux-arm64.yml', {
      ...app,
      versions: [version(1, '1.0.0'), version(2, '1.1.0')],
    }).info;
    expect(arm.files.map((each) => each.url)).toEqual([
      '../../../downloads/7/files/6/App-1.1.0-arm64.AppImage',
    ]);
    expect(arm.releaseDate).toBe('2026-01-01T00:06:00.000Z');
  });

  test("the plan's own file is listed first; another plan's file is not listed", () => {
    const files = [
      ...app.files,
      file(7, 2, 'App Setup 1.1.0 pro.exe', { platform: 'windows', plan_id: 3 }),
      file(8, 2, 'App Setup 1.1.0 other.exe', { platform: 'windows', plan_id: 4 }),
    ];
    const { info } = render('latest.yml', { ...app, files });
    expect(info.files.map((each) => each.url)).toEqual([
      '../../../downloads/7/files/7/App%20Setup%201.1.0%20pro.exe',
      '../../../downloads/7/files/2/App%20Setup%201.1.0.exe',
    ]);
    expect(info.path).toBe(info.files[0]!.url);
  });

  test('files without a SHA-512 and versions not numbered in semver are not offered', () => {
    const files = [
      ...app.files,
      file(9, 3, 'App Setup 1.2.0.exe', { platform: 'windows', sha512: null }),
      file(10, 4, 'App Setup 1.3.exe', { platform: 'windows' }),
    ];
    const versions = [...app.versions, version(3, '1.2.0'), version(4, '1.3')];
    expect(render('latest.yml', { versions, files }).info.version).toBe('1.1.0');
  });

  test('a channel takes the more stable ones too; release notes are carried as text; strings stay strings', () => {
    const versions = [
      ...app.versions,
      version(3, '1.2.0-beta.1', { channel: 'beta', release_notes: '**Faster**: 1.10' }),
    ];
    const files = [...app.files, file(11, 3, 'App Setup 1.2.0-beta.1.exe')];
    expect(render('latest.yml', { versions, files }).info.version).toBe('1.1.0');
    const beta = render('beta.yml', { versions, files });
    expect(beta.info).toMatchObject({ version: '1.2.0-beta.1', releaseNotes: 'Faster: 1.10' });
    expect(typeof beta.info.releaseDate).toBe('string');
  });

  test('a key that may not download is refused with 403, an identifier not activated too', () => {
    expect(() => render('latest.yml', app, null)).toThrow(
      expect.objectContaining({ code: 'LICENSE_INVALID', status: 403 }),
    );
    const notActivated = { ...covering, identifier_activated: false };
    expect(() => render('latest.yml', app, notActivated, { identifier: 'host-1' })).toThrow(
      expect.objectContaining({ code: 'ACTIVATION_NOT_FOUND', status: 403 }),
    );
  });

  test('nothing for the platform or channel: 404, which electron-updater reads as no channel file', () => {
    const windowsOnly = { versions: app.versions, files: app.files.slice(0, 2) };
    expect(() => render('latest-mac.yml', windowsOnly)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', status: 404 }),
    );
  });
});
