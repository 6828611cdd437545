import {
  DEFAULT_JOOMLA_TARGET_PLATFORM,
  LicensingError,
  refusal,
  releaseChannels,
  type JoomlaSettings,
} from '../../../libs/contracts/index.js';
import type { RenderedFeed } from './feed-answer.js';
import { newestOfEachChannel, type CatalogRelease, type FeedContext } from './feed-context.js';
import { feedUrl, fileUrl } from './links.js';
import { xml, type XmlFragment } from './xml.js';

type JoomlaRequest = Extract<FeedContext['request'], { format: 'joomla' }>;

export const JOOMLA_XML = 'application/xml';

/** The product's Joomla settings; a product without them has no Joomla feed. */
export function joomlaSettingsOf(context: FeedContext): JoomlaSettings {
  const { product } = context;
  if (product.joomla === null) {
    throw LicensingError.from(
      refusal('NOT_FOUND', `Product ${product.id} has no Joomla settings.`),
    );
  }
  return product.joomla;
}

/** The archive format `<downloadurl format>` names, read from the file's name. */
export function archiveFormat(filename: string): string {
  const match = /\.(zip|tar\.gz|tgz|tar\.bz2|tbz2|tar)$/i.exec(filename);
  if (!match) return 'zip';
  const found = match[1]!.toLowerCase();
  return found === 'tgz' ? 'tar.gz' : found === 'tbz2' ? 'tar.bz2' : found;
}

/**
 * One `<update>`: every element Joomla's ExtensionAdapter reads, with no white space inside a
 * value (Joomla trims none of them). The hashes are those of exactly the file the URL serves. The
 * target platform is the Joomla versions the seller declares, else the narrowest default: Joomla
 * 5's pre-update check reads it as the Joomla versions the extension is ready for.
 */
function update(
  context: FeedContext<JoomlaRequest>,
  settings: JoomlaSettings,
  channel: string,
  release: CatalogRelease,
): XmlFragment {
  const { product, request } = context;
  const { version, file } = release;
  const changelog = feedUrl(context, 'changelog.xml');
  // Joomla adds the update site's `dlid` to the download URL, except when installing from a URL,
  // which adds nothing: the stream whose path names the key gives it in the URL instead.
  const download = fileUrl(context, release, { repeatKey: request.key_in_path });
  return xml`
  <update>
    <name>${product.title}</name>
    <description>${product.title} ${version.version}</description>
    <element>${settings.element}</element>
    <type>${settings.type}</type>
    <client>${settings.client}</client>${
      settings.folder === null
        ? null
        : xml`
    <folder>${settings.folder}</folder>`
    }
    <version>${version.version}</version>
    <infourl title="${product.title}">${changelog}</infourl>
    <downloads>
      <downloadurl type="full" format="${archiveFormat(file.filename)}">${download}</downloadurl>
    </downloads>
    <tags>
      <tag>${channel}</tag>
    </tags>
    <targetplatform name="joomla" version="${settings.target_platform ?? DEFAULT_JOOMLA_TARGET_PLATFORM}"/>${
      settings.php_minimum === null
        ? null
        : xml`
    <php_minimum>${settings.php_minimum}</php_minimum>`
    }
    <changelogurl>${changelog}</changelogurl>
    <sha256>${file.sha256}</sha256>${
      file.sha512 === null
        ? null
        : xml`
    <sha512>${file.sha512}</sha512>`
    }
  </update>`;
}

/**
 * Joomla's extension update stream: the newest version of each channel offered to the caller,
 * tagged with its channel. Joomla keeps only one update of a stream (the highest version whose
 * target platform, PHP and stability fit the site), so the stream lists this product alone.
 */
export function joomlaFeed(context: FeedContext<JoomlaRequest>): RenderedFeed {
  const settings = joomlaSettingsOf(context);
  const updates = newestOfEachChannel(context, releaseChannels).map(({ channel, release }) =>
    update(context, settings, channel, release),
  );
  return {
    content_type: JOOMLA_XML,
    body: xml`<?xml version="1.0" encoding="utf-8"?>
<updates>${updates}
</updates>
`.text,
  };
}
