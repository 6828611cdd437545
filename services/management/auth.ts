import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { LicensingError } from '../../libs/contracts/index.js';

/** RFC 6750 section 3: the challenge that tells a client which scheme to use. */
const REALM = 'Bearer realm="licensing-management"';

/** Equal-length digests, so comparing never reveals a token's length or a matching prefix. */
const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * Every route under /admin/v1 needs `Authorization: Bearer <token>` with one of the configured
 * admin tokens. Runs before the body parser, so nobody unauthenticated gets a body read.
 */
export function requireAdminToken(adminTokens: readonly string[]): RequestHandler {
  const known = adminTokens.map(digest);
  return (req, res, next) => {
    // Node keeps the first of repeated Authorization headers; which one a proxy in front would
    // have used is unknown, so a request carrying two is refused rather than guessed at.
    if ((req.headersDistinct.authorization?.length ?? 0) > 1) {
      return next(
        new LicensingError('INVALID_REQUEST', 'Send the Authorization header only once.'),
      );
    }
    const header = req.get('authorization');
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    const presented = match?.[1];
    if (presented === undefined) {
      res.set('WWW-Authenticate', REALM);
      return next(
        new LicensingError('UNAUTHORIZED', 'Send an admin token: Authorization: Bearer <token>.'),
      );
    }
    const candidate = digest(presented);
    // Every token is compared, so the time taken does not tell which one (if any) matched.
    let matched = false;
    for (const token of known) matched = timingSafeEqual(candidate, token) || matched;
    if (!matched) {
      res.set('WWW-Authenticate', `${REALM}, error="invalid_token"`);
      return next(new LicensingError('UNAUTHORIZED', 'The admin token is not valid.'));
    }
    next();
  };
}
