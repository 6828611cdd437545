import { unreachableStoreLicenses, type StoreLicenses } from './store-licenses.js';

/**
 * The licenses store events change, in this build: the license service offers no methods for
 * store-made licenses here, so each event is recorded, tried on the applier's schedule, then
 * `failed`, for an admin to apply again.
 */
export function storeLicensesOfThisBuild(): StoreLicenses {
  return unreachableStoreLicenses(
    'The license service does not take store-made licenses in this build.',
  );
}
