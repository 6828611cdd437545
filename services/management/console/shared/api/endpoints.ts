/**
 * Where the console's calls go: the endpoints the page was served with (its config, made from
 * the route table: routes.ts `adminEndpoints`), and the path of a call to one of them.
 */
import type { HttpMethod } from '../../../../../libs/http/index.js';
import type { Endpoint, Endpoints } from '../../../console-config.js';

const METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

/** The endpoints of a page's config; an entry not of their form is left out. */
export function endpointsOf(config: Record<string, unknown>): Endpoints {
  const endpoints: Endpoints = {};
  const listed = config.endpoints;
  if (typeof listed !== 'object' || listed === null) return endpoints;
  const entries: [string, unknown][] = Object.entries(listed);
  for (const [operationId, endpoint] of entries) {
    if (typeof endpoint !== 'object' || endpoint === null) continue;
    if (!('method' in endpoint) || !('path' in endpoint)) continue;
    const method = METHODS.find((known) => known === endpoint.method);
    if (method !== undefined && typeof endpoint.path === 'string') {
      endpoints[operationId] = { method, path: endpoint.path };
    }
  }
  return endpoints;
}

/** A path parameter or query value, sent as its text. */
export type FieldValue = string | number | boolean;

/** A query value; absent ones (null, undefined, empty text) are left out of the query string. */
export type QueryValue = FieldValue | null | undefined;

function withQuery(path: string, query: Readonly<Record<string, QueryValue>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === null || value === undefined || value === '') continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/**
 * The path of a call: the endpoint's, each `:name` filled with that parameter as one segment
 * (a `/`, `?` or `#` in a license key stays in it), then the query. A parameter missing or
 * empty is refused: the path would name another route.
 */
export function pathOf(
  endpoint: Endpoint,
  params: Readonly<Record<string, FieldValue | undefined>>,
  query: Readonly<Record<string, QueryValue>>,
): string {
  const path = endpoint.path.replace(/:(\w+)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') {
      throw new Error(`${endpoint.path} needs ${name}.`);
    }
    return encodeURIComponent(String(value));
  });
  return withQuery(path, query);
}
