import type { z } from 'zod';
import {
  defineRoute,
  type FieldsSchema,
  type HttpMethod,
  type NoFields,
  type Route,
  type RouteDefinition,
} from '../../../libs/http/index.js';
import type { ManagementDeps } from '../management-deps.js';

/**
 * What each route of the management API promises its clients, kept on the route as a type:
 * `adminRoute` (admin-route.ts) and `managementRoute` make routes that carry it, and the console's
 * client is typed from them (services/management/api-contract.ts).
 */

declare const contract: unique symbol;

/**
 * What a client of a route sends and is answered, as the route's own schemas. Types only: no
 * value carries it. The console's client is typed from it (services/management/api-contract.ts
 * `ManagementApi`), so a call cannot name a path, a field or an answer the route does not have.
 */
export interface RouteContract {
  operationId: string;
  method: HttpMethod;
  /** The path template, `:name` for each path parameter. */
  path: string;
  params: FieldsSchema;
  query: FieldsSchema;
  /** The JSON body (z.ZodUndefined: none), or the fields of a multipart form (an upload). */
  body: z.ZodType;
  sends: 'json' | 'multipart';
  /** The `data` of the JSON answer; a CSV export answers a file (z.ZodNever). */
  data: z.ZodType;
  answers: 'json' | 'csv';
}

/**
 * A route with its contract: what `adminRoute` and `managementRoute` make. A table of them keeps
 * each one's contract when it is checked with `satisfies`, not annotated as `Route[]`.
 */
export type ManagementRoute<Contract extends RouteContract = RouteContract> =
  Route<ManagementDeps> & { readonly [contract]?: Contract };

/** The contract of a route; never for a route made without one (a page, the documentation). */
export type ContractOf<R> = R extends { readonly [contract]?: infer C }
  ? Extract<C, RouteContract>
  : never;

/** The `data` schema of a route's success answer; z.ZodNever for one that answers CSV text. */
type DataOf<Success extends Route['success']> = Success[keyof Success] extends {
  data: infer Data extends z.ZodType;
}
  ? Data
  : z.ZodNever;

/**
 * A route of the management API that is not JSON in and out (a CSV export, the upload): made by
 * `defineRoute`, with its contract kept as `adminRoute` keeps it. Its body, if any, is a
 * multipart form it streams; its answer the `data` it declares, or CSV text.
 */
export function managementRoute<
  const OperationId extends string,
  const Method extends HttpMethod,
  const Path extends string,
  Success extends Route['success'],
  Params extends FieldsSchema = NoFields,
  Query extends FieldsSchema = NoFields,
  Form extends z.ZodType = z.ZodUndefined,
>(
  definition: RouteDefinition<ManagementDeps, Params, Query, NoFields, z.ZodUndefined> & {
    operationId: OperationId;
    method: Method;
    path: Path;
    body?: never;
    streamedBody?: { contentType: 'multipart/form-data'; schema: Form };
    success: Success;
  },
): ManagementRoute<{
  operationId: OperationId;
  method: Method;
  path: Path;
  params: Params;
  query: Query;
  body: Form;
  sends: [Form] extends [z.ZodUndefined] ? 'json' : 'multipart';
  data: DataOf<Success>;
  answers: Success[keyof Success] extends { text: string } ? 'csv' : 'json';
}> {
  return defineRoute(definition);
}
