import type { CallContext } from '../../../libs/contracts/index.js';
import { identifierKey } from '../../../libs/identifier/index.js';
import type { LicenseEvents } from '../events.js';
import type { LicenseStore } from '../licenses/license-store.js';
import type { LicenseRecord } from '../records.js';
import type { LicensedProduct } from '../rules.js';
import type { TrialStore } from '../trials/trial-store.js';
import { endsTrial, trialProductsOf } from '../trials/trial-rules.js';

/** What ending a trial runs on. */
export interface EndTrialDeps {
  trials: Pick<TrialStore, 'findOpen' | 'isTrialLicense' | 'convert'>;
  licenses: Pick<LicenseStore, 'update'>;
  events: Pick<LicenseEvents, 'trialConverted'>;
  clock: () => Date;
}

/** A license activated on an identifier: the trial of that identifier it ends, if any. */
export type EndTrial = (activated: {
  license: LicenseRecord;
  product: LicensedProduct;
  /** As activated: normalised for the license's activation type (spec 2.4). */
  identifier: string;
  context: CallContext;
}) => Promise<void>;

/**
 * Docs/api-decisions.md, "Trials": a paid license activated on a trial's identifier, for the
 * trial's product (or a bundle holding it), ends the trial: it is marked converted by that
 * license, then its trial license is cancelled, and `trial.converted` is said. Of activations at
 * once, one converts it. Most activations find no open trial: one indexed read.
 */
export function endTrial({ trials, licenses, events, clock }: EndTrialDeps): EndTrial {
  return async ({ license, product, identifier, context }) => {
    const key = identifierKey(identifier);
    const open = await trials.findOpen({
      productIds: trialProductsOf(product),
      identifierKey: key,
    });
    if (!open) return;
    const isTrial = await trials.isTrialLicense(license.license_key);
    if (!endsTrial(open, { license_key: license.license_key, isTrial })) return;
    const now = clock();
    context.beforeWrite();
    const converted = await trials.convert({
      productId: open.product_id,
      identifierKey: key,
      licenseKey: license.license_key,
      at: now,
    });
    if (!converted) return;
    context.beforeWrite();
    await licenses.update({
      licenseKey: converted.license_key,
      changes: { status: 'cancelled' },
      now,
    });
    events.trialConverted({ trial: converted, at: now });
  };
}
