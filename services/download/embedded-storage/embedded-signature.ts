import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { presignSignatureV4, signV4 } from 'minio/dist/esm/signing.mjs';

/** The key pair the embedded store accepts, made anew at each start. */
export interface StoreCredentials {
  accessKey: string;
  secretKey: string;
}

/** What of a request its signature covers: the method, the URL as sent, and the headers. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** How far a header-signed request's date may be from the store's clock, as S3 allows. */
const MAX_CLOCK_SKEW_MS = 15 * 60_000;
/** The longest a presigned URL may be valid, as S3 allows: 7 days. */
const MAX_EXPIRES_SECONDS = 7 * 86_400;
const ALGORITHM = 'AWS4-HMAC-SHA256';
/** The query parameters of a presigned URL that carry its signature rather than being signed. */
const PRESIGN_PARAMS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
] as const;
const HEADER_AUTHORIZATION = new RegExp(
  `^${ALGORITHM} Credential=[^/,\\s]+/\\d{8}/([a-z0-9-]+)/s3/aws4_request, ` +
    'SignedHeaders=([a-z0-9;-]+), Signature=[0-9a-f]{64}$',
);
const CREDENTIAL = /^[^/]+\/\d{8}\/([a-z0-9-]+)\/s3\/aws4_request$/;

/**
 * Why the embedded store refuses `request`, or null when its SigV4 signature (Authorization
 * header, or presigned query) verifies under `credentials` and is in date. The signature is
 * computed again with the signing code of the minio client the download service signs with, over
 * the URL exactly as sent, so nothing the store acts on escapes it. A presigned URL only reads
 * (GET or HEAD): the download service presigns nothing else. The payload hash is taken as signed.
 */
export function signatureProblem(
  request: ReceivedRequest,
  credentials: StoreCredentials,
  now: Date = new Date(),
): string | null {
  const { url } = request;
  // One query only: the signing code reads the text up to a second `?`, the server all of it.
  if (!url.startsWith('/') || url.split('?').length > 2 || url.includes('#')) {
    return 'The request URL is malformed.';
  }
  const query = new URLSearchParams(url.split('?')[1] ?? '');
  const presigned = PRESIGN_PARAMS.some((name) => query.has(name));
  const authorization = request.headers.authorization;
  if (query.has('Signature') || query.has('AWSAccessKeyId')) {
    return 'Only Signature Version 4 is accepted.';
  }
  if (authorization !== undefined && presigned) return 'Only one signature is accepted.';
  if (authorization !== undefined) return headerProblem(request, authorization, credentials, now);
  if (presigned) return presignedProblem(request, query, credentials, now);
  return 'The request is not signed.';
}

function headerProblem(
  request: ReceivedRequest,
  authorization: string,
  credentials: StoreCredentials,
  now: Date,
): string | null {
  const match = HEADER_AUTHORIZATION.exec(authorization);
  if (!match) return 'The Authorization header is malformed.';
  const [, region = '', signedNames = ''] = match;
  const date = parseAmzDate(request.headers['x-amz-date']);
  if (date === null) return 'The x-amz-date header is missing or malformed.';
  if (Math.abs(now.getTime() - date.getTime()) > MAX_CLOCK_SKEW_MS) {
    return 'The request time is too far from the store time.';
  }
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (typeof payloadHash !== 'string') return 'The x-amz-content-sha256 header is missing.';
  const headers = signedHeaders(request, signedNames, [
    'host',
    'x-amz-date',
    'x-amz-content-sha256',
  ]);
  if (headers === null) return 'A signed header is missing.';
  const expected = signV4(
    { protocol: 'http:', method: request.method, path: request.url, headers },
    credentials.accessKey,
    credentials.secretKey,
    region,
    date,
    payloadHash,
  );
  return sameText(expected, authorization) ? null : 'The signature does not match.';
}

function presignedProblem(
  request: ReceivedRequest,
  query: URLSearchParams,
  credentials: StoreCredentials,
  now: Date,
): string | null {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return 'A presigned URL only reads.';
  }
  if (PRESIGN_PARAMS.some((name) => query.getAll(name).length !== 1)) {
    return 'A presigned URL needs each X-Amz parameter once.';
  }
  const region = CREDENTIAL.exec(query.get('X-Amz-Credential') ?? '')?.[1];
  const date = parseAmzDate(query.get('X-Amz-Date') ?? undefined);
  const expiresText = query.get('X-Amz-Expires') ?? '';
  const expires = /^[1-9][0-9]{0,6}$/.test(expiresText) ? Number(expiresText) : NaN;
  if (query.get('X-Amz-Algorithm') !== ALGORITHM || region === undefined || date === null) {
    return 'The presigned URL is malformed.';
  }
  if (!(expires <= MAX_EXPIRES_SECONDS)) return 'X-Amz-Expires is malformed.';
  // The date and expiry read here are the ones the signature is computed over below.
  if (date.getTime() - now.getTime() > MAX_CLOCK_SKEW_MS) return 'The URL is not valid yet.';
  if (now.getTime() > date.getTime() + expires * 1000) return 'The URL has expired.';
  const headers = signedHeaders(request, query.get('X-Amz-SignedHeaders') ?? '', ['host']);
  if (headers === null) return 'A signed header is missing.';
  const [resource = '', rawQuery = ''] = request.url.split('?');
  // The rest of the query as sent, signed as such; the signature's own parameters are added back.
  const rest = rawQuery
    .split('&')
    .filter((part) => part !== '' && !(PRESIGN_PARAMS as readonly string[]).includes(nameOf(part)))
    .join('&');
  const signed = presignSignatureV4(
    {
      protocol: 'http:',
      method: request.method,
      path: rest === '' ? resource : `${resource}?${rest}`,
      headers,
    },
    credentials.accessKey,
    credentials.secretKey,
    undefined,
    region,
    date,
    expires,
  );
  const expected = signed.slice(signed.lastIndexOf('&X-Amz-Signature=') + 17);
  return sameText(expected, query.get('X-Amz-Signature') ?? '')
    ? null
    : 'The signature does not match.';
}

/** The signed headers' values as received, or null when one is missing or a required one is not signed. */
function signedHeaders(
  request: ReceivedRequest,
  names: string,
  required: readonly string[],
): Record<string, string> | null {
  const list = names.split(';');
  if (required.some((name) => !list.includes(name))) return null;
  const headers: Record<string, string> = {};
  for (const name of list) {
    const value = request.headers[name];
    if (typeof value !== 'string') return null;
    headers[name] = value;
  }
  return headers;
}

function nameOf(part: string): string {
  const name = part.split('=')[0] ?? '';
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** `yyyyMMddTHHmmssZ`, as SigV4 writes dates. */
function parseAmzDate(text: string | string[] | undefined): Date | null {
  const match =
    typeof text === 'string' && /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!));
  return Number.isNaN(date.getTime()) ? null : date;
}

function sameText(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
