import { createHash } from 'node:crypto';
import {
  checksumMatches,
  downloadUrlWithDlid,
  joomlaChooses,
  joomlaDownloadUrl,
  joomlaLatest,
  joomlaPackageName,
  parseUpdateStream,
  targetPlatformVersionMatches,
  type JoomlaCheck,
} from '../support/joomla-updater.js';
import { phpVersionCompare } from '../support/php-version-compare.js';

interface Entry {
  element?: string;
  type?: string;
  client?: string | null;
  folder?: string;
  version: string;
  platform?: string;
  platformName?: string;
  php?: string;
  tag?: string;
  databases?: string;
  url?: string;
  sha256?: string;
}

function update(e: Entry): string {
  return [
    '<update>',
    `<name>Pro</name><element>${e.element ?? 'pkg_pro'}</element><type>${e.type ?? 'package'}</type>`,
    e.client === null ? '' : `<client>${e.client ?? 'site'}</client>`,
    e.folder !== undefined ? `<folder>${e.folder}</folder>` : '',
    `<version>${e.version}</version>`,
    `<downloads><downloadurl type="full" format="zip">${e.url ?? 'https://x.test/pro.zip'}</downloadurl></downloads>`,
    e.tag ? `<tags><tag>${e.tag}</tag></tags>` : '',
    `<targetplatform name="${e.platformName ?? 'joomla'}" version="${e.platform ?? '5\\.[0-9]+'}"/>`,
    e.php ? `<php_minimum>${e.php}</php_minimum>` : '',
    e.databases ? `<supported_databases ${e.databases}/>` : '',
    e.sha256 ? `<sha256>${e.sha256}</sha256>` : '',
    '</update>',
  ].join('');
}

const stream = (...entries: Entry[]) =>
  parseUpdateStream(`<?xml version="1.0"?>\n<updates>${entries.map(update).join('\n')}</updates>`);

const site: JoomlaCheck = {
  element: 'pkg_pro',
  type: 'package',
  client: 'site',
  joomlaVersion: '5.1.2',
  phpVersion: '8.2.12',
};
const chosenVersion = (s: ReturnType<typeof stream>, check: Partial<JoomlaCheck> = {}) =>
  joomlaChooses(s, { ...site, ...check })?.fields['version'] ?? null;

describe("PHP's version_compare port", () => {
  it.each([
    ['1.2.3', '1.2.3', 0],
    ['1.2.10', '1.2.9', 1],
    ['1.2.3-beta1', '1.2.3', -1],
    ['1.2.3-beta1', '1.2.3-alpha2', 1],
    ['1.2.3-rc1', '1.2.3-beta9', 1],
    ['1.2.3-dev', '1.2.3-alpha', -1],
    ['1.2.3', '1.2.3.0', -1],
    ['1.2.3-pl1', '1.2.3', 1],
    ['1.2.3-stable', '1.2.3-dev', -1],
    ['1.0', '1.0.0-beta', -1],
    ['8.2.12', '8.1', 1],
    ['', '1', -1],
  ])('version_compare(%s, %s) is %i', (a, b, expected) => {
    expect(phpVersionCompare(a, b)).toBe(expected);
  });
});

