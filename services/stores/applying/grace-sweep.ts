import type { Logger } from '../../../libs/logging/index.js';
import type { StoreServiceStores } from '../stores.js';
import { mailBuyer } from './apply-event.js';
import type { BuyerMail } from './buyer-mail.js';
import { reportChanges, type ChangeReports } from './change-reports.js';
import type { StoreLicenses } from './store-licenses.js';

const DAY_MS = 86_400_000;

export interface GraceDeps {
  stores: StoreServiceStores;
  licenses: StoreLicenses;
  mail: BuyerMail;
  reports: ChangeReports;
  clock: () => Date;
  logger: Logger;
}

/**
 * The past-due grace (docs/stores.md: "suspended when the connection's grace days have passed"):
 * each license past due for longer than its connection's `grace_days` is suspended, once. The
 * link is marked first, so of several replicas sweeping at once one suspends it; should the
 * license service refuse, the mark is taken back for the next sweep. Each suspension is reported
 * for the audit log, its source the sweep. Answers how many it suspended.
 */
export async function suspendPastGrace(deps: GraceDeps): Promise<number> {
  const { stores, licenses, clock, logger } = deps;
  let suspended = 0;
  for (const connection of await stores.connections.list()) {
    const now = clock();
    const before = new Date(now.getTime() - connection.grace_days * DAY_MS);
    for (const link of await stores.links.pastGrace(connection.id, before)) {
      if (!(await stores.links.markGraceSuspended(link.license_key, now))) continue;
      try {
        // Read first, so the audit log is told the license as it was.
        const was = await licenses.findStoreLicense({
          connection_id: link.connection_id,
          order_id: link.order_id,
          subscription_id: link.subscription_id,
          customer_id: null,
        });
        const license = await licenses.update({
          license_key: link.license_key,
          status: 'suspended',
        });
        suspended++;
        if (was) {
          const made = [{ action: 'updateLicense' as const, before: was, after: license }];
          reportChanges(deps.reports, { connection, event: null }, made, clock());
        }
        logger.info(
          { connection: connection.id, past_due_since: link.past_due_since },
          'store license suspended: its grace days passed',
        );
        await mailBuyer(deps, 'suspended', license, connection, null);
      } catch (error) {
        await stores.links.save(link);
        logger.warn(
          { err: error, connection: connection.id },
          'suspending a past-due license failed',
        );
      }
    }
  }
  return suspended;
}
