import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject } from 'zod-openapi';
import { dataEnvelope, errorEnvelope, type AdminRole, type ErrorCode } from '../contracts/index.js';
import { activeSpan } from '../observability/index.js';
import { FORM_TYPE, formFields, jsonBody, readBody, type BodyLimits } from './body.js';
import { Form, queryAsSent } from './form.js';
import {
  BAD_NONCE_DESCRIPTION,
  SignedRouteRequestHeaders,
  SignedAnswerHeaders,
  signAnswers,
  type AnswerSigning,
} from './signed-answers.js';
import { parseWith } from './validation.js';

/**
 * Route tables: each HTTP surface (the public API, the management API) lists its routes once,
 * with what they accept and answer in the contracts' schemas. The same table mounts the Express
 * handlers and is the OpenAPI document, so a route cannot be served undocumented or documented
 * differently from what it does.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route: anyone, or an admin with the surface's credential (checked by the
 * surface for every path under its admin prefix, `mountRoutes`).
 */
export type Access = 'public' | 'admin';

/** Named text fields (path parameters, a query string): an object, possibly refined. */
export type FieldsSchema = z.ZodType<unknown, Record<string, unknown>>;

/**
 * A success answer: JSON `{"data": ...}` with this payload, a file (a download), text of the
 * media type `text` (a CSV export), JSON as it is (of `contentType`, `application/json` unless
 * said), a page, or no body (a redirect).
 */
export type SuccessAnswer =
  | { description: string; data: z.ZodType; headers?: z.ZodObject }
  | { description: string; file: true; headers?: z.ZodObject }
  | { description: string; text: string; headers?: z.ZodObject }
  | { description: string; empty: true; headers?: z.ZodObject }
  | { description: string; json: z.ZodType; contentType?: string; headers?: z.ZodObject }
  | { description: string; html: true };

/** An error answer: the spec's envelope with one of these codes. */
export interface ErrorAnswer {
  codes: readonly [ErrorCode, ...ErrorCode[]];
  description: string;
  headers?: z.ZodObject;
  /** Fields its errors carry beside `code` and `message` (errorEnvelope). */
  details?: z.ZodObject;
}

export interface Route<Deps = unknown> {
  method: HttpMethod;
  /** The full path, Express style: `/admin/v1/licenses/:key`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag?: string;
  /** Who may call it. */
  access: Access;
  /**
   * Of an admin route: the least role that may call it (`requiredRole`: unless declared, `viewer`
   * for a GET and `owner` for a change).
   */
  role?: AdminRole;
  /**
   * Every answer is signed (docs/api-decisions.md, "Signed answers"): `mountRoutes` puts
   * `signAnswers` at the head of its chain, and its OpenAPI entry shows the nonce it takes and the
   * headers of its answers.
   */
  signed?: true;
  /**
   * What it accepts, as documented: a route made by `defineRoute` parses exactly this (a body
   * its handler streams, with the schemas of its fields).
   */
  request?: {
    path?: FieldsSchema;
    query?: FieldsSchema;
    headers?: z.ZodObject;
    body?: { contentType: string; schema: z.ZodType; description?: string };
  };
  success: Partial<Record<number, SuccessAnswer>>;
  errors: Partial<Record<number, ErrorAnswer>>;
  /** Middleware and the handler, in order, given what the surface runs on. */
  handlers: (deps: Deps) => readonly RequestHandler[];
}

/**
 * The least admin role that may call an admin route: the one it declares, else one derived from
 * its method, so that a route added without a thought for roles reads for everyone and changes
 * for owners only.
 */
export function requiredRole(route: Pick<Route, 'method' | 'role'>): AdminRole {
  return route.role ?? (route.method === 'get' ? 'viewer' : 'owner');
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

/** What a surface gives the routes `defineRoute` makes. */
export interface RouteDeps {
  /**
   * The limits a route reads its body within. Unset where the surface reads every body before
   * its routes (the management API: an oversized body is refused on any path under /admin/v1).
   */
  bodyLimits?: BodyLimits;
  /** What signed routes sign with; a surface without it serves no signed route. */
  signing?: AnswerSigning;
}

/** No fields: what a route that declares no schema for a part of the request gets. */
export type NoFields = z.ZodObject<Record<string, never>>;

/** A request as its route's schemas output it. */
export interface RouteInput<
  Params extends FieldsSchema = NoFields,
  Query extends FieldsSchema = NoFields,
  Headers extends z.ZodObject = NoFields,
  Body extends z.ZodType = z.ZodUndefined,
> {
  params: z.output<Params>;
  query: z.output<Query>;
  headers: z.output<Headers>;
  body: z.output<Body>;
}

export interface RouteDefinition<
  Deps extends RouteDeps,
  Params extends FieldsSchema,
  Query extends FieldsSchema,
  Headers extends z.ZodObject,
  Body extends z.ZodType,
> extends Omit<Route<Deps>, 'request' | 'handlers'> {
  params?: Params;
  /** Parsed from the query string, read strictly (`Form`: a repeated field is refused). */
  query?: Query;
  /**
   * The query string is read as sent instead (`queryAsSent`: nothing refused, every value of a
   * field kept), for a route that answers whatever it is sent (the update check, spec 4.4).
   */
  lenientQuery?: true;
  /** Parsed from the headers its keys name (case-insensitive, as HTTP names them). */
  headers?: Headers;
  /** A form body (spec 1: `Form`, strictly) or a JSON body, read within the surface's limits. */
  body?: { format: 'form' | 'json'; schema: Body; description?: string };
  /** A body the handler reads as a stream (a package upload): documented here, left unread. */
  streamedBody?: { contentType: string; schema: z.ZodType };
  /** Middleware before the input is read, which a malformed request meets too (rate limits). */
  before?: (deps: Deps) => readonly RequestHandler[];
  /** Middleware given the parsed input (spec 8: the per-key limit of activate). */
  after?: (
    deps: Deps,
    input: (res: Response) => RouteInput<Params, Query, Headers, Body>,
  ) => readonly RequestHandler[];
  handle: (
    input: RouteInput<Params, Query, Headers, Body>,
    deps: Deps,
    req: Request,
    res: Response,
  ) => Promise<void>;
}

/** The headers a schema names, as sent. */
function headerFields(req: Request, schema: z.ZodObject): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = req.get(name);
    if (value !== undefined) fields[name] = value;
  }
  return fields;
}

