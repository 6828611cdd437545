import { adminRoles, type AdminRole } from '../../libs/contracts/index.js';
import { requiredRole, type Route } from '../../libs/http/index.js';

/**
 * Who may call what (docs/api-decisions.md, "Admins and roles"): each admin route needs a role
 * (`requiredRole`: declared by the route, else `viewer` for a GET and `owner` for a change), and
 * a role may call every route needing it or a lesser one.
 */

/** Whether `role` may call a route needing `required`: roles are ordered viewer < support < owner. */
export function roleAllows(role: AdminRole, required: AdminRole): boolean {
  return adminRoles.indexOf(role) >= adminRoles.indexOf(required);
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
