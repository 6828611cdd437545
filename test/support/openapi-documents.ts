import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Response as SuperagentResponse } from 'superagent';
import type request from 'supertest';
import { publicOpenApi } from '../../services/gateway/openapi.js';
import { managementOpenApi } from '../../services/management/openapi.js';

/**
 * The two OpenAPI documents, read as a client would, and the check that a real response is the
 * one its document promises: the status is documented for its path and method, its JSON body
 * is valid against the documented schema, the documented headers are present.
 */

const addFormats = addFormatsModule.default;
export const METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as const;
export type Method = (typeof METHODS)[number];

export interface Doc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, PathItem>;
  components?: { schemas?: Record<string, object>; securitySchemes?: Record<string, object> };
  security?: ReadonlyArray<Record<string, readonly string[]>>;
}
type PathItem = Partial<Record<Method, Operation>> & { parameters?: readonly Parameter[] };
export interface Operation {
  operationId?: string;
  parameters?: readonly Parameter[];
  requestBody?: { content: Record<string, { schema?: object }> };
  responses: Record<string, Response>;
  security?: ReadonlyArray<Record<string, readonly string[]>>;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: object;
}
interface Response {
  description: string;
  headers?: Record<string, { schema?: object; required?: boolean }>;
  content?: Record<string, { schema?: object }>;
}

export const documents: Array<{ name: string; doc: Doc }> = [
  { name: 'public', doc: publicOpenApi as unknown as Doc },
  { name: 'management', doc: managementOpenApi as unknown as Doc },
];

export function operations(doc: Doc): Array<{ path: string; method: Method; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = item[method];
      return op ? [{ path, method, op }] : [];
    }),
  );
}

/** OpenAPI refs point into the document; ajv gets the component schemas as one schema of $defs. */
function rewriteRefs(value: unknown, base: string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, base));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string'
        ? v.replace(/^#\/components\/schemas\//, `${base}#/$defs/`)
        : rewriteRefs(v, base),
    ]),
  );
}

function schemaCompiler(name: string, doc: Doc) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  const base = `urn:openapi:${name}`;
  ajv.addSchema({ $id: base, $defs: rewriteRefs(doc.components?.schemas ?? {}, base) as object });
  const cache = new Map<object, ValidateFunction>();
  return (schema: object): ValidateFunction => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(rewriteRefs(schema, base) as object);
      cache.set(schema, validate);
    }
    return validate;
  };
}

const compilers = new WeakMap<Doc, ReturnType<typeof schemaCompiler>>();
let compiled = 0;

/** The validator of a schema of `doc` (its `$ref`s resolved against the doc's components). */
export function compile(doc: Doc, schema: object): ValidateFunction {
  let compiler = compilers.get(doc);
  if (!compiler) {
    compiler = schemaCompiler(`document${++compiled}`, doc);
    compilers.set(doc, compiler);
  }
  return compiler(schema);
}

/** The operation a concrete path names: `/admin/v1/products/7` is `/admin/v1/products/{id}`. */
export function templateOf(doc: Doc, method: Method, path: string): string | undefined {
  const segments = (path.split('?', 1)[0] ?? path).split('/');
  return Object.keys(doc.paths).find((template) => {
    const parts = template.split('/');
    return (
      doc.paths[template]?.[method] !== undefined &&
      parts.length === segments.length &&
      parts.every((part, i) => (/^\{.+\}$/.test(part) ? segments[i] !== '' : part === segments[i]))
    );
  });
}

/** Whether a media type is JSON: `application/json` or a `+json` type (`application/jwk-set+json`). */
const isJson = (type: string) => /^application\/(?:[\w.-]+\+)?json$/.test(type);

/**
 * Why a real response does not match its document, or null when it does: its status is
 * documented, its JSON body matches the schema of its documented JSON media type, and the
 * headers documented as required are there. A request no documented operation takes (an unknown
 * route, a wrong method) has nothing to match.
 */
export function undocumented(
  doc: Doc,
  method: Method,
  template: string,
  res: Pick<SuperagentResponse, 'status' | 'headers' | 'body'>,
): string | null {
  const where = `${method.toUpperCase()} ${template} -> ${res.status}`;
  const documented = doc.paths[template]?.[method]?.responses[String(res.status)];
  if (!documented) return `${where}: this status is not documented`;
  const headers = res.headers as Record<string, string | undefined>;
  const json = Object.entries(documented.content ?? {}).find(([type]) => isJson(type));
  const schema = json?.[1].schema;
  if (json && schema) {
    const sent = (headers['content-type'] ?? '').split(';')[0]!.trim();
    if (sent !== json[0]) return `${where}: not ${json[0]} (${headers['content-type']})`;
    const validate = compile(doc, schema);
    if (!validate(res.body)) {
      return `${where}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(res.body)}`;
    }
  }
  for (const [header, { required }] of Object.entries(documented.headers ?? {})) {
    if (required && headers[header.toLowerCase()] === undefined) {
      return `${where}: no ${header} header`;
    }
  }
  return null;
}

/**
 * A supertest agent whose every answer must be what the OpenAPI document promises for its path,
 * method and status (an answer to a request no documented operation takes is not checked): so
 * every integration test's response validates against the documents.
 */
export function checkedAgainst<A extends object>(doc: Doc, agent: A): A {
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || !METHODS.includes(property as Method)) return value;
      const method = property as Method;
      return (path: string, ...rest: unknown[]) => {
        const test = (value as (...args: unknown[]) => request.Test).call(target, path, ...rest);
        const template = templateOf(doc, method, path);
        if (template === undefined) return test;
        return test.expect((res: request.Response) => {
          const problem = undocumented(doc, method, template, res);
          if (problem !== null) throw new Error(`Not as documented: ${problem}`);
        });
      };
    },
  });
}
