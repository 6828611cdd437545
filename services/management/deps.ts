import { z } from 'zod';
import type { Response } from 'express';
import {
  DEFAULT_PER_PAGE,
  IdText,
  MAX_PAGE,
  MAX_PER_PAGE,
  internalError,
  type AdminRole,
} from '../../libs/contracts/index.js';
import {
  defineRoute,
  sendData,
  type ErrorAnswer,
  type HttpMethod,
  type NoFields,
  type Route,
  type RouteInput,
  type SuccessAnswer,
} from '../../libs/http/index.js';
import type { ActingAdmin } from './admin-tokens.js';
import { targetOf } from './audit-rules.js';
import type { ManagementDeps } from './management-deps.js';
import type { ManagementRoute } from './route-contract.js';

export type { ManagementDeps };

/** Every management route lives under this prefix and needs an admin token. */
export const ADMIN_BASE = '/admin/v1';

/** The admin making the request, as the credential check found them (auth.ts). */
export function actingAdmin(res: Response): ActingAdmin {
  const admin = res.locals.admin as ActingAdmin | undefined;
  if (admin === undefined) throw internalError('The request has no admin.');
  return admin;
}

/** Error answers the admin routes share. */
const always = {
  401: { codes: ['UNAUTHORIZED'], description: 'The admin token is missing or wrong.' },
  500: { codes: ['INTERNAL_ERROR'], description: 'An unexpected server failure.' },
} satisfies Record<number, ErrorAnswer>;

const body = {
  400: {
    codes: ['INVALID_REQUEST'],
    description:
      'Malformed JSON, not application/json, not UTF-8, or a field that fails validation ' +
      '(the message names it).',
  },
  408: {
    codes: ['REQUEST_TIMEOUT'],
    description: 'The body did not arrive within HTTP_REQUEST_TIMEOUT_MS.',
  },
  413: { codes: ['PAYLOAD_TOO_LARGE'], description: 'The body is over 64 KiB.' },
  415: {
    codes: ['UNSUPPORTED_MEDIA_TYPE'],
    description: 'A charset other than UTF-8, or a content encoding that is not supported.',
  },
} satisfies Record<number, ErrorAnswer>;

export const adminErrors = {
  400: (description: string): ErrorAnswer => ({ codes: ['INVALID_REQUEST'], description }),
  404: (description = 'There is no such record.'): ErrorAnswer => ({
    codes: ['NOT_FOUND'],
    description,
  }),
  /** Every route under /admin/v1. */
  always,
  /** Every route that reads a JSON body. */
  body,
};

/** A record named by its id in the path. */
export const IdPath = z.object({ id: IdText });

/** The errors of a route whose only input is an id in the path. */
export const byIdErrors = (notFound?: string): Route['errors'] => ({
  400: adminErrors[400]('The id is not a positive integer.'),
  404: adminErrors[404](notFound),
});

/** An empty query field counts as absent: a client may send the field's text, empty or none. */
export const absentIfEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (value: z.input<T> | '' | undefined) => (value === '' ? undefined : value),
    schema.optional(),
  );

/**
 * `page` and `per_page` of a paged query. Absent, they take the defaults of the RPC contract,
 * which also bounds them.
 */
export const pageFields = (items: string) => ({
  page: absentIfEmpty(IdText).meta({
    description: `From 1, at most ${MAX_PAGE.toLocaleString('en-US')}.`,
  }),
  per_page: absentIfEmpty(IdText).meta({
    description: `${items} per page, at most ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}).`,
  }),
});

/** A PATCH that changes nothing is a client mistake, not a no-op. */
export function nonEmptyPatch<T extends z.ZodObject>(schema: T) {
  return schema.refine((value) => Object.keys(value).length > 0, {
    message: 'must change at least one field',
  });
}

/** `Location` of a 201: the new record's own path. */
const LocationHeader = z.object({
  Location: z.string().meta({ description: 'The path of the new record.' }),
});

interface Answer {
  data: unknown;
  location?: string;
  /** What the audit entry keeps as the record after the change, when it is not `data`. */
  audited?: unknown;
  /** A change of many records: each one's path (its target), before and after; an entry each. */
  changes?: readonly { path: string; before: unknown; after: unknown }[];
}

/**
 * What the audit entry of a change route keeps, beside its action (the operation id). Unless
 * said: the target from the path of the record (the `Location` of one created, else the route's
 * own; `audit-rules.ts` `targetOf`); for a DELETE, the answer as before and nothing after; for
 * any other change, nothing before and the answer after. Only the fields that differ are kept,
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

/**
 * A JSON route of the management API, for admins: its path parameters, query and body are parsed
 * with the schemas it declares (`defineRoute`, the same ones its OpenAPI entry shows), and what
 * `handle` returns is sent as `{"data": ...}` with the success status (201 with a `Location` for
 * a creation; 202 for work accepted and still to be done, such as a queued delivery). A route
 * other than a GET writes its audit entry (`audit`) once its change is made, before answering.
 */
export function adminRoute<
  const OperationId extends string,
  const Method extends HttpMethod,
  const Path extends string,
  Data extends z.ZodType,
  Params extends z.ZodObject = NoFields,
  Query extends z.ZodObject = NoFields,
  Body extends z.ZodType = z.ZodUndefined,
>(route: {
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
  ) => Promise<Answer>;
}): ManagementRoute<{
  operationId: OperationId;
  method: Method;
  path: Path;
  params: Params;
  query: Query;
  body: Body;
  sends: 'json';
  data: Data;
  answers: 'json';
}> {
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
