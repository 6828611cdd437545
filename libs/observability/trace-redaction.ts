/**
 * What a trace may say of a URL. Spans leave the system (to the tracing backend), so they carry
 * no credential: license keys travel in query strings (spec 4.5 `dlid`) and in admin paths
 * (`/admin/v1/licenses/{key}`), download tickets in the byte port's paths. Query values are
 * dropped, and a path segment long enough to be a key or a ticket is replaced; routes name their
 * template instead (libs/http route tables).
 */

/** Shorter segments are names and numbers (`v1`, `downloads`, `42`); keys and tickets are longer. */
const CREDENTIAL_LIKE = /^[A-Za-z0-9_~.%=-]{16,}$/;

export const REDACTED = '{redacted}';

/** `/a/b?x=1` with every query value and every credential-like segment replaced. */
export function redactedPath(pathAndQuery: string): string {
  const queryAt = pathAndQuery.indexOf('?');
  const path = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
  const segments = path
    .split('/')
    .map((segment) => (CREDENTIAL_LIKE.test(segment) ? REDACTED : segment))
    .join('/');
  return queryAt === -1
    ? segments
    : `${segments}?${redactedQuery(pathAndQuery.slice(queryAt + 1))}`;
}

/** `a=1&b=2` as `a={redacted}&b={redacted}`: which parameters were sent, not their values. */
export function redactedQuery(query: string): string {
  return query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => `${pair.split('=', 1)[0]}=${REDACTED}`)
    .join('&');
}
