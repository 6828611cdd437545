import { z } from 'zod';
import { overviewPeriods } from '../bounds.js';
import { Id } from '../shared.js';

/**
 * The overview of the admin console: what is in use now, and what happened day by day. The
 * daily figures are counters kept as things happen, per UTC day and product, by the service that
 * owns what they count (docs/architecture.md, "Daily counts"): the license service counts
 * activations, deactivations, validations and rejected activations; the download service the
 * downloads served and refused.
 */

/** A UTC calendar day, `YYYY-MM-DD`. */
export const CalendarDay = z.iso.date();

export type OverviewPeriod = (typeof overviewPeriods)[number];

const count = z.number().int().nonnegative();

/** A range of days, both ends included, for one product or (null) every product. */
const DailyCountsRange = {
  product_id: Id.nullable(),
  from: CalendarDay,
  to: CalendarDay,
};

export const LicenseOverviewRequest = z.strictObject(DailyCountsRange);

/** One day of the license service's counters; a day without any is left out. */
export const LicenseDayCounts = z.object({
  day: CalendarDay,
  activations: count,
  deactivations: count,
  validations: count,
  rejected_activations: count,
});
export type LicenseDayCounts = z.infer<typeof LicenseDayCounts>;

/** What is in use now (`license.overview`), from the licenses themselves. */
export const CurrentFigures = z.object({
  active_licenses: count.meta({
    description: 'Licenses active and not past their expiry date.',
  }),
  activations_in_use: count.meta({
    description:
      'The slots their activations take (exempt activations take none), on active licenses.',
  }),
  expiring_in_30_days: count.meta({
    description: 'Active licenses whose expiry date falls within the next 30 days.',
  }),
  trials_started: count.meta({
    description: 'Trials issued, ever (docs/api-decisions.md, "Trials").',
  }),
  trials_converted: count.meta({
    description: 'Of those, the trials a paid license activated on the identifier converted.',
  }),
});
export type CurrentFigures = z.infer<typeof CurrentFigures>;

export const LicenseOverview = z.object({
  current: CurrentFigures,
  days: z.array(LicenseDayCounts),
});

export const DownloadDailyCountsRequest = z.strictObject(DailyCountsRange);

/** One day of the download service's counters; a day without any is left out. */
export const DownloadDayCounts = z.object({
  day: CalendarDay,
  downloads_served: count,
  downloads_refused: count,
});
export type DownloadDayCounts = z.infer<typeof DownloadDayCounts>;

export const DownloadDailyCounts = z.object({ days: z.array(DownloadDayCounts) });

/** One day of the overview: every counter, 0 on a day without any. */
export const OverviewDay = LicenseDayCounts.extend(DownloadDayCounts.shape);
export type OverviewDay = z.infer<typeof OverviewDay>;

/** `GET /admin/v1/overview`: the figures of now, today's refusals, and the days. */
export const Overview = z.object({
  product_id: Id.nullable().meta({ description: 'The product asked for; null: every product.' }),
  days: z.literal(overviewPeriods),
  current: CurrentFigures,
  today: z.object({
    day: CalendarDay.meta({ description: 'Today, in UTC.' }),
    rejected_activations: count,
    downloads_served: count,
    downloads_refused: count,
  }),
  series: z.array(OverviewDay).meta({
    description: 'One entry per UTC day, the oldest first, the last one today.',
  }),
});
export type Overview = z.infer<typeof Overview>;
