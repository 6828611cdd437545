import { describeLeaseStores } from '../support/lease-store-contract.js';
import { describeLicenseStores, type OpenStores } from '../support/license-store-contract.js';
import { memoryLicenseStores } from '../support/license-memory-stores.js';

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
describeLeaseStores('in-memory stores', openMemoryStores);
