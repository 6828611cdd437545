import { documentationRoutes, healthRoutes, type Route } from '../../libs/http/index.js';
import { webApp } from '../../libs/web/web-app.js';
import { downloadRoute, pinnedFileDownloadRoute } from './downloads/download-routes.js';
import { feedRoutes } from './feeds/index.js';
import { indexRoute } from './index-route.js';
import { keySetRoute } from './key-routes.js';
import { licenseRoutes } from './licenses/license-routes.js';
import { portalRoute } from './portal-routes.js';
import { storeEventRoute } from './store-event-routes.js';
import { trialRoute } from './licenses/trial-routes.js';
import type { GatewayDeps } from './gateway-deps.js';
import { updateCheckRoute } from './feeds/update-routes.js';
import { usageRoute } from './licenses/usage-routes.js';

/** The customer portal (spec 1, 2.3): a page of its own, reading the portal's data route. */
export const portalPage = webApp<GatewayDeps>({
  app: 'portal',
  path: '/portal',
  operationId: 'portalPage',
  summary: 'The customer portal: a customer sees their license and activated identifiers.',
  tag: 'Customer portal',
  // The store's name in the title; its settings in the page, for the portal to show.
  page: ({ portal }) => ({
    ...(portal.store_name === null ? {} : { title: `Your license: ${portal.store_name}` }),
    config: { ...portal },
  }),
});

/**
 * Every route of the public API (spec 4), in the order they are matched. The OpenAPI document is
 * generated from this table (openapi.ts).
 */
export const publicRoutes: readonly Route<GatewayDeps>[] = [
  ...licenseRoutes,
  usageRoute,
  trialRoute,
  portalRoute,
  storeEventRoute,
  ...feedRoutes,
  updateCheckRoute,
  downloadRoute,
  pinnedFileDownloadRoute,
  keySetRoute,
  portalPage.route,
  indexRoute(),
  ...healthRoutes<GatewayDeps>(),
  ...documentationRoutes<GatewayDeps>({
    title: 'Licensing API',
    documentPath: '/openapi.json',
    docsPath: '/docs',
    document: (deps) => deps.document,
  }),
];
