import type { RenderedFeed } from './feed-answer.js';
import { releaseFor, type FeedContext } from './feed-context.js';
import { fileUrl } from './links.js';
import {
  authorField,
  lastUpdated,
  platformFields,
  pluginSections,
  pluginSlug,
} from './wordpress.js';

type EddRequest = Extract<FeedContext['request'], { format: 'edd' }>;

/**
 * An empty PHP array, serialized: EDD's updater `maybe_unserialize`s banners and icons, and
 * WordPress indexes the icons it stores as an array (a JSON object would be an stdClass there).
 */
const NO_IMAGES = 'a:0:{}';

/**
 * EDD Software Licensing's `get_version` answer, as `EDD_SL_Plugin_Updater` reads it and hands
 * to WordPress's plugin details (`version`, the seller as `author`): `sections`
 * always (the updater drops an answer without it), `package` and `download_link` only for a
 * caller that may download (spec 4.5), else empty with the reason in `msg`; no version for the
 * caller is an empty `new_version`, which the updater reads as nothing to update.
 */
export function eddFeed(context: FeedContext<EddRequest>): RenderedFeed {
  const release = releaseFor(context, context.request.channel);
  const newVersion = release?.version.version ?? '';
  const stable = releaseFor(context, 'stable');
  const download =
    release && context.access.ok ? fileUrl(context, release, { repeatKey: true }) : '';
  const msg = !release
    ? 'No version of this product is offered to this caller.'
    : !context.access.ok
      ? context.access.refusal.message
      : null;
  return {
    content_type: 'application/json',
    body: JSON.stringify({
      new_version: newVersion,
      // WordPress's plugin details read `version`, EDD's update check `new_version`.
      version: newVersion,
      stable_version: stable?.version.version ?? '',
      name: context.product.title,
      ...authorField(context),
      slug: pluginSlug(context),
      url: '',
      last_updated: release ? lastUpdated(release) : '',
      homepage: '',
      package: download,
      download_link: download,
      sections: pluginSections(context, release),
      banners: NO_IMAGES,
      icons: NO_IMAGES,
      ...platformFields(context),
      ...(msg === null ? {} : { msg }),
    }),
  };
}
