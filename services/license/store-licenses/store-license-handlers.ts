import { internalError, type HandlersOf } from '../../../libs/contracts/index.js';
import { generateLicenseKey } from '../admin/admin-handlers.js';
import type { LicenseEvents } from '../events.js';
import type { LicenseStore } from '../licenses/license-store.js';
import type { DetailOf } from '../use-cases/license-detail.js';
import type { LicenseToIssue } from '../use-cases/license-to-issue.js';

/** What the licenses of store sales run on. */
export interface StoreLicenseHandlerDeps {
  licenses: Pick<LicenseStore, 'issueForStore' | 'findByStore'>;
  clock: () => Date;
  events: Pick<LicenseEvents, 'licenseCreated'>;
  toIssue: LicenseToIssue;
  detail: DetailOf;
}

/** Generated keys are 128 random bits: a second taken one would mean something else is wrong. */
const KEY_ROUNDS = 2;

/**
 * The licenses the stores service makes of store sales (docs/stores.md): one per sale, however
 * often and however many at once the sale's events ask for it; found by the sale's ids.
 */
export function storeLicenseHandlers({
  licenses,
  clock,
  events,
  toIssue,
  detail,
}: StoreLicenseHandlerDeps): Pick<
  HandlersOf<'license'>,
  'license.createStoreLicense' | 'license.findStoreLicense'
> {
  return {
    'license.createStoreLicense': async ({ store, ...request }, context) => {
      for (let round = 0; round < KEY_ROUNDS; round++) {
        const license = await toIssue({
          ...request,
          license_key: generateLicenseKey(),
          status: 'active',
        });
        context.beforeWrite();
        const now = clock();
        const issued = await licenses.issueForStore({ license: { ...license, store }, now });
        if (issued.outcome === 'key-taken') continue;
        // A license made for the sale before is answered as it is: its events were sent then.
        if (issued.outcome === 'issued')
          events.licenseCreated({ license: issued.license, at: now });
        return { created: issued.outcome === 'issued', license: await detail(issued.license) };
      }
      throw internalError('Every license key generated was taken.');
    },

    'license.findStoreLicense': async (sale) => {
      const license = await licenses.findByStore(sale);
      return { license: license && (await detail(license)) };
    },
  };
}
