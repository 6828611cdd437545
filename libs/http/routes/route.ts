import type { RequestHandler } from 'express';
import type { z } from 'zod';
import type { AdminRole, ErrorCode } from '../../contracts/index.js';
import type { BodyLimits } from '../input/body.js';
import type { AnswerSigning } from '../signed-answers.js';

/**
 * Route tables: each HTTP surface (the public API, the management API) lists its routes once,
 * with what they accept and answer in the contracts' schemas. The same table mounts the Express
 * handlers (mount-routes.ts) and is the OpenAPI document (api-reference/openapi-document.ts), so a
 * route cannot be served undocumented or documented differently from what it does. A route is
 * defined with the schemas it parses (define-route.ts).
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
   * Of an admin route: the least role it declares. What an undeclared one needs, and how a role
   * is checked and documented, is the surface's policy (the management API's:
   * services/management/admins/roles.ts).
   */
  role?: AdminRole;
  /** OpenAPI extensions of its entry, such as what its policy documents (`x-required-role`). */
  extensions?: Record<`x-${string}`, string>;
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
