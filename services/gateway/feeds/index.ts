import type { Route } from '../../../libs/http/index.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { sparkleFeedRoute } from './sparkle-routes.js';
import { eddRoutes } from './edd-routes.js';
import { joomlaChangelogRoute, joomlaFeedRoute, joomlaKeyFeedRoute } from './joomla-routes.js';
import { electronFeedRoute } from './electron-routes.js';
import { tauriFeedRoute } from './tauri-routes.js';
import { wordpressFeedRoute } from './wordpress-routes.js';

/** The updaters' feeds (docs/updaters.md), in the order they are matched. */
export const feedRoutes: readonly Route<GatewayDeps>[] = [
  joomlaFeedRoute,
  joomlaKeyFeedRoute,
  joomlaChangelogRoute,
  electronFeedRoute,
  sparkleFeedRoute,
  tauriFeedRoute,
  wordpressFeedRoute,
  ...eddRoutes,
];
