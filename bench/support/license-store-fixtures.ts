import { randomBytes, randomUUID } from 'node:crypto';
import { identifierKey } from '../../libs/identifier/index.js';
import type { NewActivation } from '../../services/license/activations/activation-store.js';
import type { NewLicense } from '../../services/license/licenses/license-store.js';
import type { LicenseRecord } from '../../services/license/records.js';
import type { LicenseStores } from '../../services/license/stores.js';

/**
 * Opens empty stores; `close` removes whatever they hold; `scheduleJob` writes what the scheduler
 * would record of a recurring job (services/license/lifecycle/scheduler.ts), for `nextScheduledRun`;
 * `fillRecord` makes a license's record as full of activations as `bytes` says, as tens of
 * thousands of them would.
 */
export type OpenStores = () => Promise<{
  stores: LicenseStores;
  close(): Promise<void>;
  scheduleJob(jobName: string, nextRunAt: Date | null): Promise<void>;
  fillRecord(licenseKey: string, bytes: number): Promise<void>;
}>;

export const NOW = new Date('2026-06-01T12:00:00.000Z');
export const EARLIER = new Date('2026-05-01T00:00:00.000Z');
export const LATER = new Date('2027-01-01T00:00:00.000Z');
export const DAY = 24 * 60 * 60 * 1000;

export const uniqueKey = () => `key-${randomBytes(6).toString('hex')}`;

/** A check's call: an id of its own, and a caller that waits for a minute more. */
export const newCall = () => ({ checkId: randomUUID(), deadline: Date.now() + 60_000 });

/** A license to issue: active, no expiry, 3 domains, no lease; `overrides` changes some. */
export function newLicense(overrides: Partial<NewLicense> = {}): NewLicense {
  return {
    license_key: uniqueKey(),
    product_id: 10,
    plan_id: 1,
    status: 'active',
    expires_at: null,
    auto_renew: false,
    next_payment_at: null,
    activation_type: 'domain',
    activation_limit: 3,
    lease_seconds: null,
    exempt_identifiers: [],
    exempt_limit: 3,
    ...overrides,
  };
}

export function activation(
  identifier: string,
  overrides: Partial<NewActivation> = {},
): NewActivation {
  return {
    identifier,
    name: null,
    ip: '192.0.2.1',
    activated_at: EARLIER,
    lease_expires_at: null,
    exempt: false,
    ...overrides,
  };
}

/** What a plan applied to a license sets besides its id, limit and type: no lease, no exemptions. */
export const NO_LEASE = { lease_seconds: null, exempt_identifiers: [], exempt_limit: 3 };
/** A checkout on a license without a lease: none decided on, none renewed. */
export const NO_LEASE_CHECKOUT = { leaseSeconds: null, leaseExpiresAt: null };

/** Releases the activation of an identifier as a handler does: as read, then released. */
export async function releaseIdentifier(
  stores: LicenseStores,
  { licenseKey, identifier, now }: { licenseKey: string; identifier: string; now: Date },
) {
  const found = await stores.licenses.findWithActivations({
    licenseKey,
    identifierKeys: [identifierKey(identifier)],
  });
  const activation = found?.activations[0];
  return activation ? stores.licenses.releaseSlot({ licenseKey, activation, now }) : null;
}

/** The identifiers activated on a license, sorted. */
export async function identifiersOf(stores: LicenseStores, licenseKey: string): Promise<string[]> {
  const { activations } = await stores.licenseReads.listActivations({
    licenseKey,
    identifierKeys: null,
    page: 1,
    perPage: 1000,
  });
  return activations.map((a) => a.identifier).sort();
}

/** Issues a license at NOW: newLicense's, `overrides` changing some of its fields. */
export async function issueLicense(
  stores: LicenseStores,
  overrides: Partial<NewLicense> = {},
): Promise<LicenseRecord> {
  const issued = await stores.licenses.issue({ license: newLicense(overrides), now: NOW });
  if (issued.outcome !== 'issued') throw new Error('The license was not issued.');
  return issued.license;
}

/**
 * Stores opened for a group of tests, closed after it: fresh stores for each group, so counts
 * over a whole store see only the group's records.
 */
export function withOpened(open: OpenStores): () => Awaited<ReturnType<OpenStores>> {
  let opened: Awaited<ReturnType<OpenStores>> | undefined;
  beforeAll(async () => {
    opened = await open();
  });
  afterAll(async () => {
    await opened?.close();
  });
  return () => {
    if (!opened) throw new Error('The stores did not open.');
    return opened;
  };
}

export function withStores(open: OpenStores): () => LicenseStores {
  const opened = withOpened(open);
  return () => opened().stores;
}
