import {
  contentDisposition,
  ifRangeMatches,
  parseRange,
  safeContentType,
} from '../../libs/http/file-answers.js';
import { TicketSigner, type UploadTicket } from '../../services/download/uploads/tickets.js';

const KEY = 'k'.repeat(32);
const upload: UploadTicket = { kind: 'upload', key: 'packages/x/plugin.zip' };

describe('signed tickets of the download service', () => {
  test('a ticket verifies under the same key until it expires', () => {
    let now = 1_000_000;
    const signer = new TicketSigner(KEY, () => now);
    const token = signer.issue(upload, 60_000);
    expect(signer.verify(token, 'upload')).toMatchObject(upload);
    // Another replica with the same key accepts it too.
    expect(new TicketSigner(KEY, () => now).verify(token, 'upload')).toMatchObject(upload);
    now += 60_000;
    expect(signer.verify(token, 'upload')).toBeNull();
  });

  test('another key, a changed payload or signature, or another kind is refused', () => {
    const signer = new TicketSigner(KEY);
    const token = signer.issue(upload, 60_000);
    expect(new TicketSigner('x'.repeat(32)).verify(token, 'upload')).toBeNull();
    const [payload, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...upload, key: 'packages/other', exp: Date.now() + 1e9 }),
    ).toString('base64url');
    expect(signer.verify(`${forged}.${mac}`, 'upload')).toBeNull();
    expect(signer.verify(`${payload}.${mac.slice(1)}`, 'upload')).toBeNull();
    expect(signer.verify(`${payload}.`, 'upload')).toBeNull();
    expect(signer.verify('garbage', 'upload')).toBeNull();
    // A ticket of another kind (the download links of an earlier version) is not an upload's.
    const other = { kind: 'object', key: 'x' } as unknown as UploadTicket;
    expect(signer.verify(signer.issue(other, 60_000), 'upload')).toBeNull();
  });

  test('a short signing key is refused at start-up', () => {
    expect(() => new TicketSigner('short')).toThrow(/DOWNLOAD_SIGNING_KEY/);
  });
});

describe('Range (RFC 9110 14.1.2)', () => {
  test.each([
    ['bytes=0-99', 1000, { start: 0, end: 99 }],
    ['bytes=100-', 1000, { start: 100, end: 999 }],
    ['bytes=900-5000', 1000, { start: 900, end: 999 }],
    ['bytes=-100', 1000, { start: 900, end: 999 }],
    ['bytes=-5000', 1000, { start: 0, end: 999 }],
    ['bytes=0-0', 1000, { start: 0, end: 0 }],
    ['bytes=0-99999999999999999999', 1000, { start: 0, end: 999 }],
  ])('%s of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });

  test.each([
    ['bytes=1000-', 1000],
    ['bytes=5000-6000', 1000],
    ['bytes=-0', 1000],
    ['bytes=0-', 0],
    // Past 2^53: still past the end, however many digits (not served whole with 200).
    ['bytes=99999999999999999999-', 1000],
    ['bytes=9007199254740993-', 1000],
    ['bytes=9007199254740993-9007199254740993', 1000],
  ])('%s of %i bytes is unsatisfiable', (header, size) => {
    expect(parseRange(header, size)).toBe('unsatisfiable');
  });

  test.each([
    undefined,
    'items=0-1',
    'bytes=5-1',
    'bytes=0-1,5-6',
    'bytes=-',
    'bytes=a-b',
    'bytes=99999999999999999999-99999999999999999998',
  ])('%s is ignored: the whole file is served', (header) => {
    expect(parseRange(header, 1000)).toBeNull();
  });

  test('If-Range: a strong ETag or the exact Last-Modified date keeps the range', () => {
    const date = new Date('2026-01-02T03:04:05.678Z');
    const etag = `"${'a'.repeat(64)}"`;
    expect(ifRangeMatches(undefined, etag, date)).toBe(true);
    expect(ifRangeMatches(etag, etag, date)).toBe(true);
    expect(ifRangeMatches(`"${'b'.repeat(64)}"`, etag, date)).toBe(false);
    expect(ifRangeMatches(`W/${etag}`, etag, date)).toBe(false);
    expect(ifRangeMatches(date.toUTCString(), etag, date)).toBe(true);
    expect(ifRangeMatches(new Date('2026-01-01').toUTCString(), etag, date)).toBe(false);
    expect(ifRangeMatches('not a date', etag, date)).toBe(false);
  });
});

describe('Content-Disposition (RFC 6266)', () => {
  test('an ASCII name is quoted', () => {
    expect(contentDisposition('plugin-1.2.zip')).toBe('attachment; filename="plugin-1.2.zip"');
  });

  test('other characters get an ASCII fallback and filename* in UTF-8', () => {
    expect(contentDisposition('Über plugin (1).zip')).toBe(
      `attachment; filename="_ber plugin (1).zip"; filename*=UTF-8''%C3%9Cber%20plugin%20%281%29.zip`,
    );
    expect(contentDisposition('a"b.zip')).toBe(
      `attachment; filename="a_b.zip"; filename*=UTF-8''a%22b.zip`,
    );
  });

  test('control characters and path separators never reach the header', () => {
    const header = contentDisposition('../x\r\ny.zip');
    expect(header).not.toMatch(/[\r\n/\\]/);
  });
});

test('content types: a plain media type is kept, anything else is application/octet-stream', () => {
  expect(safeContentType('application/zip')).toBe('application/zip');
  expect(safeContentType('Application/ZIP; charset=binary')).toBe('application/zip');
  expect(safeContentType(undefined)).toBe('application/octet-stream');
  expect(safeContentType('zip')).toBe('application/octet-stream');
  expect(safeContentType('text/html\r\nX-Evil: 1')).toBe('application/octet-stream');
});
