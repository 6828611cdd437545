/**
 * The database of the benchmark when MONGODB_URL is unset: a MongoDB server started by
 * mongodb-memory-server, as the tests start theirs. Prints `{ready, uri, pid}`: the pid is the
 * server process, whose CPU time the benchmark reports apart from the services'.
 */
import { MongoMemoryServer } from 'mongodb-memory-server';
import { runHelper } from './helper.js';

runHelper(async () => {
  const server = await MongoMemoryServer.create();
  const pid = server.instanceInfo?.instance.mongodProcess?.pid;
  if (pid === undefined) throw new Error('the database server has no pid');
  return {
    info: { uri: server.getUri(), pid },
    stop: async () => {
      await server.stop({ doCleanup: true, force: true });
    },
  };
});
