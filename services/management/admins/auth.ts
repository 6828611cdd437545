import type { RequestHandler } from 'express';
import { LicensingError, type AdminRole } from '../../../libs/contracts/index.js';
import type { AdminAuthenticator } from './admin-tokens.js';
import { actingAdmin } from '../route-makers/admin-route.js';
import { roleAllows } from './roles.js';

/** RFC 6750 section 3: the challenge that tells a client which scheme to use. */
const REALM = 'Bearer realm="licensing-management"';

/**
 * Every route under /admin/v1 needs `Authorization: Bearer <token>`: a token of ADMIN_TOKENS
 * (the bootstrap owner) or a named admin's. Runs before the body parser, so nobody
 * unauthenticated gets a body read; the admin found is `res.locals.admin`.
 */
export function requireAdminToken(authenticator: AdminAuthenticator): RequestHandler {
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
    authenticator.authenticate(presented).then((admin) => {
      if (admin === null) {
        res.set('WWW-Authenticate', `${REALM}, error="invalid_token"`);
        return next(new LicensingError('UNAUTHORIZED', 'The admin token is not valid.'));
      }
      res.locals.admin = admin;
      next();
    }, next);
  };
}

/** A route's first check: the admin's role is the one it needs, or a greater one. */
export function requireRole(required: AdminRole, operationId: string): RequestHandler {
  return (_req, res, next) => {
    const { role } = actingAdmin(res);
    if (roleAllows(role, required)) return next();
    next(
      new LicensingError(
        'FORBIDDEN',
        `The role ${role} may not call ${operationId}; it needs ${required}${
          required === 'owner' ? '' : ' or more'
        }.`,
      ),
    );
  };
}
