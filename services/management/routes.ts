import { HealthReport, LicensingError, serviceNames } from '../../libs/contracts/index.js';
import { documentationRoutes, healthRoutes, type Route } from '../../libs/http/index.js';
import { webApp } from '../../libs/web/web-app.js';
import { activationRoutes } from './licenses/activation-routes.js';
import { adminRoutes } from './admins/admin-routes.js';
import type { ConsoleConfig, Endpoints } from './console-config.js';
import { auditRoutes } from './audit/audit-routes.js';
import { catalogRoutes } from './catalog/catalog-routes.js';
import { entitlementRoutes } from './catalog/entitlement-routes.js';
import { adminRoute } from './route-makers/admin-route.js';
import { ADMIN_BASE, type ManagementDeps } from './management-deps.js';
import { jobRoutes } from './operations/job-routes.js';
import { licenseRoutes } from './licenses/license-routes.js';
import { usageRoutes } from './licenses/usage-routes.js';
import { overviewRoutes } from './overview/overview-routes.js';
import { downloadLogRoutes } from './packages/download-log-routes.js';
import { packageRoutes } from './packages/package-routes.js';
import { signingKeysRoute } from './operations/signing-key-routes.js';
import { storeConnectionRoutes } from './store-connections/store-connection-routes.js';
import { storeEventRoutes } from './store-connections/store-event-routes.js';
import { storeMappingRoutes } from './store-connections/store-mapping-routes.js';
import { trialRoutes } from './licenses/trial-routes.js';
import { webhookRoutes } from './webhooks/webhook-routes.js';

export { ADMIN_BASE };

/** A health check must answer quickly even when a service is down. */
const HEALTH_TIMEOUT_MS = 2000;

const healthRoute = adminRoute({
  method: 'get',
  path: `${ADMIN_BASE}/health`,
  operationId: 'health',
  summary: 'Pings every service behind the management API, each with a 2 s timeout.',
  tag: 'Operations',
  success: { status: 200, description: 'Every service answered.', data: HealthReport },
  errors: {
    503: {
      codes: ['SERVICE_UNAVAILABLE'],
      description: 'A service did not answer; the message names the silent ones.',
    },
  },
  handle: async (_input, { transport }) => {
    const checks = await Promise.allSettled(
      serviceNames.map((service) =>
        transport.call(`${service}.health`, {}, { timeoutMs: HEALTH_TIMEOUT_MS }),
      ),
    );
    const services: HealthReport['services'] = {};
    const down: string[] = [];
    checks.forEach((check, i) => {
      const service = serviceNames[i]!;
      if (check.status === 'fulfilled') {
        const { status, uptime_seconds } = check.value;
        services[service] = { status, uptime_seconds };
      } else {
        const reason = check.reason instanceof Error ? ` (${check.reason.message})` : '';
        down.push(`${service}${reason}`);
      }
    });
    if (down.length > 0) {
      throw new LicensingError('SERVICE_UNAVAILABLE', `Not answering: ${down.join('; ')}`);
    }
    return { data: { status: 'ok' as const, services } };
  },
});

/** Where each admin operation of `routes` is, by operation id (console-config.ts `Endpoints`). */
export function adminEndpoints(routes: readonly Route<ManagementDeps>[]): Endpoints {
  return Object.fromEntries(
    routes
      .filter((route) => route.access === 'admin')
      .map((route) => [route.operationId, { method: route.method, path: route.path }]),
  );
}

/**
 * The admin console: a page of its own at `/`, public because it holds no data; everything it
 * shows comes from the routes below, called with the admin token the person signs in with. Its
 * config says where each operation is, so the console names operations, never paths.
 */
export const consolePage = webApp<ManagementDeps>({
  app: 'console',
  path: '/',
  operationId: 'consolePage',
  summary:
    'The admin console: licenses, products, plans, versions, files, logs, jobs, webhooks, ' +
    'stores, admins and the audit log.',
  tag: 'Admin console',
  page: () => {
    const config: ConsoleConfig = { endpoints: adminEndpoints(managementRoutes) };
    return { config };
  },
});

/**
 * Every route of the management API. Those under /admin/v1 need an admin token and the role the
 * route needs (app.ts; `requiredRole`), and write an audit entry for every change (`adminRoute`);
 * the OpenAPI document is generated from this table (openapi.ts).
 */
export const managementRoutes = [
  ...overviewRoutes,
  ...catalogRoutes,
  ...entitlementRoutes,
  ...licenseRoutes,
  ...usageRoutes,
  ...activationRoutes,
  ...trialRoutes,
  ...packageRoutes,
  ...downloadLogRoutes,
  ...jobRoutes,
  ...webhookRoutes,
  ...storeConnectionRoutes,
  ...storeMappingRoutes,
  ...storeEventRoutes,
  ...adminRoutes,
  ...auditRoutes,
  healthRoute,
  signingKeysRoute,
  consolePage.route,
  ...healthRoutes<ManagementDeps>(),
  ...documentationRoutes<ManagementDeps>({
    title: 'Licensing management API',
    documentPath: '/openapi.json',
    docsPath: '/docs',
    document: (deps) => deps.document,
  }),
  // `as const`: each route keeps its own type, which api-contract.ts reads, rather than all
  // of them merging into `Route`.
] as const satisfies readonly Route<ManagementDeps>[];
