import type { RequestHandler } from 'express';

/**
 * Headers a browser client reads: file name and checksum of downloads, rate-limit advice, and
 * the signature of a signed answer with what it covers.
 */
const EXPOSED_HEADERS = [
  'Content-Disposition',
  'Content-Length',
  'Content-Range',
  'ETag',
  'X-Checksum-SHA256',
  'Repr-Digest',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'Content-Digest',
  'Signature-Input',
  'Signature',
  'Licensing-Nonce',
].join(', ');

/**
 * The public API may be called from web pages of any origin (the reference client runs in
 * browsers). The license key travels in the request, never in cookies, so allowing every origin
 * without credentials exposes nothing. Pre-flight requests are answered here.
 */
export const publicCors: RequestHandler = (req, res, next) => {
  res.set('Access-Control-Allow-Origin', '*');
  res.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method !== 'OPTIONS') return next();
  res.set('Access-Control-Allow-Methods', 'GET, POST');
  res.set(
    'Access-Control-Allow-Headers',
    'Content-Type, Accept, Range, If-Range, Licensing-Nonce, Content-Digest',
  );
  res.set('Access-Control-Max-Age', '86400');
  res.status(204).end();
};
