import type { FeedContext, CatalogRelease } from './feed-context.js';

/**
 * The URL of the file a feed lists: the download of that one file (docs/updaters.md), under the
 * same access rules as spec 4.5. It ends with the file's name, which updaters save it under.
 * The key (and identifier) are repeated only when the feed was asked for with them in its
 * query, for updaters that fetch a listed URL as it is; Joomla and electron-updater add the key
 * themselves.
 */
export function fileUrl(
  { request }: FeedContext,
  { file }: CatalogRelease,
  { repeatKey }: { repeatKey: boolean },
): string {
  const url =
    `${request.api_url}/downloads/${request.product_id}/files/${file.id}/` +
    encodeURIComponent(file.filename);
  const query = repeatKey && request.key_in_query ? keyQuery(request) : '';
  return query === '' ? url : `${url}?${query}`;
}

/**
 * The absolute URL of another feed of the product (`path` below `{api_base}/updates/{id}/`),
 * repeating the key (and identifier) when this feed was asked for with them in its URL, so the
 * other feed is the same caller's view.
 */
export function feedUrl({ request }: FeedContext, path: string): string {
  const url = `${request.api_url}/updates/${request.product_id}/${path}`;
  const query = request.key_in_query ? keyQuery(request) : '';
  return query === '' ? url : `${url}?${query}`;
}

/** The relative path of a file's download from a feed at `{api_base}/updates/{id}/<a>/<b>`. */
export function fileUrlFrom(depth: number, { request }: FeedContext, { file }: CatalogRelease) {
  return (
    `${'../'.repeat(depth)}downloads/${request.product_id}/files/${file.id}/` +
    encodeURIComponent(file.filename)
  );
}

function keyQuery(request: FeedContext['request']): string {
  const query = new URLSearchParams();
  if (request.license_key !== null) query.set('license_key', request.license_key);
  if (request.identifier !== null) query.set('identifier', request.identifier);
  return query.toString();
}
