import { LicensingError, refusal } from '../../../libs/contracts/index.js';
import { escapeHtml, releaseNotesHtml } from '../../../libs/release-notes/index.js';
import type { RenderedFeed } from './feed-answer.js';
import { releaseFor, type CatalogRelease, type FeedContext } from './feed-context.js';
import { fileUrl } from './links.js';

type WordPressRequest = Extract<FeedContext['request'], { format: 'wordpress' }>;
type EddRequest = Extract<FeedContext['request'], { format: 'edd' }>;

/** The plugin's directory name: the product's WordPress slug, else one made from its id. */
export function pluginSlug({ product }: FeedContext): string {
  return product.wordpress?.slug ?? `product-${product.id}`;
}

/**
 * The plugin's sections, HTML as WordPress shows them: its name as description, and as changelog
 * the version and its notes rendered from Markdown.
 */
export function pluginSections(context: FeedContext, release: CatalogRelease | null) {
  const changelog = release
    ? `<h4>${escapeHtml(release.version.version)}</h4>${releaseNotesHtml(release.version.release_notes)}`
    : '';
  return { description: `<p>${escapeHtml(context.product.title)}</p>`, changelog };
}

/**
 * The plugin's author as WordPress's plugin details show it (HTML, which it filters with
 * `wp_kses`): the seller's name, escaped; nothing when the seller set none.
 */
export function authorField({ request }: FeedContext<WordPressRequest | EddRequest>) {
  return request.author === null ? {} : { author: escapeHtml(request.author) };
}

/**
 * `Y-m-d H:i:s` in UTC, as plugin-update-checker's example and EDD write `last_updated`
 * (WordPress runs PHP in UTC, so `strtotime` reads it as UTC): the release date, else the upload.
 */
export function lastUpdated({ version, uploadedAt }: CatalogRelease): string {
  if (version.release_date !== null) return `${version.release_date} 00:00:00`;
  return uploadedAt.toISOString().slice(0, 19).replace('T', ' ');
}

/** What the product's WordPress settings say of the platform, leaving out what is not set. */
export function platformFields({ product }: FeedContext) {
  const settings = product.wordpress;
  return {
    ...(settings?.requires ? { requires: settings.requires } : {}),
    ...(settings?.tested ? { tested: settings.tested } : {}),
    ...(settings?.requires_php ? { requires_php: settings.requires_php } : {}),
  };
}

/**
 * plugin-update-checker's metadata (its `PluginInfo`): `name` and `version` it requires, the
 * seller as `author`, the plugin's slug, sections and platform versions, and `download_url` only for a caller that may
 * download the file (spec 4.5): without it the plugin shows the update but no install link.
 * Banners and icons are left out, which the checker reads as none.
 */
export function wordpressFeed(context: FeedContext<WordPressRequest>): RenderedFeed {
  const release = releaseFor(context, context.request.channel);
  if (!release) {
    throw LicensingError.from(
      refusal('NOT_FOUND', 'No version of this product is offered to this caller.'),
    );
  }
  return {
    content_type: 'application/json',
    body: JSON.stringify({
      name: context.product.title,
      slug: pluginSlug(context),
      version: release.version.version,
      ...authorField(context),
      ...(context.access.ok
        ? { download_url: fileUrl(context, release, { repeatKey: true }) }
        : {}),
      ...platformFields(context),
      last_updated: lastUpdated(release),
      sections: pluginSections(context, release),
    }),
  };
}
