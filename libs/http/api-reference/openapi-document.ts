import type { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject } from 'zod-openapi';
import { dataEnvelope, errorEnvelope } from '../../contracts/index.js';
import type { ErrorAnswer, HttpMethod, Route, SuccessAnswer } from '../routes/route.js';
import {
  BAD_NONCE_DESCRIPTION,
  SignedAnswerHeaders,
  SignedRouteRequestHeaders,
} from '../signed-answers.js';

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

/** A signed route also refuses a malformed nonce: 400 INVALID_REQUEST, said in its 400. */
function errorsOf(route: Route<never>): Route['errors'] {
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
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...route.extensions,
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
 * What an admin operation needs beyond the credential (a role) its surface's policy writes into
 * the route before it is given here (`extensions`, its description, its errors).
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
