import type { FeedFormat, FeedRequest } from '../../../libs/contracts/index.js';
import type { RenderedFeed } from './feed-answer.js';
import type { FeedContext } from './feed-context.js';
import { electronFeed } from './electron.js';
import { tauriFeed } from './tauri.js';

type Renderers = {
  [F in FeedFormat]?: (context: FeedContext<Extract<FeedRequest, { format: F }>>) => RenderedFeed;
};

/** Each updater's format, by the name its feed request gives. */
export const renderers: Renderers = {
  electron: electronFeed,
  tauri: tauriFeed,
};

/** Renders the feed the request names (the map above pairs each format with its request). */
export function renderFeed(context: FeedContext): RenderedFeed | null {
  const render = renderers[context.request.format] as
    ((context: FeedContext) => RenderedFeed) | undefined;
  return render ? render(context) : null;
}
