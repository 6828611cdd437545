import type { z } from 'zod';
import {
  rpcMethods,
  type MethodName,
  type RequestOf,
  type ResponseOf,
  type RpcMethods,
} from '../../../libs/contracts/index.js';
import type { HttpMethod, NoFields, RouteInput } from '../../../libs/http/index.js';
import { adminRoute, type AdminRoute, type AdminRouteSpec } from './admin-route.js';

/** The answer of an RPC method, as its response schema reads it. */
type Answered<M extends MethodName> = RpcMethods[M]['response'];

/** The RPC methods whose answer, as it arrives, is what their response schema reads. */
export type PassedThrough = {
  [M in MethodName]: ResponseOf<M> extends z.input<Answered<M>> ? M : never;
}[MethodName];

/**
 * An admin route that makes one RPC call and answers its result: it declares the call (`rpc`),
 * and its answer is that method's response schema (libs/contracts/rpc.ts), so what it documents
 * is what the service answers. `request` is the call's request, from the route's input;
 * `location`, of a creation (201), the new record's path.
 */
export function rpcRoute<
  const OperationId extends string,
  const Method extends HttpMethod,
  const Path extends string,
  M extends PassedThrough,
  Params extends z.ZodObject = NoFields,
  Query extends z.ZodObject = NoFields,
  Body extends z.ZodType = z.ZodUndefined,
>(
  route: Omit<
    AdminRouteSpec<OperationId, Method, Path, Answered<M>, Params, Query, Body>,
    'success' | 'handle'
  > & {
    rpc: M;
    request: (input: RouteInput<Params, Query, NoFields, Body>) => RequestOf<M>;
    success: { status: 200 | 201 | 202; description: string };
    location?: (answer: ResponseOf<M>) => string;
  },
): AdminRoute<OperationId, Method, Path, Answered<M>, Params, Query, Body> {
  const { rpc, request, location, success, ...rest } = route;
  // Typed where it is called; within, M is any method, which the compiler cannot follow.
  const made = adminRoute<OperationId, Method, Path, z.ZodType, Params, Query, Body>({
    ...rest,
    success: { ...success, data: rpcMethods[rpc].response },
    handle: async (input, { transport }) => {
      const data = await transport.call(rpc, request(input));
      return location ? { data, location: location(data) } : { data };
    },
  });
  return made as AdminRoute<OperationId, Method, Path, Answered<M>, Params, Query, Body>;
}
