import {
  LicenseSummary,
  LicensingError,
  type BulkLicenseChangeRequest,
  type BulkLicenseChangeResult,
  type BulkLicenseOutcome,
  type LicenseDetail,
  type RequestOf,
} from '../../../libs/contracts/index.js';
import type { Logger } from '../../../libs/logging/index.js';
import type { Transport } from '../../../libs/transport/index.js';

/**
 * Bulk changes of licenses (docs/api-decisions.md, "Bulk changes"): each license changed as its
 * PATCH changes it, and read before, as the PATCH's audit entry reads it.
 */

/**
 * How many changes of a bulk change are under way at once: a hundred are done in a few round
 * trips, while one admin's bulk change leaves the license service room for everyone else.
 */
const BULK_CONCURRENCY = 8;

/** A license a bulk change changed: as it was read before the change, and as it was after. */
export interface LicenseChanged {
  license_key: string;
  before: LicenseDetail;
  after: LicenseDetail;
}

/** What became of one license: its result, and the license before and after if it was changed. */
interface Done {
  outcome: BulkLicenseOutcome;
  changed?: LicenseChanged;
}

/** The change each license of a bulk change gets, as the single change (PATCH) makes it. */
function bulkChangeOf(request: BulkLicenseChangeRequest) {
  switch (request.action) {
    case 'set_status':
      return { status: request.status };
    case 'extend_expiry':
      return { extend_expiry_days: request.days };
    case 'set_expiry':
      return { expires_at: request.expires_at };
  }
}

/**
 * A bulk change: each license read, then changed by its own `license.updateLicense` call, the
 * same rules and events as a single change, a few at a time. What became of each, in the order
 * named; and each license changed, before and after, for the audit log.
 */
export async function changeEach(
  transport: Transport,
  logger: Logger,
  request: BulkLicenseChangeRequest,
): Promise<{ result: BulkLicenseChangeResult; changed: LicenseChanged[] }> {
  const change = bulkChangeOf(request);
  const keys = request.license_keys;
  const done: Done[] = new Array(keys.length);
  const changeOne = async (licenseKey: string): Promise<Done> => {
    const update: RequestOf<'license.updateLicense'> = { license_key: licenseKey, ...change };
    try {
      const before = await transport.call('license.getLicense', { license_key: licenseKey });
      const after = await transport.call('license.updateLicense', update);
      return {
        outcome: { license_key: licenseKey, ok: true, license: LicenseSummary.parse(after) },
        changed: { license_key: licenseKey, before, after },
      };
    } catch (error) {
      const refused =
        error instanceof LicensingError
          ? error
          : new LicensingError('INTERNAL_ERROR', 'An unexpected server failure.');
      if (!(error instanceof LicensingError)) logger.error({ err: error }, 'a bulk change failed');
      const { code, message } = refused;
      return { outcome: { license_key: licenseKey, ok: false, error: { code, message } } };
    }
  };
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const at = next++;
      done[at] = await changeOne(keys[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, keys.length) }, worker));
  const results = done.map(({ outcome }) => outcome);
  const succeeded = results.filter((result) => result.ok).length;
  return {
    result: { results, succeeded, failed: results.length - succeeded },
    changed: done.flatMap(({ changed }) => (changed ? [changed] : [])),
  };
}
