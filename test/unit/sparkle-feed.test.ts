import type { DownloadAccess, FeedRequest } from '../../libs/contracts/index.js';
import { LicensingError } from '../../libs/contracts/index.js';
import { feedContext } from '../../services/update-catalog/feeds/feed-context.js';
import {
  SPARKLE_ITEMS,
  SPARKLE_NAMESPACE,
  rfc822,
  sparkleFeed,
} from '../../services/update-catalog/feeds/sparkle.js';
import type {
  PackageFileRecord,
  ProductRecord,
  VersionRecord,
} from '../../services/update-catalog/stores.js';

const day = (n: number) => new Date(Date.UTC(2026, 0, n));

const product = (access: DownloadAccess = 'public'): ProductRecord => ({
  id: 7,
  title: 'Tabs & <Windows>',
  requires_license: true,
  download_access: access,
  bundle_items: [],
  joomla: null,
  wordpress: null,
  trial_plan_id: null,
  created_at: day(1),
  updated_at: day(1),
});

const version = (id: number, fields: Partial<VersionRecord> = {}): VersionRecord => ({
  id,
  product_id: 7,
  version: `1.${id}.0`,
  release_notes: null,
  release_date: null,
  published: true,
  channel: 'stable',
  rollout_percent: 100,
  created_at: day(1),
  ...fields,
});

const file = (id: number, versionId: number, fields: Partial<PackageFileRecord> = {}) => ({
  id,
  version_id: versionId,
  product_id: 7,
  filename: `App ${versionId}.zip`,
  plan_id: null,
  include_in_updates: true,
  size: 1000 + id,
  sha256: 'a'.repeat(64),
  sha512: null,
  content_type: 'application/zip',
  object_key: `k${id}`,
  platform: 'darwin' as const,
  arch: null,
  signature: `c2lnbmF0dXJl${id}`,
  minimum_system_version: null,
  uploaded_at: day(versionId),
  ...fields,
});

const request = (fields: Partial<Extract<FeedRequest, { format: 'sparkle' }>> = {}) => ({
  format: 'sparkle' as const,
  product_id: 7,
  license_key: null,
  identifier: null,
  key_in_query: false,
  api_url: 'https://licenses.example/api/index.php/v1/licensing',
  if_none_match: null,
  ...fields,
});

function render(
  versions: VersionRecord[],
  files: PackageFileRecord[],
  options: { access?: DownloadAccess } = {},
): string {
  const rendered = sparkleFeed(
    feedContext(request(), { product: product(options.access), versions, files }, null),
  );
  if ('status' in rendered) throw new Error('an appcast always has a body');
  expect(rendered.content_type).toBe('application/rss+xml');
  return rendered.body;
}

const items = (body: string) => [...body.matchAll(/<item>[\s\S]*?<\/item>/g)].map(([i]) => i);

describe('Sparkle appcast renderer', () => {
  test('RSS 2.0 with the sparkle namespace; every value escaped', () => {
    const body = render(
      [version(1, { release_notes: 'Fixes <script> & "quotes" ]]>', release_date: '2026-02-03' })],
      [file(10, 1)],
    );
    expect(body).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<rss version="2.0" /);
    expect(body).toContain(`xmlns:sparkle="${SPARKLE_NAMESPACE}"`);
    expect(body).toContain('<title>Tabs &amp; &lt;Windows&gt; 1.1.0</title>');
    expect(body).toContain(
      '<description>&lt;p&gt;Fixes &amp;lt;script&amp;gt; &amp;amp; &amp;quot;quotes&amp;quot; ]]&amp;gt;&lt;/p&gt;</description>',
    );
    expect(body).toContain('<pubDate>Tue, 03 Feb 2026 00:00:00 GMT</pubDate>');
    expect(body).toContain('<sparkle:version>1.1.0</sparkle:version>');
    expect(body).toContain('<sparkle:shortVersionString>1.1.0</sparkle:shortVersionString>');
    expect(body).toContain(
      '<enclosure url="https://licenses.example/api/index.php/v1/licensing/downloads/7/files/10/App%201.zip" ' +
        'length="1010" type="application/zip" sparkle:edSignature="c2lnbmF0dXJl10"/>',
    );
    expect(body).not.toContain('<sparkle:channel>');
  });

  test('newest first, at most the newest ten versions, each with its channel when not stable', () => {
    const versions = Array.from({ length: 12 }, (_, i) =>
      version(i + 1, { channel: i % 2 === 0 ? 'stable' : 'beta' }),
    );
    const body = render(
      versions,
      versions.map((v) => file(v.id * 10, v.id)),
    );
    const listed = items(body);
    expect(listed).toHaveLength(SPARKLE_ITEMS);
    expect(listed.map((i) => /<sparkle:version>([^<]*)</.exec(i)![1])).toEqual(
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3].map((n) => `1.${n}.0`),
    );
    expect(listed[0]).toContain('<sparkle:channel>beta</sparkle:channel>');
    expect(listed[1]).not.toContain('<sparkle:channel>');
  });

  test('only macOS or any-platform files that carry a signature; the release upload date when no release date', () => {
    const body = render(
      [version(1), version(2), version(3), version(4)],
      [
        file(10, 1, { platform: null }),
        file(20, 2, { platform: 'linux' }),
        file(30, 3, { signature: null }),
        file(40, 4, { platform: 'windows' }),
      ],
    );
    expect(items(body)).toHaveLength(1);
    expect(body).toContain('/files/10/');
    expect(body).toContain(`<pubDate>${day(1).toUTCString()}</pubDate>`);
  });

  test('an Apple silicon file carries its hardware requirement', () => {
    const body = render([version(1)], [file(10, 1, { arch: 'aarch64' })]);
    expect(body).toContain('<sparkle:hardwareRequirements>arm64</sparkle:hardwareRequirements>');
    expect(render([version(1)], [file(10, 1, { arch: 'universal' })])).not.toContain(
      'hardwareRequirements',
    );
  });

  test("a file's minimum macOS is its item's sparkle:minimumSystemVersion, left out when it has none", () => {
    const listed = items(
      render(
        [version(1), version(2)],
        [file(10, 1), file(20, 2, { minimum_system_version: '12.0', arch: 'aarch64' })],
      ),
    );
    expect(listed[0]).toContain(
      '</sparkle:shortVersionString>\n      <sparkle:minimumSystemVersion>12.0</sparkle:minimumSystemVersion>\n      <sparkle:hardwareRequirements>',
    );
    expect(listed[1]).not.toContain('minimumSystemVersion');
  });

  test('a caller that may not download is refused, not shown an empty appcast', () => {
    expect(() => render([version(1)], [file(10, 1)], { access: 'account' })).toThrow(
      LicensingError,
    );
    expect(() => render([version(1)], [file(10, 1)], { access: 'license_key' })).toThrow(
      expect.objectContaining({ code: 'LICENSE_INVALID' }),
    );
  });

  test('no version: an appcast without items', () => {
    expect(items(render([], []))).toEqual([]);
  });

  test('RFC 822 dates', () => {
    expect(rfc822('2026-03-04', day(9))).toBe('Wed, 04 Mar 2026 00:00:00 GMT');
    expect(rfc822(null, new Date(Date.UTC(2026, 0, 2, 13, 4, 5)))).toBe(
      'Fri, 02 Jan 2026 13:04:05 GMT',
    );
  });
});
