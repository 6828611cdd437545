/**
 * Pieces of `download` (spec 4.5) that do not depend on the runtime: what the response headers
 * promise, the file name, and the destinations that work everywhere (a WritableStream, a Blob).
 */
import type { ReleaseChannel, UpdateInfo } from '../result.js';
import { Sha256, toHex } from './sha256.js';

/** Where a download goes: a file path (Node), a WritableStream (any runtime), or `null` for a Blob. */
export type DownloadDestination = string | WritableStream<Uint8Array> | null;

export interface DownloadProgress {
  /** Bytes received so far. */
  received: number;
  /** Bytes expected, when known (`Content-Length` or `expectedSize`), else `null`. */
  total: number | null;
}

export interface DownloadOptions {
  /** The `download_url` from `checkUpdate`; default `{api_base}/downloads/{product_id}`. */
  url?: string;
  /**
   * The data of `checkUpdate`: its `download_url`, `file_size` and `sha256` (when the server
   * sends one) stand for `url`, `expectedSize` and `expectedSha256` when those are not given.
   * From a client with keys, the update check is signed, so the package is checked against what
   * the server signed.
   */
  update?: UpdateInfo;
  /**
   * The release channel whose newest version is downloaded (`stable` by default); the same as
   * the update check's, so the two agree (docs/updaters.md).
   */
  channel?: ReleaseChannel;
  /** Called after each chunk, and once with 0 bytes before the first. */
  onProgress?: (progress: DownloadProgress) => void;
  /** Size the package must have, e.g. `file_size` from the update check. */
  expectedSize?: number;
  /** SHA-256 (hex) the package must have, checked in addition to the server's checksum header. */
  expectedSha256?: string;
  /** Cancels the download. */
  signal?: AbortSignal;
}

/** A destination being written: the bytes go in, then it is committed or discarded. */
export interface Sink {
  write(chunk: Uint8Array): Promise<void>;
  /** The SHA-256 of everything written, hex. */
  digest(): string;
  commit(): Promise<{ path: string | null; blob: Blob | null }>;
  discard(reason: unknown): Promise<void>;
}

export interface Expectations {
  /** Bytes promised by `Content-Length` (when the body is not content-encoded). */
  contentLength: number | null;
  /** SHA-256 digests (hex) from `X-Checksum-SHA256`, `Digest`, `Repr-Digest`, `Content-Digest`. */
  sha256: Array<{ source: string; hex: string }>;
}

function base64ToHex(value: string): string | null {
  try {
    const binary = atob(value.trim());
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.length === 32 ? toHex(bytes) : null;
  } catch {
    return null;
  }
}

/** A SHA-256 given as hex (64 digits) or base64. */
export function normaliseSha256(value: string): string | null {
  const text = value.trim();
  if (/^[0-9a-f]{64}$/i.test(text)) return text.toLowerCase();
  return base64ToHex(text);
}

/** `sha-256=<base64>` from `Digest` (RFC 3230) or `sha-256=:<base64>:` (RFC 9530). */
function digestField(header: string): string | null {
  for (const part of header.split(',')) {
    const match = /^\s*sha-256\s*=\s*(.+?)\s*$/i.exec(part);
    if (!match) continue;
    let value = match[1]!;
    if (value.startsWith(':') && value.endsWith(':') && value.length > 1)
      value = value.slice(1, -1);
    return base64ToHex(value);
  }
  return null;
}

export function expectationsOf(headers: Headers): Expectations {
  const encoding = (headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  // fetch decodes a content-encoded body, so its length and its encoded digests no longer apply.
  const identity = encoding === '' || encoding === 'identity';
  const length = headers.get('content-length');
  const contentLength =
    identity && length !== null && /^\s*\d+\s*$/.test(length) ? Number(length) : null;
  const sha256: Expectations['sha256'] = [];
  const checksum = headers.get('x-checksum-sha256');
  if (checksum !== null) {
    // An unreadable checksum header cannot be met: it fails the download rather than skip the check.
    sha256.push({ source: 'X-Checksum-SHA256', hex: normaliseSha256(checksum) ?? checksum });
  }
  if (identity) {
    for (const name of ['Repr-Digest', 'Content-Digest', 'Digest']) {
      const value = headers.get(name);
      if (value === null) continue;
      const hex = digestField(value);
      if (hex !== null) sha256.push({ source: name, hex });
    }
  }
  return { contentLength, sha256 };
}

/** The file name of `Content-Disposition`, reduced to a safe base name, or null. */
export function filenameFrom(header: string | null): string | null {
  if (header === null) return null;
  let name: string | null = null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try {
      name = decodeURIComponent(extended[2]!.trim());
    } catch {
      name = null;
    }
  }
  if (name === null) {
    const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
    const plain = /filename\s*=\s*([^;\s]+)/i.exec(header);
    name = quoted ? quoted[1]!.replace(/\\(.)/g, '$1') : plain ? plain[1]! : null;
  }
  return name === null ? null : safeFilename(name);
}

/** The last path segment without control characters; never `.`, `..` or empty. */
export function safeFilename(name: string): string | null {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (base === '' || base === '.' || base === '..') return null;
  return base;
}

/** A WritableStream destination: aborted when the download fails, closed when it succeeds. */
export function streamSink(stream: WritableStream<Uint8Array>): Sink {
  const writer = stream.getWriter();
  const hash = new Sha256();
  return {
    async write(chunk) {
      hash.update(chunk);
      await writer.ready;
      await writer.write(chunk);
    },
    digest: () => hash.hex(),
    async commit() {
      await writer.close();
      writer.releaseLock();
      return { path: null, blob: null };
    },
    async discard(reason) {
      await writer.abort(reason).catch(() => undefined);
      writer.releaseLock();
    },
  };
}

/** The `null` destination: the package in memory, handed over as a Blob once it is complete. */
export function blobSink(contentType: string | null): Sink {
  const chunks: Uint8Array[] = [];
  const hash = new Sha256();
  return {
    async write(chunk) {
      hash.update(chunk);
      chunks.push(chunk);
    },
    digest: () => hash.hex(),
    async commit() {
      const blob = new Blob(chunks as unknown as ConstructorParameters<typeof Blob>[0], {
        type: contentType ?? '',
      });
      return { path: null, blob };
    },
    async discard() {
      chunks.length = 0;
    },
  };
}
