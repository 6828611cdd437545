import type { RequestHandler, Router } from 'express';
import type { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject } from 'zod-openapi';
import { dataEnvelope, errorEnvelope, type ErrorCode } from '../contracts/index.js';
import { activeSpan } from '../observability/index.js';

/**
 * Route tables: each HTTP surface (the public API, the management API) lists its routes once,
 * with what they accept and answer in the contracts' schemas. The same table mounts the Express
 * handlers and is the OpenAPI document, so a route cannot be served undocumented or documented
 * differently from what it does.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A success answer: JSON `{"data": ...}` with this payload, or a file (a download). */
export type SuccessAnswer =
  | { description: string; data: z.ZodType; headers?: z.ZodObject }
  | { description: string; file: true; headers?: z.ZodObject }
  | { description: string; json: z.ZodType }
  | { description: string; html: true };

/** An error answer: the spec's envelope with one of these codes. */
export interface ErrorAnswer {
  codes: readonly [ErrorCode, ...ErrorCode[]];
  description: string;
  headers?: z.ZodObject;
}

export interface Route<Deps = unknown> {
  method: HttpMethod;
  /** The full path, Express style: `/admin/v1/licenses/:key`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag?: string;
  /** Needs no credential, where the surface otherwise asks for one. */
  public?: true;
  request?: {
    path?: z.ZodObject;
    query?: z.ZodObject;
    headers?: z.ZodObject;
    body?: { contentType: string; schema: z.ZodType; description?: string };
  };
  success: Partial<Record<number, SuccessAnswer>>;
  errors: Partial<Record<number, ErrorAnswer>>;
  /** Middleware and the handler, in order, given what the surface runs on. */
  handlers: (deps: Deps) => readonly RequestHandler[];
}

/**
 * Mounts every route on `router`. Each records its path template first, so the request log,
 * the metrics and the trace name the route rather than the path (which may carry a license key).
 */
export function mountRoutes<Deps>(
  router: Router,
  routes: readonly Route<Deps>[],
  deps: Deps,
): void {
  for (const route of routes) {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    const record: RequestHandler = (_req, res, next) => {
      res.locals.routeTemplate = route.path;
      const span = activeSpan();
      span?.updateName(name);
      // The template, not the path: a path may carry a license key (trace-redaction.ts).
      span?.setAttributes({ 'http.route': route.path, 'url.path': route.path });
      next();
    };
    router[route.method](route.path, record, ...route.handlers(deps));
  }
}

/** `/licenses/:key` as OpenAPI writes it: `/licenses/{key}`. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

function jsonContent(schema: z.ZodType) {
  return { 'application/json': { schema } };
}

function successResponse(answer: SuccessAnswer) {
  const headers = 'headers' in answer && answer.headers ? { headers: answer.headers } : {};
  if ('file' in answer) {
    return {
      description: answer.description,
      ...headers,
      content: { '*/*': { schema: { type: 'string', format: 'binary' } as const } },
    };
  }
  if ('html' in answer) {
    return {
      description: answer.description,
      content: { 'text/html': { schema: { type: 'string' } as const } },
    };
  }
  const schema = 'data' in answer ? dataEnvelope(answer.data) : answer.json;
  return { description: answer.description, ...headers, content: jsonContent(schema) };
}

function errorResponse(answer: ErrorAnswer) {
  return {
    description: `${answer.codes.join(', ')}: ${answer.description}`,
    ...(answer.headers ? { headers: answer.headers } : {}),
    content: jsonContent(errorEnvelope(answer.codes)),
  };
}

function operation(route: Route<never>): ZodOpenApiOperationObject {
  const responses: Record<string, ReturnType<typeof successResponse | typeof errorResponse>> = {};
  for (const [status, answer] of Object.entries(route.success)) {
    if (answer) responses[status] = successResponse(answer);
  }
  for (const [status, answer] of Object.entries(route.errors)) {
    if (answer) responses[status] = errorResponse(answer);
  }
  const { request } = route;
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.tag ? { tags: [route.tag] } : {}),
    ...(route.public ? { security: [] } : {}),
    ...(request?.path || request?.query || request?.headers
      ? {
          requestParams: {
            ...(request.path ? { path: request.path } : {}),
            ...(request.query ? { query: request.query } : {}),
            ...(request.headers ? { header: request.headers } : {}),
          },
        }
      : {}),
    ...(request?.body
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
 */
export function openApiDocument(options: {
  info: DocumentInfo;
  routes: readonly Route<never>[];
  components?: Record<string, z.ZodType>;
  securitySchemes?: Record<string, { type: 'http'; scheme: string; description?: string }>;
}) {
  const paths: Record<string, Partial<Record<HttpMethod, ZodOpenApiOperationObject>>> = {};
  for (const route of options.routes) {
    (paths[openApiPath(route.path)] ??= {})[route.method] = operation(route);
  }
  const security = Object.keys(options.securitySchemes ?? {}).map((name) => ({ [name]: [] }));
  return createDocument({
    openapi: '3.1.0',
    info: { ...options.info },
    ...(security.length > 0 ? { security } : {}),
    paths,
    components: {
      ...(options.components ? { schemas: options.components } : {}),
      ...(options.securitySchemes ? { securitySchemes: options.securitySchemes } : {}),
    },
  });
}
