import { z } from 'zod';
import { IdText, Overview, overviewPeriods } from '../../../libs/contracts/index.js';
import type { Route } from '../../../libs/http/index.js';
import { adminErrors } from '../route-makers/admin-errors.js';
import { absentIfEmpty } from '../route-makers/admin-inputs.js';
import { adminRoute } from '../route-makers/admin-route.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { overviewRange, overviewView } from './overview.js';

const OverviewQuery = z.strictObject({
  product_id: absentIfEmpty(IdText).meta({
    description: "One product's figures; absent: every product's.",
  }),
  days: absentIfEmpty(
    z
      .enum(overviewPeriods.map(String) as ['30', '90'], { error: 'must be 30 or 90' })
      .transform((days) => Number(days) as (typeof overviewPeriods)[number]),
  ).meta({
    description: 'How many days the series covers, ending today (UTC): 30 (default) or 90.',
  }),
});

/**
 * The first page of the console: what is in use now, today's refusals, and the last 30 or 90
 * UTC days, from the licenses and the daily counts of the license and download services
 * (docs/architecture.md, "Daily counts").
 */
export const overviewRoutes = [
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/overview`,
    operationId: 'overview',
    summary:
      'Active licenses, activations in use, licenses expiring in 30 days, today’s refused ' +
      'activations and downloads, and per UTC day: activations, deactivations, validations, ' +
      'rejected activations, downloads served and refused.',
    tag: 'Overview',
    query: OverviewQuery,
    success: { status: 200, description: 'The overview.', data: Overview },
    errors: {
      400: adminErrors[400]('A product id that is not a positive integer, or days not 30 or 90.'),
    },
    handle: async ({ query }, { transport }) => {
      const productId = query.product_id ?? null;
      const days = query.days ?? 30;
      const range = overviewRange(new Date(), days);
      const request = { product_id: productId, ...range };
      const [license, downloads] = await Promise.all([
        transport.call('license.overview', request),
        transport.call('download.dailyCounts', request),
      ]);
      return {
        data: overviewView({
          productId,
          days,
          range,
          current: license.current,
          licenseDays: license.days,
          downloadDays: downloads.days,
        }),
      };
    },
  }),
] satisfies readonly Route<ManagementDeps>[];
