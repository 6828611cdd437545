import type { Request, Response } from 'express';
import type { z } from 'zod';
import { LicensingError, type AuthorizedDownload } from '../../../libs/contracts/index.js';
import { contentDisposition, ifRangeMatches, parseRange } from '../../../libs/http/index.js';
import { metrics } from '../../../libs/observability/index.js';
import {
  BYTE_PORT_IDLE_TIMEOUT_MS,
  readObject,
  type ObjectAnswer,
  type ObjectBody,
} from '../../../libs/transport/index.js';
import type { DownloadHeaders } from '../requests/inputs.js';

/** Where in the object an answer of the store starts, or null when it is not the object's bytes. */
function firstByteOf(answer: ObjectAnswer): number | null {
  if (answer.status === 200) return 0;
  if (answer.status !== 206) return null;
  const match = /^bytes (\d+)-/.exec(answer.headers['content-range'] ?? '');
  return match ? Number(match[1]) : null;
}

/**
 * Relays the file `authorized` names to the client, straight from the object store on the
 * presigned URL the download service gave (one Node process on the byte path): `Range` and
 * `If-Range` decided here against the file's checksum, size and date, the bytes streamed with
 * backpressure, the store's request cut when the client goes away. A HEAD answers the same
 * status and headers without reading the object. An error before the first byte reaches the
 * client as its envelope, and the error handler below turns the served log entry into it.
 */
export async function relay(
  req: Request,
  res: Response,
  authorized: AuthorizedDownload,
  sent: z.output<typeof DownloadHeaders>,
): Promise<void> {
  const etag = `"${authorized.sha256}"`;
  const lastModified = new Date(authorized.last_modified);
  const { size } = authorized;
  const range = ifRangeMatches(sent['If-Range'], etag, lastModified)
    ? parseRange(sent.Range, size)
    : null;
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${size}`);
    throw new LicensingError(
      'RANGE_NOT_SATISFIABLE',
      `The requested range is outside the file of ${size} bytes.`,
    );
  }
  const length = range ? range.end - range.start + 1 : size;
  let body: ObjectBody | null = null;
  if (req.method !== 'HEAD' && length > 0) {
    const upstream = readObject({
      url: authorized.url,
      headers: range ? { Range: `bytes=${range.start}-${range.end}` } : {},
      idleTimeoutMs: BYTE_PORT_IDLE_TIMEOUT_MS,
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.cancel();
    });
    const answer = await upstream.answer;
    const answered = Number(answer.headers['content-length']);
    const chunked = answer.headers['transfer-encoding'] !== undefined;
    if (firstByteOf(answer) !== (range?.start ?? 0) || chunked || !(answered >= length)) {
      answer.body.destroy();
      if (answer.status === 404) {
        throw new LicensingError('NOT_FOUND', 'The file of this version is missing from storage.');
      }
      throw new Error(`The object store answered HTTP ${answer.status} for ${length} bytes.`);
    }
    body = answer.body;
  }
  res.status(range ? 206 : 200);
  res.set({
    'Content-Type': authorized.content_type,
    'Content-Length': String(length),
    'Content-Disposition': contentDisposition(authorized.filename),
    'Accept-Ranges': 'bytes',
    ETag: etag,
    'X-Checksum-SHA256': authorized.sha256,
    'Repr-Digest': `sha-256=:${Buffer.from(authorized.sha256, 'hex').toString('base64')}:`,
    'Last-Modified': lastModified.toUTCString(),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  if (!body) {
    res.end();
    return;
  }
  metrics.downloadRelays.inc();
  try {
    await body.relayTo(res, length, (bytes) => metrics.downloadBytes.inc(bytes));
    res.end();
  } catch {
    // Mid-file (the client went away, or the store stopped): the connection is cut, so the
    // client sees a short body and resumes with Range.
    res.destroy();
    body.destroy();
  } finally {
    metrics.downloadRelays.dec();
  }
}
