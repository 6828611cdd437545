import type { StartedTrial, Trial } from '../../../libs/contracts/index.js';
import type { TrialRecord } from '../records.js';
import { iso } from '../views.js';

/** A trial started, as its client is answered: the key, its expiry and the activation. */
export function startedTrialView(trial: TrialRecord, activatedAt: Date): StartedTrial {
  return {
    license_key: trial.license_key,
    product_id: trial.product_id,
    expires_at: trial.expires_at.toISOString(),
    activation: { identifier: trial.identifier, activated_at: activatedAt.toISOString() },
  };
}

/** A trial as an admin's list shows it. */
export function trialView(trial: TrialRecord): Trial {
  return {
    product_id: trial.product_id,
    identifier: trial.identifier,
    license_key: trial.license_key,
    started_at: trial.started_at.toISOString(),
    expires_at: trial.expires_at.toISOString(),
    converted_at: iso(trial.converted_at),
    converted_license_key: trial.converted_license_key,
  };
}
