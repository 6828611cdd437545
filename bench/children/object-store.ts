/**
 * The object store of the benchmark: the project's embedded S3-compatible server
 * (services/download/embedded-storage/embedded-storage.ts) in a process of its own, as MinIO would be. The
 * download service reaches it through S3_ENDPOINT, and the benchmark reads from it directly for
 * the baseline of the download throughput.
 */
import { startEmbeddedStorage } from '../../services/download/embedded-storage/embedded-storage.js';
import { runHelper } from './helper.js';

runHelper(async () => {
  const storage = await startEmbeddedStorage();
  return {
    info: {
      endpoint: storage.endpoint,
      accessKey: storage.accessKey,
      secretKey: storage.secretKey,
    },
    stop: storage.stop,
  };
});
