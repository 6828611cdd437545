import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { FORM_TYPE, formFields, jsonBody, readBody } from '../input/body.js';
import { Form, queryAsSent } from '../input/form.js';
import type { FieldsSchema, Route, RouteDeps } from './route.js';
import { parseWith } from '../input/validation.js';

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
