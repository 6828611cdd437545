import { adminRoles, type AdminRole } from '../../../libs/contracts/index.js';
import type { Route } from '../../../libs/http/index.js';

/**
 * Who may call what (docs/api-decisions.md, "Admins and roles"): each admin route needs a role
 * (`requiredRole`: declared by the route, else `viewer` for a GET and `owner` for a change), and
 * a role may call every route needing it or a lesser one. The credential check applies it
 * (services/management/app.ts, auth.ts); the OpenAPI document shows it (`withRoleDocumented`).
 *
 * The stores (docs/stores.md, "Admin API"): their connections and mappings are an owner's (a
 * connection holds the store's secrets, a mapping decides what every sale issues), as webhooks
 * and plans are; any role reads the events the stores delivered; applying one again changes a
 * license, so it needs support, as the other license changes do.
 */

/**
 * The least admin role that may call an admin route: the one it declares, else one derived from
 * its method, so that a route added without a thought for roles reads for everyone and changes
 * for owners only.
 */
export function requiredRole(route: Pick<Route, 'method' | 'role'>): AdminRole {
  return route.role ?? (route.method === 'get' ? 'viewer' : 'owner');
}

/** Whether `role` may call a route needing `required`: roles are ordered viewer < support < owner. */
export function roleAllows(role: AdminRole, required: AdminRole): boolean {
  return adminRoles.indexOf(role) >= adminRoles.indexOf(required);
}

/** The roles that may call a route needing `role`, in words. */
function rolesAllowed(role: AdminRole): string {
  switch (role) {
    case 'viewer':
      return 'any role';
    case 'support':
      return 'support or owner';
    case 'owner':
      return 'owner';
  }
}

/**
 * An admin route as its OpenAPI entry shows it: the role it needs in words in its description
 * and as `x-required-role`, and the 403 FORBIDDEN of a role below it (unless it says its own).
 */
export function withRoleDocumented<R extends Route<never>>(route: R): R {
  if (route.access !== 'admin') return route;
  const role = requiredRole(route);
  const forbidden = {
    codes: ['FORBIDDEN'],
    description: `The admin's role is not ${rolesAllowed(role)}.`,
  } as const;
  return {
    ...route,
    description: [route.description, `Role: ${rolesAllowed(role)}.`].filter(Boolean).join('\n\n'),
    extensions: { ...route.extensions, 'x-required-role': role },
    errors: route.errors[403] === undefined ? { ...route.errors, 403: forbidden } : route.errors,
  };
}

/** The operation ids of the admin routes `role` may call: what the console may offer. */
export function allowedOperations(
  role: AdminRole,
  routes: readonly Pick<Route<never>, 'access' | 'method' | 'role' | 'operationId'>[],
): string[] {
  return routes
    .filter((route) => route.access === 'admin' && roleAllows(role, requiredRole(route)))
    .map((route) => route.operationId);
}

/** Whether the change leaves no owner: an owner removed, or given a lesser role. */
export function takesAnOwner(current: AdminRole, next: AdminRole | 'removed'): boolean {
  return current === 'owner' && next !== 'owner';
}
