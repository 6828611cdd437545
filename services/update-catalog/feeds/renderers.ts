import type { FeedFormat, FeedRequest } from '../../../libs/contracts/index.js';
import type { RenderedFeed } from './feed-answer.js';
import type { FeedContext } from './feed-context.js';
import { sparkleFeed } from './sparkle.js';
import { eddFeed } from './edd.js';
import { joomlaChangelog } from './joomla-changelog.js';
import { joomlaFeed } from './joomla.js';
import { electronFeed } from './electron.js';
import { tauriFeed } from './tauri.js';
import { wordpressFeed } from './wordpress.js';

type Renderers = {
  [F in FeedFormat]?: (context: FeedContext<Extract<FeedRequest, { format: F }>>) => RenderedFeed;
};

/** Each updater's format, by the name its feed request gives. */
export const renderers: Renderers = {
  sparkle: sparkleFeed,
  joomla: joomlaFeed,
  'joomla-changelog': joomlaChangelog,
  electron: electronFeed,
  tauri: tauriFeed,
  wordpress: wordpressFeed,
  edd: eddFeed,
};

/** Renders the feed the request names (the map above pairs each format with its request). */
export function renderFeed(context: FeedContext): RenderedFeed | null {
  const render = renderers[context.request.format] as
    ((context: FeedContext) => RenderedFeed) | undefined;
  return render ? render(context) : null;
}
