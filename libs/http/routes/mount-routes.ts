import type { RequestHandler, Router } from 'express';
import { activeSpan } from '../../observability/index.js';
import { handlerChain } from './handler-chain.js';
import type { Route, RouteDeps } from './route.js';
import { signAnswers } from '../signed-answers.js';

/**
 * Mounts every route on `router`. Each records its path template first, so the request log,
 * the metrics and the trace name the route rather than the path (which may carry a license key).
 *
 * `adminPath` is where the surface checks the admin credential, on every request under it: a
 * route's declared access must agree with its path, so what the document says of a route is
 * what the surface checks. A surface without one serves no admin route.
 */
export function mountRoutes<Deps extends RouteDeps>(
  router: Router,
  routes: readonly Route<Deps>[],
  deps: Deps,
  adminPath?: string,
): void {
  for (const route of routes) {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    if (route.signed && !deps.signing) {
      throw new Error(`${name} is signed, and this surface has no signing key.`);
    }
    const guarded =
      adminPath !== undefined &&
      (route.path === adminPath || route.path.startsWith(`${adminPath}/`));
    if (guarded !== (route.access === 'admin')) {
      const checked = guarded ? 'the admin credential is checked' : 'no credential is checked';
      throw new Error(`${name} is declared ${route.access}, but ${checked} on its path.`);
    }
    const record: RequestHandler = (_req, res, next) => {
      res.locals.routeTemplate = route.path;
      const span = activeSpan();
      span?.updateName(name);
      // The template, not the path: a path may carry a license key
      // (libs/observability/trace-redaction.ts).
      span?.setAttributes({ 'http.route': route.path, 'url.path': route.path });
      next();
    };
    // First in the chain, so that every answer of the route, errors included, goes out signed.
    const signing = route.signed && deps.signing ? [signAnswers(deps.signing)] : [];
    router[route.method](route.path, handlerChain([record, ...signing, ...route.handlers(deps)]));
  }
}
