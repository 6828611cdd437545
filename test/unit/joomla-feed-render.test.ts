import type { FeedRequest } from '../../libs/contracts/index.js';
import { feedContext } from '../../services/update-catalog/feeds/feed-context.js';
import { joomlaChangelog } from '../../services/update-catalog/feeds/joomla-changelog.js';
import { releaseNotesItems } from '../../libs/release-notes/index.js';
import { archiveFormat, joomlaFeed } from '../../services/update-catalog/feeds/joomla.js';
import type {
  PackageFileRecord,
  ProductRecord,
  VersionRecord,
} from '../../services/update-catalog/stores.js';
import { cdata } from '../../services/update-catalog/feeds/xml.js';
import { parseUpdateStream } from '../support/joomla-updater.js';
import { readXmlEvents } from '../support/joomla-update-xml.js';

/** The Joomla renderers as pure functions of a feed context (docs/updaters/joomla.md). */

const product: ProductRecord = {
  id: 7,
  title: 'Example <Pro> & co',
  requires_license: true,
  download_access: 'license_key',
  bundle_items: [],
  joomla: {
    element: 'com_example',
    type: 'component',
    client: 'administrator',
    folder: null,
    target_platform: '5\\.[0-9]',
    php_minimum: null,
  },
  wordpress: null,
  trial_plan_id: null,
  created_at: new Date('2026-01-01T00:00:00Z'),
  updated_at: new Date('2026-01-01T00:00:00Z'),
};

const version = (id: number, fields: Partial<VersionRecord> = {}): VersionRecord => ({
  id,
  product_id: 7,
  version: `1.${id}.0`,
  release_notes: null,
  release_date: null,
  published: true,
  channel: 'stable',
  rollout_percent: 100,
  created_at: new Date('2026-01-01T00:00:00Z'),
  ...fields,
});

const file = (id: number, fields: Partial<PackageFileRecord> = {}): PackageFileRecord => ({
  id,
  version_id: id,
  product_id: 7,
  filename: `com_example-${id}.zip`,
  plan_id: null,
  include_in_updates: true,
  size: 10,
  sha256: 'a'.repeat(64),
  sha512: null,
  content_type: 'application/zip',
  object_key: `k${id}`,
  platform: null,
  arch: null,
  signature: null,
  minimum_system_version: null,
  uploaded_at: new Date(Date.UTC(2026, 0, 1 + id)),
  ...fields,
});

function context<F extends 'joomla' | 'joomla-changelog'>(
  format: F,
  releases: { versions: VersionRecord[]; files: PackageFileRecord[] },
  productRecord: ProductRecord = product,
) {
  const request = {
    format,
    product_id: 7,
    license_key: null,
    identifier: null,
    key_in_query: false,
    api_url: 'https://example.test/api',
    if_none_match: null,
    ...(format === 'joomla' ? { key_in_path: false } : {}),
  } as Extract<FeedRequest, { format: F }>;
  return feedContext(request, { product: productRecord, ...releases }, null);
}

const body = (rendered: ReturnType<typeof joomlaFeed>) => ('body' in rendered ? rendered.body : '');

describe('the Joomla update stream, rendered', () => {
  test('a file uploaded before SHA-512s were made lists its SHA-256 only; values are escaped', () => {
    const rendered = joomlaFeed(
      context('joomla', {
        versions: [version(1), version(2, { channel: 'rc' })],
        files: [file(1), file(2, { sha512: 'b'.repeat(128) })],
      }),
    );
    const { updates } = parseUpdateStream(body(rendered));
    expect(updates.map((u) => [u.fields['version'], u.hashes])).toEqual([
      ['1.2.0', { sha256: 'a'.repeat(64), sha512: 'b'.repeat(128) }],
      ['1.1.0', { sha256: 'a'.repeat(64) }],
    ]);
    expect(updates[0]!.fields['name']).toBe('Example <Pro> & co');
    expect(updates[0]!.fields['client']).toBe('administrator');
    // Not a plugin: no group, and no PHP minimum when none is set.
    expect(updates[0]!.fields['folder']).toBeUndefined();
    expect(updates[0]!.phpMinimum).toBeUndefined();
  });

  test('an empty stream when nothing is offered; a product without Joomla settings has none', () => {
    expect(
      parseUpdateStream(body(joomlaFeed(context('joomla', { versions: [], files: [] })))),
    ).toEqual({
      updates: [],
    });
    expect(() =>
      joomlaFeed(context('joomla', { versions: [], files: [] }, { ...product, joomla: null })),
    ).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: 'Product 7 has no Joomla settings.' }),
    );
  });

  test("the download URL's format is the file's archive", () => {
    expect(
      ['a.zip', 'a.tar.gz', 'a.TGZ', 'a.tar.bz2', 'a.tar', 'a.bin'].map(archiveFormat),
    ).toEqual(['zip', 'tar.gz', 'tar.gz', 'tar.bz2', 'tar', 'zip']);
  });
});

describe("Joomla's changelog, rendered", () => {
  test('an item per list item or line of the Markdown, as HTML; raw HTML escaped, a javascript: link no link', () => {
    expect(
      releaseNotesItems(
        '- One\r\n\r\n  * **Two** <i>\n• Three & four\n+ [five](javascript:x)\n-six\n\n[*a\nb*](https://example.com)',
      ),
    ).toEqual([
      'One',
      '<strong>Two</strong> &lt;i&gt;',
      '• Three &amp; four',
      '[five](javascript:x)',
      '-six',
      // A line break inside a link or an emphasis keeps the item whole.
      '<a href="https://example.com"><em>a<br>\nb</em></a>',
    ]);
    expect(releaseNotesItems(null)).toEqual([]);
  });

  test('each item is one CDATA section, so no entity splits it; a version without notes has no <change>', () => {
    const rendered = joomlaChangelog(
      context('joomla-changelog', {
        versions: [version(1, { release_notes: 'A ]]> B & C' }), version(2)],
        files: [file(1), file(2)],
      }),
    );
    const text = body(rendered);
    expect(text).toContain('<item><![CDATA[A ]]&gt; B &amp; C]]></item>');
    expect(text.match(/<change>/g)).toHaveLength(1);
    expect(text.indexOf('<version>1.2.0</version>')).toBeLessThan(
      text.indexOf('<version>1.1.0</version>'),
    );
  });

  test('a CDATA section carries any text, a "]]>" across two sections', () => {
    const text = 'x ]]> y';
    const events = readXmlEvents(`<a>${cdata(text).text}</a>`);
    expect(events.flatMap((e) => (e.kind === 'text' ? [e.data] : [])).join('')).toBe(text);
  });
});
