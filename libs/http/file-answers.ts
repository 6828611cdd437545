/** HTTP details of serving a package: byte ranges (RFC 9110 14) and file names (RFC 6266). */

export type RangeResult = { start: number; end: number } | 'unsatisfiable' | null;

/**
 * One byte range of a representation of `size` bytes. Null means "serve the whole file": no
 * Range header, another unit, several ranges, or a malformed one (RFC 9110 allows ignoring
 * them). A well-formed range that selects nothing is 'unsatisfiable' (416).
 */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (header === undefined) return null;
  const match = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i.exec(header.trim());
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  // Positions are compared exactly, whatever their number of digits: a start past the end is
  // unsatisfiable even when it is past 2^53, where plain numbers lose precision.
  if (last !== '' && BigInt(last) < BigInt(first)) return null; // invalid (RFC 9110 14.1.1)
  if (BigInt(first) >= BigInt(size)) return 'unsatisfiable';
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { start, end };
}

/**
 * RFC 9110 13.1.5: a Range is honoured only while the representation is the one the client
 * started with. An entity tag must match strongly; a date must equal Last-Modified.
 */
export function ifRangeMatches(
  ifRange: string | undefined,
  etag: string,
  lastModified: Date,
): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === etag;
  const date = Date.parse(value);
  return !Number.isNaN(date) && date === Math.floor(lastModified.getTime() / 1000) * 1000;
}

const rfc5987 = (value: string) =>
  encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/**
 * `attachment; filename="..."` with an ASCII fallback, plus `filename*` (UTF-8, RFC 8187) when
 * the name has characters the quoted form cannot carry (RFC 6266 4.3).
 */
export function contentDisposition(filename: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = filename.replace(/[\u0000-\u001f\u007f]/g, '').replace(/[/\\]/g, '_');
  const fallback = clean.replace(/[^\x20-\x7e]|"/g, '_') || 'download';
  if (fallback === clean) return `attachment; filename="${fallback}"`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${rfc5987(clean)}`;
}

/** A media type to store and serve; anything unusual becomes application/octet-stream. */
export function safeContentType(value: string | undefined): string {
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type && /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(type)
    ? type
    : 'application/octet-stream';
}
