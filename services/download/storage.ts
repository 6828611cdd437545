import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Client } from 'minio';
import { LicensingError, type CallContext } from '../../libs/contracts/index.js';
import { settled } from '../../libs/process/timeout.js';

/**
 * Parts of multipart uploads. Bytes are buffered one part at a time by the minio client, so this
 * bounds the memory an upload takes; 10,000 parts of 5 MiB allow packages up to 48 GiB.
 */
export const PART_SIZE = 5 * 1024 * 1024;

export interface StorageSettings {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
  /** The store's address as clients reach it, for the URLs they are redirected to. */
  publicEndpoint?: string;
  /** False for the embedded store, which no client is sent to (docs/operations.md). */
  servesClients?: boolean;
}

export interface StoredObject {
  size: number;
  sha256: string;
  /** Lowercase hex, for the updaters that check SHA-512 (electron-updater, Joomla). */
  sha512: string;
}

export interface ObjectInfo {
  size: number;
  last_modified: Date;
}

/** How long a failed upload waits for minio to settle its part in flight before cleaning up. */
const UPLOAD_SETTLE_TIMEOUT_MS = 60_000;

const toError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'NotFound' || code === 'NoSuchKey';
}

/** The first chunk of a stream, or null when it ends without one (an empty body). */
function firstChunk(source: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      source.off('readable', onReadable);
      source.off('end', onEnd);
      source.off('error', onError);
      source.off('close', onClose);
    };
    const onReadable = () => {
      const chunk = source.read() as Buffer | null;
      if (chunk !== null) {
        cleanup();
        resolve(chunk);
      }
    };
    const onEnd = () => {
      cleanup();
      resolve(null);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new Error('The upload was interrupted.'));
    };
    source.on('readable', onReadable);
    source.once('end', onEnd);
    source.once('error', onError);
    source.once('close', onClose);
  });
}

/** Exactly `length` bytes of `source`: fewer is an error; more (a server ignoring the range) are cut. */
async function* exactly(source: Readable, length: number): AsyncGenerator<Buffer> {
  let remaining = length;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      if (remaining === 0) break;
      const part = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
      remaining -= part.length;
      yield part;
    }
  } finally {
    source.destroy();
  }
  if (remaining > 0) throw new Error('The stored object is shorter than expected.');
}

/**
 * Package storage on any S3-compatible server (MinIO, or the embedded s3rver) through the minio
 * client. Bytes are always streamed: nothing here holds a whole package in memory.
 */
export class PackageStorage {
  private constructor(
    private readonly client: Client,
    /**
     * The client that signs the URLs clients are sent to (the same one without a public
     * endpoint); null when no client is sent to the store.
     */
    private readonly publicClient: Client | null,
    readonly bucket: string,
  ) {}

  /** Connects and creates the bucket when it is missing. */
  static async connect(settings: StorageSettings): Promise<PackageStorage> {
    const clientFor = (endpoint: string) => {
      const url = new URL(endpoint);
      const useSSL = url.protocol === 'https:';
      return new Client({
        endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port ? Number(url.port) : useSSL ? 443 : 80,
        useSSL,
        accessKey: settings.accessKey,
        secretKey: settings.secretKey,
        region: settings.region,
        pathStyle: true,
        partSize: PART_SIZE,
      });
    };
    const client = clientFor(settings.endpoint);
    const publicClient =
      settings.servesClients === false
        ? null
        : settings.publicEndpoint
          ? clientFor(settings.publicEndpoint)
          : client;
    const storage = new PackageStorage(client, publicClient, settings.bucket);
    await storage.ensureBucket(settings.region);
    return storage;
  }

