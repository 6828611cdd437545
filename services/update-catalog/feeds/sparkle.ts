import { LicensingError } from '../../../libs/contracts/index.js';
import type { RenderedFeed } from './feed-answer.js';
import { offeredReleases, type CatalogRelease, type FeedContext } from './feed-context.js';
import { fileUrl } from './links.js';
import { releaseNotesHtml } from '../../../libs/release-notes/index.js';
import { xml, type XmlFragment } from './xml.js';

type SparkleRequest = Extract<FeedContext['request'], { format: 'sparkle' }>;

export const SPARKLE_NAMESPACE = 'http://www.andymatuschak.org/xml-namespaces/sparkle';

/** The versions an appcast lists: Sparkle needs only the newest it may take, older ones are history. */
export const SPARKLE_ITEMS = 10;

/** RFC 822 (RSS 2.0 `pubDate`): the release date at midnight UTC, or the upload time. */
export function rfc822(releaseDate: string | null, uploadedAt: Date): string {
  return (releaseDate ? new Date(`${releaseDate}T00:00:00Z`) : uploadedAt).toUTCString();
}

function item(context: FeedContext<SparkleRequest>, release: CatalogRelease): XmlFragment {
  const { version, file } = release;
  // Sparkle takes an item without `sparkle:channel` as the default channel every app takes.
  const channel =
    version.channel === 'stable'
      ? null
      : xml`
      <sparkle:channel>${version.channel}</sparkle:channel>`;
  // An Apple silicon build: Sparkle 2 keeps it from Intel Macs, which cannot run it.
  const hardware =
    file.arch === 'aarch64'
      ? xml`
      <sparkle:hardwareRequirements>arm64</sparkle:hardwareRequirements>`
      : null;
  // The app's LSMinimumSystemVersion: Sparkle does not offer the item to an older macOS.
  const minimum =
    file.minimum_system_version === null
      ? null
      : xml`
      <sparkle:minimumSystemVersion>${file.minimum_system_version}</sparkle:minimumSystemVersion>`;
  const url = fileUrl(context, release, { repeatKey: true });
  return xml`
    <item>
      <title>${context.product.title} ${version.version}</title>
      <pubDate>${rfc822(version.release_date, release.uploadedAt)}</pubDate>
      <sparkle:version>${version.version}</sparkle:version>
      <sparkle:shortVersionString>${version.version}</sparkle:shortVersionString>${channel}${minimum}${hardware}
      <description>${releaseNotesHtml(version.release_notes)}</description>
      <enclosure url="${url}" length="${file.size}" type="${file.content_type}" sparkle:edSignature="${file.signature}"/>
    </item>`;
}

/**
 * Sparkle 2's appcast: the versions the caller is offered on every channel, newest first, each
 * once, with the macOS (or any-platform) file it would get and that file's EdDSA signature;
 * Sparkle itself keeps the channels the app allows (`allowedChannels`) and the newest it may
 * install. A file without a signature is not listed: Sparkle refuses to install it. A caller
 * that may not download gets the refusal of spec 4.5, which Sparkle shows as an update error.
 */
export function sparkleFeed(context: FeedContext<SparkleRequest>): RenderedFeed {
  if (!context.access.ok) throw LicensingError.from(context.access.refusal);
  const { request, product } = context;
  const signed = {
    ...context,
    releases: {
      ...context.releases,
      files: context.releases.files.filter((file) => file.signature !== null),
    },
  };
  const items = offeredReleases(signed, { platform: 'darwin', arch: null }, SPARKLE_ITEMS).map(
    (release) => item(context, release),
  );
  const link = `${request.api_url}/updates/${product.id}/appcast.xml`;
  const body = xml`<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:sparkle="${SPARKLE_NAMESPACE}">
  <channel>
    <title>${product.title}</title>
    <link>${link}</link>
    <description>${product.title} updates</description>${items}
  </channel>
</rss>
`;
  return { content_type: 'application/rss+xml', body: body.text };
}
