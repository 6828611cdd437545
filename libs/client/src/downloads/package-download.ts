/**
 * Spec 4.5 downloads: the request, then the package streamed to its destination while its size
 * and SHA-256 are checked against what the server (and a verified update check) said.
 */
import {
  blobSink,
  expectationsOf,
  filenameFrom,
  normaliseSha256,
  streamSink,
  type DownloadDestination,
  type DownloadOptions,
  type Sink,
} from './download.js';
import type { Connection } from '../exchange.js';
import { clientFailure, connectionFailure, Deadline, interpret, invalidResponse } from '../http.js';
import { fileSink } from '../node-file.js';
import type { DownloadData, FailureResult, LicensingResult } from '../result.js';

/**
 * Downloads the package of `productId` from `endpoint` (or the URL the options give): the key as
 * `dlid` and the identifier, with `Accept: application/json`; the body is saved only on HTTP 200,
 * otherwise the JSON error is the result.
 */
export async function downloadPackage(
  connection: Pick<Connection, 'fetcher' | 'headers' | 'timeout'>,
  endpoint: string,
  productId: number,
  request: { key: string; identifier: string | null | undefined },
  destination: DownloadDestination,
  options: DownloadOptions,
): Promise<LicensingResult<DownloadData>> {
  options = withUpdate(options);
  let url: URL;
  try {
    url = new URL(options.url ?? endpoint);
  } catch {
    return clientFailure(`Invalid download URL: ${options.url}`);
  }
  url.searchParams.set('dlid', request.key);
  if (request.identifier) url.searchParams.set('identifier', request.identifier);
  if (options.channel && options.channel !== 'stable') {
    url.searchParams.set('channel', options.channel);
  }

  const deadline = new Deadline(connection.timeout, options.signal);
  try {
    let response: Response;
    try {
      response = await connection.fetcher(url.href, {
        method: 'GET',
        headers: { ...connection.headers, Accept: 'application/json' },
        // A gateway with DOWNLOAD_DELIVERY=redirect answers 302 to the object store.
        redirect: 'follow',
        signal: deadline.signal,
      });
    } catch (error) {
      return connectionFailure(error, deadline);
    }
    if (response.status !== 200) {
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        return connectionFailure(error, deadline, undefined, response.status);
      }
      const result = interpret<DownloadData>(response.status, response.headers, text);
      // Only a 200 carries a package; anything else must be an error envelope.
      return result.success ? invalidResponse(response.status, response.headers) : result;
    }
    return await save(response, productId, destination, options, deadline);
  } finally {
    deadline.clear();
  }
}

async function save(
  response: Response,
  productId: number,
  destination: DownloadDestination,
  options: DownloadOptions,
  deadline: Deadline,
): Promise<LicensingResult<DownloadData>> {
  const status = response.status;
  const expected = expectationsOf(response.headers);
  const wanted = options.expectedSha256;
  if (wanted !== undefined) {
    expected.sha256.push({ source: 'expectedSha256', hex: normaliseSha256(wanted) ?? wanted });
  }
  const filename =
    filenameFrom(response.headers.get('content-disposition')) ?? `product-${productId}`;
  const contentType = response.headers.get('content-type');
  const total = expected.contentLength ?? options.expectedSize ?? null;

  let sink: Sink;
  try {
    if (typeof destination === 'string') sink = await fileSink(destination, filename);
    else if (destination === null) sink = blobSink(contentType);
    else sink = streamSink(destination);
  } catch (error) {
    await response.body?.cancel().catch(() => undefined);
    return clientFailure(`Could not write the package: ${messageOf(error)}`, status);
  }

  const fail = async (failure: FailureResult) => {
    await sink.discard(new Error(failure.message));
    return failure;
  };
  const progress = (received: number) => {
    try {
      options.onProgress?.({ received, total });
    } catch {
      // A failing progress display must not fail the download.
    }
  };

  let received = 0;
  progress(0);
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      deadline.restart();
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        const of = total === null ? '' : ` of ${total}`;
        return fail(
          connectionFailure(
            error,
            deadline,
            `the download stopped after ${received}${of} bytes`,
            status,
          ),
        );
      }
      // Only the server's silence counts: a slow destination does not time the download out.
      deadline.pause();
      if (chunk.done) break;
      try {
        await sink.write(chunk.value);
      } catch (error) {
        await reader.cancel().catch(() => undefined);
        return fail(clientFailure(`Could not write the package: ${messageOf(error)}`, status));
      }
      received += chunk.value.length;
      progress(received);
    }
  }
  deadline.clear();

  for (const size of [expected.contentLength, options.expectedSize]) {
    if (size !== null && size !== undefined && size !== received) {
      return fail(
        clientFailure(
          `Download verification failed: expected ${size} bytes, received ${received}.`,
          status,
        ),
      );
    }
  }
  const sha256 = sink.digest();
  for (const { source, hex } of expected.sha256) {
    if (hex !== sha256) {
      return fail(
        clientFailure(
          `Download verification failed: the SHA-256 checksum does not match ${source} (expected ${hex}, received ${sha256}).`,
          status,
        ),
      );
    }
  }

  let saved: { path: string | null; blob: Blob | null };
  try {
    saved = await sink.commit();
  } catch (error) {
    return fail(clientFailure(`Could not write the package: ${messageOf(error)}`, status));
  }
  return {
    success: true,
    data: {
      filename,
      path: saved.path,
      blob: saved.blob,
      size: received,
      sha256,
      contentType,
      checksumVerified: expected.sha256.length > 0,
    },
    message: '',
    code: '',
    httpStatus: status,
  };
}

/** The download options with what a (verified) update check said: URL, size and SHA-256. */
function withUpdate(options: DownloadOptions): DownloadOptions {
  const update = options.update;
  if (!update?.update_available) return options;
  const sha256 = (update as { sha256?: unknown }).sha256;
  return {
    ...options,
    url: options.url ?? update.download_url ?? undefined,
    expectedSize: options.expectedSize ?? update.file_size,
    expectedSha256:
      options.expectedSha256 ?? (typeof sha256 === 'string' && sha256 !== '' ? sha256 : undefined),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
