import type { HandlersOf } from '../../../libs/contracts/index.js';
import type { LicenseCounts } from './daily-counts.js';
import type { LicenseReadModel } from '../admin/license-read-model.js';
import type { TrialStore } from '../trials/trial-store.js';

/** "Expiring soon" on the admin overview: active licenses whose date falls within this. */
export const EXPIRING_WITHIN_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The admin overview's share of the license service: what is in use now, and the days. */
export function overviewHandlers({
  licenseReads,
  counts,
  trials,
  clock,
}: {
  licenseReads: Pick<LicenseReadModel, 'currentFigures'>;
  trials: Pick<TrialStore, 'counts'>;
  counts: Pick<LicenseCounts, 'totals'>;
  clock: () => Date;
}): Pick<HandlersOf<'license'>, 'license.overview'> {
  return {
    'license.overview': async ({ product_id, from, to }) => {
      const now = clock();
      const [figures, days, tried] = await Promise.all([
        licenseReads.currentFigures({
          productId: product_id,
          now,
          expiringBy: new Date(now.getTime() + EXPIRING_WITHIN_DAYS * DAY_MS),
        }),
        counts.totals({ from, to, productId: product_id }),
        trials.counts({ productId: product_id }),
      ]);
      return {
        current: {
          active_licenses: figures.active,
          activations_in_use: figures.activationsInUse,
          expiring_in_30_days: figures.expiring,
          trials_started: tried.started,
          trials_converted: tried.converted,
        },
        days,
      };
    },
  };
}
