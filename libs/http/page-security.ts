import type { RequestHandler } from 'express';

/**
 * Headers of every web page the project serves (the API reference, the admin console, the
 * customer portal) and of their assets: scripts, styles and data from the page's own origin only,
 * no inline script, no plugin, no form submission to anywhere (the pages send their forms with
 * script, so a form that escaped that would put a license key in a URL), no framing.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const pageSecurityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  next();
};
