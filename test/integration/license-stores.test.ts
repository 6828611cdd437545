import { randomBytes } from 'node:crypto';
import { connectDatabase } from '../../libs/database/index.js';
import { openMongoStores } from '../../services/license/mongo-stores.js';
import { describeLicenseStores } from '../support/license-store-contract.js';

// The license service's MongoDB stores, each group on a database of its own on the test server
// (test/support/global-setup.ts), dropped after.
describeLicenseStores('MongoDB stores', async () => {
  const url = process.env.MONGODB_URL;
  if (!url) throw new Error('MONGODB_URL is not set: the global setup starts the test server.');
  const db = await connectDatabase(url, `t${randomBytes(4).toString('hex')}`, 'license');
  return {
    stores: await openMongoStores(db),
    close: async () => {
      await db.dropDatabase();
      await db.close();
    },
  };
});
