/** The part of s3rver (an S3-compatible server on the file system) the embedded storage uses. */
declare module 's3rver' {
  import type { IncomingMessage, Server } from 'node:http';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    resetOnClose?: boolean;
  }

  interface KoaContext {
    req: IncomingMessage;
    method: string;
    query: Record<string, unknown>;
    path: string;
    type: string;
    status: number;
    body: unknown;
  }

  /** An object as the file-system store receives it. */
  interface StoreObject {
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    metadata: Record<string, string>;
  }

  interface FilesystemStore {
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    putMetadata(
      bucket: string,
      key: string,
      metadata: Record<string, string>,
      md5: string,
    ): Promise<void>;
    putObject(object: StoreObject): Promise<{ size: number; md5: string }>;
    initiateUpload(
      bucket: string,
      key: string,
      uploadId: string,
      metadata: Record<string, string>,
    ): Promise<void>;
    putPart(
      bucket: string,
      uploadId: string,
      partNumber: string | number,
      content: NodeJS.ReadableStream,
    ): Promise<{ size: number; md5: string }>;
    putObjectMultipart(
      bucket: string,
      uploadId: string,
      parts: ReadonlyArray<{ number: number; etag: string }>,
    ): Promise<{ size: number; md5: string }>;
  }

  class S3rver {
    constructor(options: S3rverOptions);
    /** Koa's middleware stack; entries run in order. */
    middleware: Array<(ctx: KoaContext, next: () => Promise<void>) => Promise<void>>;
    store: FilesystemStore;
    httpServer?: Server;
    /** Every error a request ends with, S3's own answers (404 NoSuchKey...) included. */
    on(
      event: 'error',
      listener: (error: Error & { status?: unknown }, ctx: KoaContext) => void,
    ): this;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }

  export type { FilesystemStore, StoreObject };
  export default S3rver;
}

/** s3rver's S3 error: its code names the status and the XML answer it is sent as. */
declare module 's3rver/lib/models/error.js' {
  export default class S3Error extends Error {
    constructor(code: string, message: string, detail?: Record<string, string>);
    code: string;
    status: number;
  }
}

/** An object as s3rver's routes hand it to the store, its metadata narrowed to what S3 keeps. */
declare module 's3rver/lib/models/object.js' {
  import type { StoreObject } from 's3rver';

  export default class S3Object implements StoreObject {
    constructor(
      bucket: string,
      key: string,
      content: Buffer | NodeJS.ReadableStream,
      metadata: Record<string, string>,
    );
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    metadata: Record<string, string>;
  }
}
