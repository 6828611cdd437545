import type { HttpMethod } from '../../libs/http/index.js';

/**
 * What the console page is served with: where each operation of the management API is, from the
 * route table (routes.ts `adminEndpoints`). The console imports these as types only.
 */

/** Where an operation is: its method and its path, `:name` for each path parameter. */
export interface Endpoint {
  method: HttpMethod;
  path: string;
}

/** Every operation of the admin API (under /admin/v1), by operation id. */
export type Endpoints = Record<string, Endpoint>;

/** What the console page is served with (libs/web/web-app.ts `PageSettings`). */
export type ConsoleConfig = { endpoints: Endpoints };