describe('which update Joomla keeps from a stream', () => {
  it('keeps the highest version by version_compare, not by order in the stream', () => {
    const s = stream({ version: '1.10.0' }, { version: '1.9.0' }, { version: '1.10.0-rc1' });
    expect(chosenVersion(s)).toBe('1.10.0');
  });

  it('matches the targetplatform version as a regex anchored at the start of JVERSION only', () => {
    expect(chosenVersion(stream({ version: '1.0.0', platform: '4\\.[0-9]+' }))).toBeNull();
    expect(chosenVersion(stream({ version: '1.0.0', platform: '5' }))).toBe('1.0.0');
    expect(chosenVersion(stream({ version: '1.0.0', platform: '(4|5)\\.' }))).toBe('1.0.0');
    expect(targetPlatformVersionMatches('5.1', '5.10.0')).toBe(true);
    expect(targetPlatformVersionMatches('.*', '6.0.0')).toBe(true);
  });

  it('ignores an update whose targetplatform version has an unescaped "/" or does not compile', () => {
    expect(targetPlatformVersionMatches('5/6', '5.1.2')).toBe(false);
    expect(targetPlatformVersionMatches('[4/5]', '5.1.2')).toBe(false);
    expect(targetPlatformVersionMatches('5\\/6|5', '5.1.2')).toBe(true);
    expect(targetPlatformVersionMatches('(5', '5.1.2')).toBe(false);
    expect(chosenVersion(stream({ version: '2.0.0', platform: '5/' }), {})).toBeNull();
  });

  it('needs the targetplatform name to be exactly "joomla"', () => {
    expect(chosenVersion(stream({ version: '1.0.0', platformName: 'Joomla' }))).toBeNull();
  });

  it('skips an update whose php_minimum is above PHP_VERSION', () => {
    const s = stream({ version: '2.0.0', php: '8.3' }, { version: '1.5.0', php: '8.1' });
    expect(chosenVersion(s)).toBe('1.5.0');
    expect(chosenVersion(s, { phpVersion: '8.3.0' })).toBe('2.0.0');
  });

  it('skips an update below the minimum stability; an unknown tag counts as stable', () => {
    const s = stream({ version: '2.0.0-beta1', tag: 'beta' }, { version: '1.5.0', tag: 'stable' });
    expect(chosenVersion(s)).toBe('1.5.0');
    expect(chosenVersion(s, { minimumStability: 'beta' })).toBe('2.0.0-beta1');
    expect(chosenVersion(stream({ version: '3.0.0', tag: 'nightly' }))).toBe('3.0.0');
  });

  it('checks supported_databases against the site database, MariaDB by its own key', () => {
    const s = stream({ version: '2.0.0', databases: 'mysql="8.0.13" postgresql="12.0"' });
    expect(chosenVersion(s, { database: { serverType: 'mysql', version: '8.0.36' } })).toBe(
      '2.0.0',
    );
    expect(chosenVersion(s, { database: { serverType: 'mysql', version: '5.7.40' } })).toBeNull();
    const maria = { serverType: 'mysql', version: '5.5.5-10.11.6-MariaDB' };
    expect(chosenVersion(s, { database: maria })).toBeNull();
  });

  it('picks one update for the whole stream before matching the element, so another element can hide ours', () => {
    const s = stream(
      { version: '1.2.0' },
      { version: '9.0.0', element: 'plg_system_pro', type: 'plugin', folder: 'system' },
    );
    expect(joomlaLatest(s, site)?.fields['element']).toBe('plg_system_pro');
    expect(chosenVersion(s)).toBeNull();
  });

  it('ignores an update for another element, type or folder', () => {
    expect(chosenVersion(stream({ version: '1.0.0', element: 'pkg_other' }))).toBeNull();
    expect(chosenVersion(stream({ version: '1.0.0', type: 'component' }))).toBeNull();
    const plugin = { element: 'pro', type: 'plugin', folder: 'system' };
    expect(chosenVersion(stream({ version: '1.0.0', ...plugin }), plugin)).toBe('1.0.0');
    expect(
      chosenVersion(stream({ version: '1.0.0', ...plugin, folder: 'content' }), plugin),
    ).toBeNull();
  });

  it('reads a missing <client> as administrator, which hides a site-client plugin or package', () => {
    expect(chosenVersion(stream({ version: '1.0.0', client: null }))).toBeNull();
    expect(
      chosenVersion(stream({ version: '1.0.0', client: null }), { client: 'administrator' }),
    ).toBe('1.0.0');
    expect(chosenVersion(stream({ version: '1.0.0', client: '0' }))).toBe('1.0.0');
    expect(chosenVersion(stream({ version: '1.0.0', client: 'Site' }))).toBe('1.0.0');
  });

  it('offers only a version strictly above the installed one', () => {
    expect(chosenVersion(stream({ version: '1.2.0' }), { installedVersion: '1.2.0' })).toBeNull();
    expect(chosenVersion(stream({ version: '1.2.0' }), { installedVersion: '1.2.0-rc1' })).toBe(
      '1.2.0',
    );
  });

  it('reads element names case-insensitively and decodes entities in the download URL', () => {
    const s = parseUpdateStream(
      '<UPDATES><Update><element>pkg_pro</element><type>package</type><client>site</client>' +
        '<version>1.0.0</version><downloads><downloadurl>https://x.test/dl?a=1&amp;b=2</downloadurl>' +
        '</downloads><targetplatform name="joomla" version="5"/></Update></UPDATES>',
    );
    expect(joomlaChooses(s, site)?.downloadurl?.text).toBe('https://x.test/dl?a=1&b=2');
  });

  it('throws on a stream Joomla cannot parse', () => {
    expect(() => parseUpdateStream('<updates><update></updates>')).toThrow(/XML error/);
  });
});