/**
 * A route that validates, then handles: its path parameters, query, headers and body are parsed
 * once, with exactly the schemas it declares and its OpenAPI entry shows, before `after` and
 * `handle` run; a failure is one 400 INVALID_REQUEST naming the field. The parsed input is kept
 * on `res.locals` for the middleware that needs it.
 */
export function defineRoute<
  Deps extends RouteDeps,
  Params extends FieldsSchema = NoFields,
  Query extends FieldsSchema = NoFields,
  Headers extends z.ZodObject = NoFields,
  Body extends z.ZodType = z.ZodUndefined,
>(definition: RouteDefinition<Deps, Params, Query, Headers, Body>): Route<Deps> {
  const {
    params,
    query,
    lenientQuery,
    headers,
    body,
    streamedBody,
    before,
    after,
    handle,
    ...route
  } = definition;
  type Input = RouteInput<Params, Query, Headers, Body>;
  const parse: RequestHandler = (req, res, next) => {
    const url = req.originalUrl;
    res.locals.routeInput = {
      params: params ? parseWith(params, req.params, 'path') : {},
      query: query
        ? parseWith(query, lenientQuery ? queryAsSent(url) : Form.fromUrl(url).fields(), 'query')
        : {},
      headers: headers ? parseWith(headers, headerFields(req, headers), 'headers') : {},
      body:
        body?.format === 'form'
          ? parseWith(body.schema, formFields(req), 'form')
          : body && parseWith(body.schema, jsonBody(req)),
    };
    next();
  };
  const input = (res: Response) => res.locals.routeInput as Input;
  const documentedBody = body
    ? {
        contentType: body.format === 'form' ? FORM_TYPE : 'application/json',
        schema: body.schema,
        ...(body.description ? { description: body.description } : {}),
      }
    : streamedBody;
  return {
    ...route,
    request: {
      ...(params ? { path: params } : {}),
      ...(query ? { query } : {}),
      ...(headers ? { headers } : {}),
      ...(documentedBody ? { body: documentedBody } : {}),
    },
    handlers: (deps) => [
      ...(before?.(deps) ?? []),
      ...(body && deps.bodyLimits ? [readBody(deps.bodyLimits)] : []),
      parse,
      ...(after?.(deps, input) ?? []),
      async (req, res) => {
        await handle(input(res), deps, req, res);
      },
    ],
  };
}

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
      // The template, not the path: a path may carry a license key (trace-redaction.ts).
      span?.setAttributes({ 'http.route': route.path, 'url.path': route.path });
      next();
    };
    // First in the chain, so that every answer of the route, errors included, goes out signed.
    const signing = route.signed && deps.signing ? [signAnswers(deps.signing)] : [];
    router[route.method](route.path, record, ...signing, ...route.handlers(deps));
  }
}

/** `/licenses/:key` as OpenAPI writes it: `/licenses/{key}`. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

function jsonContent(schema: z.ZodType) {
  return { 'application/json': { schema } };
}

/** The headers of an answer: its own, and those of a signed answer on a signed route. */
function answerHeaders(own: z.ZodObject | undefined, signed: boolean) {
  const headers = signed
    ? own
      ? own.extend(SignedAnswerHeaders.shape)
      : SignedAnswerHeaders
    : own;
  return headers ? { headers } : {};
}

