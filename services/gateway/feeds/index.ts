import type { Route } from '../../../libs/http/index.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { electronFeedRoute } from './electron-routes.js';
import { tauriFeedRoute } from './tauri-routes.js';

/** The updaters' feeds (docs/updaters.md), in the order they are matched. */
export const feedRoutes: readonly Route<GatewayDeps>[] = [electronFeedRoute, tauriFeedRoute];
