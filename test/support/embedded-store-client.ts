import { Client } from 'minio';
import type { EmbeddedStorage } from '../../services/download/embedded-storage/embedded-storage.js';

/** A minio client of an embedded package store, with its credentials, and a bucket made on it. */
export async function clientWithBucket(store: EmbeddedStorage, bucket: string): Promise<Client> {
  const url = new URL(store.endpoint);
  const client = new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey: store.accessKey,
    secretKey: store.secretKey,
    pathStyle: true,
  });
  await client.makeBucket(bucket, 'us-east-1');
  return client;
}
