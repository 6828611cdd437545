import { z } from 'zod';
import type { Response } from 'express';
import { internalError, type AdminRole } from '../../../libs/contracts/index.js';
import {
  defineRoute,
  sendData,
  type HttpMethod,
  type NoFields,
  type Route,
  type RouteInput,
  type SuccessAnswer,
} from '../../../libs/http/index.js';
import { adminErrors } from './admin-errors.js';
import type { ActingAdmin } from '../admins/admin-tokens.js';
import { targetOf } from '../audit/audit-rules.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import type { ManagementRoute } from './route-contract.js';

/** The admin making the request, as the credential check found them (admins/auth.ts). */
export function actingAdmin(res: Response): ActingAdmin {
  const admin = res.locals.admin as ActingAdmin | undefined;
  if (admin === undefined) throw internalError('The request has no admin.');
  return admin;
}

/** `Location` of a 201: the new record's own path. */
const LocationHeader = z.object({
  Location: z.string().meta({ description: 'The path of the new record.' }),
});

/**
 * What an admin route's handler answers: `data` of the type its success schema reads
 * (`z.input`), so that what the route documents is what it sends.
 */
export interface Answer<Data extends z.ZodType> {
  data: z.input<Data>;
  location?: string;
  /** What the audit entry keeps as the record after the change, when it is not `data`. */
  audited?: unknown;
  /** A change of many records: each one's path (its target), before and after; an entry each. */
  changes?: readonly { path: string; before: unknown; after: unknown }[];
}

/**
 * What the audit entry of a change route keeps, beside its action (the operation id). Unless
 * said: the target from the path of the record (the `Location` of one created, else the route's
 * own; `audit/audit-rules.ts` `targetOf`); for a DELETE, the answer as before and nothing after;
 * for any other change, nothing before and the answer after. Only the fields that differ are kept,
 * without secrets.
 */
export interface AuditSpec<Input> {
  /** The record as it is before the change, read first. */
  before?: (input: Input, deps: ManagementDeps) => Promise<unknown>;
  /** What of the answer stands for the record after the change. */
  after?: (data: unknown, input: Input) => unknown;
}

/**
 * Records a change made through the management API (every route but a GET): once it is made,
 * before it is answered.
 */
export async function recordChange(
  deps: Pick<ManagementDeps, 'audit'>,
  res: Response,
  change: {
    action: string;
    /** The record's path: the `Location` of one created, else the request's own path... */
    path: string;
    /** ...and then the route's template, which tells ids from words. */
    template?: string;
    before: unknown;
    after: unknown;
  },
): Promise<void> {
  await deps.audit.record(actingAdmin(res), {
    action: change.action,
    target: targetOf(change.path, ADMIN_BASE, change.template),
    before: change.before,
    after: change.after,
  });
}

/** What an admin route declares: the input it parses, its answer, its audit entry, its handler. */
export interface AdminRouteSpec<
  OperationId extends string,
  Method extends HttpMethod,
  Path extends string,
  Data extends z.ZodType,
  Params extends z.ZodObject,
  Query extends z.ZodObject,
  Body extends z.ZodType,
> {
  method: Method;
  path: Path;
  operationId: OperationId;
  summary: string;
  tag: string;
  /** The least role that may call it; unless said, viewer for a GET, owner for a change. */
  role?: AdminRole;
  params?: Params;
  query?: Query;
  body?: Body;
  success: { status: 200 | 201 | 202; description: string; data: Data };
  errors: Route['errors'];
  /** What the audit entry of a change keeps (a GET writes none). */
  audit?: AuditSpec<RouteInput<Params, Query, NoFields, Body>>;
  handle: (
    input: RouteInput<Params, Query, NoFields, Body>,
    deps: ManagementDeps,
    context: { admin: ActingAdmin },
  ) => Promise<Answer<Data>>;
}

/** An admin route with its contract (route-contract.ts): JSON in, `{"data": ...}` out. */
export type AdminRoute<
  OperationId extends string,
  Method extends HttpMethod,
  Path extends string,
  Data extends z.ZodType,
  Params extends z.ZodObject,
  Query extends z.ZodObject,
  Body extends z.ZodType,
> = ManagementRoute<{
  operationId: OperationId;
  method: Method;
  path: Path;
  params: Params;
  query: Query;
  body: Body;
  sends: 'json';
  data: Data;
  answers: 'json';
}>;

/**
 * A JSON route of the management API, for admins: its path parameters, query and body are parsed
 * with the schemas it declares (`defineRoute`, the same ones its OpenAPI entry shows), and what
 * `handle` returns, of the type of its success schema, is sent as `{"data": ...}` with the
 * success status (201 with a `Location` for a creation; 202 for work accepted and still to be
 * done, such as a queued delivery). A route other than a GET writes its audit entry (`audit`)
 * once its change is made, before answering.
 */
export function adminRoute<
  const OperationId extends string,
  const Method extends HttpMethod,
  const Path extends string,
  Data extends z.ZodType,
  Params extends z.ZodObject = NoFields,
  Query extends z.ZodObject = NoFields,
  Body extends z.ZodType = z.ZodUndefined,
>(
  route: AdminRouteSpec<OperationId, Method, Path, Data, Params, Query, Body>,
): AdminRoute<OperationId, Method, Path, Data, Params, Query, Body> {
  const { status, description, data } = route.success;
  const success: SuccessAnswer = {
    description,
    data,
    ...(status === 201 ? { headers: LocationHeader } : {}),
  };
  return defineRoute<ManagementDeps, Params, Query, NoFields, Body>({
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    tag: route.tag,
    access: 'admin',
    ...(route.role ? { role: route.role } : {}),
    ...(route.params ? { params: route.params } : {}),
    ...(route.query ? { query: route.query } : {}),
    ...(route.body ? { body: { format: 'json', schema: route.body } } : {}),
    success: { [status]: success },
    errors: {
      ...(route.body ? adminErrors.body : {}),
      ...route.errors,
      ...adminErrors.always,
    },
    handle: async (input, deps, req, res) => {
      const context = { admin: actingAdmin(res) };
      if (route.method === 'get') {
        const answer = await route.handle(input, deps, context);
        return sendData(res, answer.data, status);
      }
      const audit = route.audit ?? {};
      const before = audit.before ? await audit.before(input, deps) : null;
      const answer = await route.handle(input, deps, context);
      if (answer.changes !== undefined) {
        await deps.audit.recordEach(
          context.admin,
          answer.changes.map((change) => ({
            action: route.operationId,
            target: targetOf(change.path, ADMIN_BASE),
            before: change.before,
            after: change.after,
          })),
        );
        return sendData(res, answer.data, status);
      }
      const after = audit.after
        ? audit.after(answer.data, input)
        : 'audited' in answer
          ? answer.audited
          : answer.data;
      const removal = route.method === 'delete' && audit.before === undefined;
      await recordChange(deps, res, {
        action: route.operationId,
        ...(answer.location !== undefined
          ? { path: answer.location }
          : { path: req.originalUrl, template: route.path }),
        before: removal ? after : before,
        after: removal ? null : after,
      });
      if (answer.location !== undefined) res.location(answer.location);
      sendData(res, answer.data, status);
    },
  });
}
