import { describeLeaseStores } from '../support/lease-store-contract.js';
import { describeActivationStore } from '../support/activation-store-contract.js';
import { describeLicenseReadModel } from '../support/license-read-model-contract.js';
import { describeLicenseStores } from '../support/license-store-contract.js';
import { describeStoreLicenses } from '../support/store-license-contract.js';
import type { OpenStores } from '../../bench/support/license-store-fixtures.js';
import { describePlanAndAttemptStores } from '../support/plan-and-attempt-stores-contract.js';
import { memoryLicenseStores } from '../../bench/support/license-memory-stores.js';

// The in-memory stores the handler tests use keep the contract of the MongoDB ones
// (test/integration/license-stores.test.ts runs the same body on MongoDB).
const openMemoryStores: OpenStores = async () => {
  const stores = memoryLicenseStores();
  return {
    stores,
    close: async () => {},
    scheduleJob: async (jobName, nextRunAt) => stores.scheduleJob(jobName, nextRunAt),
    fillRecord: async (licenseKey, bytes) => stores.licenses.fillRecord(licenseKey, bytes),
  };
};

describeLicenseStores('in-memory stores', openMemoryStores);
describeStoreLicenses('in-memory stores', openMemoryStores);
describeActivationStore('in-memory stores', openMemoryStores);
describeLicenseReadModel('in-memory stores', openMemoryStores);
describePlanAndAttemptStores('in-memory stores', openMemoryStores);
describeLeaseStores('in-memory stores', openMemoryStores);
