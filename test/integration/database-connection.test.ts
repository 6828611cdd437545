import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectDatabase } from '../../libs/database/index.js';

/**
 * MONGODB_URL on a replica set (docs/operations.md, "Scaling out"): the connection string's
 * options reach the driver, its write concern among them, and every read goes to the primary
 * whatever read preference the string names.
 */

/** The test server's URL with these options added to its query. */
function withOptions(options: string): string {
  const url = process.env.MONGODB_URL;
  if (!url) throw new Error('MONGODB_URL is not set: the global setup starts the test server.');
  return `${url}${url.includes('?') ? '&' : url.endsWith('/') ? '?' : '/?'}${options}`;
}

let connection: Connection | undefined;
afterEach(async () => {
  await connection?.dropDatabase();
  await connection?.close();
  connection = undefined;
});

test("the connection string's write concern reaches the driver, and reads go to the primary even when it names secondaries", async () => {
  connection = await connectDatabase(
    withOptions('w=majority&wtimeoutMS=5000&readPreference=secondaryPreferred'),
    `t${randomBytes(4).toString('hex')}`,
    'license',
  );
  const client = connection.getClient();
  expect(client.options.writeConcern).toMatchObject({ w: 'majority', wtimeoutMS: 5000 });
  expect(client.readPreference.mode).toBe('primary');

  // The latest write is what the next read sees.
  const collection = connection.collection<{ _id: string; n: number }>('probe');
  await collection.insertOne({ _id: 'a', n: 1 });
  await collection.updateOne({ _id: 'a' }, { $inc: { n: 1 } });
  expect(await collection.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 2 });
});

test('a connection string that names no read preference reads from the primary too', async () => {
  connection = await connectDatabase(
    withOptions('appName=licensing-test'),
    `t${randomBytes(4).toString('hex')}`,
    'download',
  );
  expect(connection.getClient().readPreference.mode).toBe('primary');
  expect(connection.getClient().options.appName).toBe('licensing-test');
});