describe('the download request', () => {
  it("appends the extra query with '?' or the literal '&amp;', which the Uri class turns into '&'", () => {
    expect(joomlaDownloadUrl(' https://x.test/pro.zip\n', 'dlid=K')).toBe(
      'https://x.test/pro.zip?dlid=K',
    );
    expect(joomlaDownloadUrl('https://x.test/dl?p=1', 'dlid=K')).toBe(
      'https://x.test/dl?p=1&amp;dlid=K',
    );
    expect(downloadUrlWithDlid('https://x.test/dl?p=1', 'dlid=K')).toBe(
      'https://x.test/dl?p=1&dlid=K',
    );
    expect(downloadUrlWithDlid('https://x.test/pro.zip', '')).toBe('https://x.test/pro.zip');
  });

  it("sends 'amp;dlid' for a URL ending in a bare '?' only with joomla/uri 2.0.0 (Joomla 4.0)", () => {
    expect(downloadUrlWithDlid('https://x.test/dl?', 'dlid=K')).toBe('https://x.test/dl?&dlid=K');
    const old = downloadUrlWithDlid('https://x.test/dl?', 'dlid=K', 'joomla-uri-2.0.0');
    expect(old).toBe('https://x.test/dl?&amp;dlid=K');
    expect([...new URL(old).searchParams.keys()]).toEqual(['amp;dlid']);
  });

  it('names the package from Content-Disposition, else from the requested URL with its query', () => {
    expect(
      joomlaPackageName('attachment; filename="pkg_pro-1.2.0.zip"', 'https://x.test/dl?dlid=K'),
    ).toBe('pkg_pro-1.2.0.zip');
    expect(
      joomlaPackageName(
        "attachment; filename*=UTF-8''pkg.zip",
        'https://x.test/dl/pkg_pro.zip?dlid=K',
      ),
    ).toBe('pkg_pro.zip_dlid_K');
    expect(joomlaPackageName(undefined, 'https://x.test/pkg_pro.zip')).toBe('pkg_pro.zip');
    expect(joomlaPackageName('attachment; filename="../../evil.zip"', 'https://x.test/a')).toBe(
      'evil.zip',
    );
  });

  it('validates every hash element present, case-insensitively and untrimmed', () => {
    const bytes = new TextEncoder().encode('zip bytes');
    const hex = createHash('sha256').update(bytes).digest('hex');
    const chosen = (sha256?: string) => joomlaChooses(stream({ version: '1.0.0', sha256 }), site)!;
    expect(checksumMatches(chosen(hex.toUpperCase()), bytes)).toBe('validated');
    expect(checksumMatches(chosen('0'.repeat(64)), bytes)).toBe('not-validated');
    expect(checksumMatches(chosen(` ${hex}`), bytes)).toBe('not-validated');
    expect(checksumMatches(chosen(), bytes)).toBe('not-provided');
  });
});
