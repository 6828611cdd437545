import type { FeedFormat, FeedRequest } from '../../../libs/contracts/index.js';
import type { RenderedFeed } from './feed-answer.js';
import type { FeedContext } from './feed-context.js';
import { eddFeed } from './edd.js';
import { electronFeed } from './electron.js';
import { joomlaChangelog } from './joomla-changelog.js';
import { joomlaFeed } from './joomla.js';
import { sparkleFeed } from './sparkle.js';
import { tauriFeed } from './tauri.js';
import { wordpressFeed } from './wordpress.js';

type Renderers = {
  [F in FeedFormat]: (context: FeedContext<Extract<FeedRequest, { format: F }>>) => RenderedFeed;
};

/** Each updater's format, by the name its feed request gives: every format has one. */
export const renderers: Renderers = {
  joomla: joomlaFeed,
  'joomla-changelog': joomlaChangelog,
  wordpress: wordpressFeed,
  edd: eddFeed,
  electron: electronFeed,
  sparkle: sparkleFeed,
  tauri: tauriFeed,
};

/**
 * Renders the feed the request names. The map pairs each format with the renderer of its own
 * request; TypeScript cannot follow that pairing through the lookup, hence the one cast.
 */
export function renderFeed(context: FeedContext): RenderedFeed {
  const render = renderers[context.request.format] as (context: FeedContext) => RenderedFeed;
  return render(context);
}