  /** Readiness: the object store answers and the bucket is there. */
  async check(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) {
      throw new Error(`the bucket ${this.bucket} is missing`);
    }
  }

  private async ensureBucket(region: string): Promise<void> {
    if (await this.client.bucketExists(this.bucket)) return;
    try {
      await this.client.makeBucket(this.bucket, region);
    } catch (error) {
      // Another replica created it meanwhile.
      if (!(await this.client.bucketExists(this.bucket))) throw error;
    }
  }

  /**
   * Streams `source` into a new object, counting its size, SHA-256 and SHA-512 on the way. An empty
   * source is refused; one over `maxBytes` fails with PAYLOAD_TOO_LARGE. A failed upload (source
   * cut off, too large, storage error) leaves nothing behind: neither the object nor the parts of
   * its multipart upload.
   */
  async put(
    key: string,
    source: Readable,
    options: { contentType: string; maxBytes: number },
  ): Promise<StoredObject> {
    const first = await firstChunk(source);
    if (first === null) throw new LicensingError('INVALID_REQUEST', 'The file is empty.');

    const hash = createHash('sha256');
    const hash512 = createHash('sha512');
    let size = 0;
    let failed: Error | undefined;
    let rejectFailure: (error: Error) => void = () => {};
    const failure = new Promise<never>((_resolve, reject) => (rejectFailure = reject));
    failure.catch(() => {});
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (failed) return done();
        size += chunk.length;
        if (size > options.maxBytes) {
          stop(
            new LicensingError(
              'PAYLOAD_TOO_LARGE',
              `The file is over the limit of ${options.maxBytes} bytes.`,
            ),
          );
          return done();
        }
        hash.update(chunk);
        hash512.update(chunk);
        done(null, chunk);
      },
    });
    // minio does not notice when its input fails: it would wait forever for the rest of the
    // part, holding it in memory. So a failure ends its input instead, and minio's upload settles
    // (completing a short object, or failing); only then is everything it stored removed, so no
    // part still in flight can land after the clean-up.
    const stop = (error: Error) => {
      if (failed) return;
      failed = error;
      source.unpipe(meter);
      meter.end();
      rejectFailure(error);
    };
    finished(source).catch((error: unknown) => stop(toError(error)));
    const upload = this.client.putObject(this.bucket, key, meter, undefined, {
      'Content-Type': options.contentType,
    });
    // The first chunk goes in ahead of the rest; not back into `source`, which may have ended
    // with it (a stream can no longer take back a chunk once its end has been told).
    meter.write(first);
    source.pipe(meter);
    try {
      await Promise.race([upload, failure]);
      if (failed) throw failed;
    } catch (error) {
      stop(toError(error));
      await settled(upload, UPLOAD_SETTLE_TIMEOUT_MS);
      await this.discard(key);
      throw failed ?? toError(error);
    }
    return { size, sha256: hash.digest('hex'), sha512: hash512.digest('hex') };
  }

  /** Removes an object and any multipart upload of it in progress; never fails. */
  private async discard(key: string): Promise<void> {
    await this.client.removeIncompleteUpload(this.bucket, key).catch(() => {});
    await this.client.removeObject(this.bucket, key).catch(() => {});
  }

  /** Size and date of an object, or null when there is none. */
  async stat(key: string): Promise<ObjectInfo | null> {
    try {
      const stat = await this.client.statObject(this.bucket, key);
      return { size: stat.size, last_modified: stat.lastModified };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** A stream of `length` bytes from `start`. */
  async read(key: string, start: number, length: number): Promise<Readable> {
    if (length === 0) return Readable.from([]);
    const source =
      start === 0
        ? await this.client.getObject(this.bucket, key)
        : await this.client.getPartialObject(this.bucket, key, start, length);
    return Readable.from(exactly(source, length), { objectMode: false });
  }

  /**
   * A URL that reads this one object with a plain GET (any `Range`) until it expires, answered
   * with `Content-Disposition: <disposition>`: the gateway relays from it, or a client is
   * redirected to it. Signing is local (the region is set), no request to the store.
   * `forClients`: signed for the address clients reach (S3_PUBLIC_ENDPOINT); refused when no
   * client is sent to the store.
   */
  async readUrl(
    key: string,
    options: {
      disposition: string;
      ttlSeconds: number;
      forClients: boolean;
      method?: 'GET' | 'HEAD';
    },
  ): Promise<string> {
    const client = options.forClients ? this.publicClient : this.client;
    if (client === null) {
      throw new Error(
        'DOWNLOAD_DELIVERY=redirect needs S3_ENDPOINT: no client is sent to the embedded store',
      );
    }
    // The method is part of the signature: a HEAD on a URL signed for GET is refused.
    return client.presignedUrl(options.method ?? 'GET', this.bucket, key, options.ttlSeconds, {
      'response-content-disposition': options.disposition,
    });
  }

  /** Removes an object; false when there was none. `context`: the RPC call it is done for. */
  async remove(key: string, context?: CallContext): Promise<boolean> {
    const existed = (await this.stat(key)) !== null;
    if (existed) {
      context?.beforeWrite();
      await this.client.removeObject(this.bucket, key);
    }
    return existed;
  }
}