function successResponse(answer: SuccessAnswer, signed: boolean) {
  const headers = answerHeaders('headers' in answer ? answer.headers : undefined, signed);
  if ('file' in answer) {
    return {
      description: answer.description,
      ...headers,
      content: { '*/*': { schema: { type: 'string', format: 'binary' } as const } },
    };
  }
  if ('empty' in answer) return { description: answer.description, ...headers };
  if ('text' in answer) {
    return {
      description: answer.description,
      ...headers,
      content: { [answer.text]: { schema: { type: 'string' } as const } },
    };
  }
  if ('html' in answer) {
    return {
      description: answer.description,
      content: { 'text/html': { schema: { type: 'string' } as const } },
    };
  }
  if ('data' in answer) {
    return {
      description: answer.description,
      ...headers,
      content: jsonContent(dataEnvelope(answer.data)),
    };
  }
  return {
    description: answer.description,
    ...headers,
    content: { [answer.contentType ?? 'application/json']: { schema: answer.json } },
  };
}

function errorResponse(answer: ErrorAnswer, signed: boolean) {
  return {
    description: `${answer.codes.join(', ')}: ${answer.description}`,
    ...answerHeaders(answer.headers, signed),
    content: jsonContent(errorEnvelope(answer.codes, answer.details)),
  };
}

/**
 * A signed route also refuses a malformed nonce: 400 INVALID_REQUEST, said in its 400; an admin
 * route refuses a role below its own: 403 FORBIDDEN.
 */
function errorsOf(route: Route<never>): Route['errors'] {
  if (route.access === 'admin' && route.errors[403] === undefined) {
    const role = rolesAllowed(requiredRole(route));
    return {
      ...route.errors,
      403: { codes: ['FORBIDDEN'], description: `The admin's role is not ${role}.` },
    };
  }
  if (!route.signed) return route.errors;
  const own = route.errors[400];
  return {
    ...route.errors,
    400: own
      ? { ...own, description: `${own.description} Or: ${BAD_NONCE_DESCRIPTION}` }
      : { codes: ['INVALID_REQUEST'], description: BAD_NONCE_DESCRIPTION },
  };
}

function operation(route: Route<never>): ZodOpenApiOperationObject {
  const signed = route.signed === true;
  const responses: Record<string, ReturnType<typeof successResponse | typeof errorResponse>> = {};
  for (const [status, answer] of Object.entries(route.success)) {
    if (answer) responses[status] = successResponse(answer, signed);
  }
  for (const [status, answer] of Object.entries(errorsOf(route))) {
    if (answer) responses[status] = errorResponse(answer, signed);
  }
  const request = {
    ...route.request,
    ...(signed
      ? {
          headers: route.request?.headers
            ? route.request.headers.extend(SignedRouteRequestHeaders.shape)
            : SignedRouteRequestHeaders,
        }
      : {}),
  };
  const role = route.access === 'admin' ? `Role: ${rolesAllowed(requiredRole(route))}.` : undefined;
  const description = [route.description, role].filter(Boolean).join('\n\n');
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(description ? { description } : {}),
    ...(route.access === 'admin' ? { 'x-required-role': requiredRole(route) } : {}),
    ...(route.tag ? { tags: [route.tag] } : {}),
    // Admin operations take the document's own requirement, the admin credential.
    ...(route.access === 'public' ? { security: [] } : {}),
    ...(request.path || request.query || request.headers
      ? {
          requestParams: {
            ...(request.path ? { path: request.path } : {}),
            ...(request.query ? { query: request.query } : {}),
            ...(request.headers ? { header: request.headers } : {}),
          },
        }
      : {}),
    ...(request.body
      ? {
          requestBody: {
            required: true,
            ...(request.body.description ? { description: request.body.description } : {}),
            content: { [request.body.contentType]: { schema: request.body.schema } },
          },
        }
      : {}),
    responses,
  };
}

export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
}

/**
 * The OpenAPI 3.1 document of a surface, generated from its route table by zod-openapi: every
 * schema in it comes from a zod contract; `components` names the ones shown as named schemas.
 * Public operations carry `security: []`; the others need every scheme of `securitySchemes`.
 */
export function openApiDocument(options: {
  info: DocumentInfo;
  /** Where the paths are served; the paths are absolute, so this is an origin. */
  server: { url: string; description: string };
  routes: readonly Route<never>[];
  components?: Record<string, z.ZodType>;
  securitySchemes?: Record<string, { type: 'http'; scheme: string; description?: string }>;
}) {
  const paths: Record<string, Partial<Record<HttpMethod, ZodOpenApiOperationObject>>> = {};
  const security = Object.keys(options.securitySchemes ?? {}).map((name) => ({ [name]: [] }));
  for (const route of options.routes) {
    if (route.access === 'admin' && security.length === 0) {
      throw new Error(`${route.operationId} is for admins, and the document has no credential.`);
    }
    (paths[openApiPath(route.path)] ??= {})[route.method] = operation(route);
  }
  return createDocument({
    openapi: '3.1.0',
    info: { ...options.info },
    servers: [{ ...options.server }],
    ...(security.length > 0 ? { security } : {}),
    paths,
    components: {
      ...(options.components ? { schemas: options.components } : {}),
      ...(options.securitySchemes ? { securitySchemes: options.securitySchemes } : {}),
    },
  });
}
