// How Joomla builds and sends the package download URL and names the saved file (ported from
// joomla/joomla-cms administrator/components/com_installer/src/Model/UpdateModel.php install(),
// libraries/src/Installer/InstallerHelper.php downloadPackage() and getFilenameFromUrl(), and
// joomla-framework/uri src/AbstractUri.php parse()/render(), used by joomla-framework/http for every
// request).

/** PHP truthiness of a string: '' and '0' are false. */
const phpTruthy = (s: string | undefined): s is string => s !== undefined && s !== '' && s !== '0';

/** PHP trim()'s default characters. */
const phpTrim = (s: string, chars = ' \t\n\r\0\x0B'): string => {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start]!)) start++;
  while (end > start && chars.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
};

/**
 * UpdateModel::install(): trim(<downloadurl>), then, when the update site's extra_query (the stored
 * dlid prefix . key . suffix) is set, '?' if the URL has no '?' anywhere, else the literal '&amp;'.
 */
export function joomlaDownloadUrl(downloadurl: string, extraQuery: string | undefined): string {
  let url = phpTrim(downloadurl);
  if (phpTruthy(extraQuery)) url += (url.includes('?') ? '&amp;' : '?') + extraQuery;
  return url;
}

/**
 * The URL joomla-framework/http puts on the wire: new Uri($url) replaces every '&amp;' of the query
 * with '&', but joomla/uri before 2.0.1 and 1.2.1 (Joomla 4.0.x shipped 2.0.0) tested
 * `strpos($query, '&amp;')` without `!== false`, so a query STARTING with '&amp;' (a download URL
 * ending in a bare '?') was sent unchanged and the server sees a parameter named "amp;dlid".
 * An empty query or fragment is dropped (render() uses !empty()).
 */
export function joomlaRequestUrl(
  url: string,
  uri: 'current' | 'joomla-uri-2.0.0' = 'current',
): string {
  const hashAt = url.indexOf('#');
  const beforeFragment = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : url.slice(hashAt + 1);
  const queryAt = beforeFragment.indexOf('?');
  const base = queryAt === -1 ? beforeFragment : beforeFragment.slice(0, queryAt);
  let query = queryAt === -1 ? '' : beforeFragment.slice(queryAt + 1);
  const at = query.indexOf('&amp;');
  if (uri === 'current' ? at !== -1 : at > 0) query = query.split('&amp;').join('&');
  return base + (phpTruthy(query) ? '?' + query : '') + (phpTruthy(fragment) ? '#' + fragment : '');
}

/** What the licensing server receives when Joomla downloads this update with this extra_query. */
export function downloadUrlWithDlid(
  downloadurl: string,
  extraQuery: string | undefined,
  uri: 'current' | 'joomla-uri-2.0.0' = 'current',
): string {
  return joomlaRequestUrl(joomlaDownloadUrl(downloadurl, extraQuery), uri);
}

/** PHP basename() on '/' paths. */
function phpBasename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** InstallerHelper::getFilenameFromUrl; null stands for the uniqid() Joomla falls back to. */
export function filenameFromUrl(url: string): string | null {
  if (!url.includes('/')) return null;
  let name = url.slice(url.lastIndexOf('/') + 1);
  name = name.replace(/[^a-z0-9_\-.]/gi, '_');
  name = phpTrim(name, '_').replace(/__+/g, '_');
  return name === '' ? null : name;
}

/**
 * InstallerHelper::downloadPackage(): the file name is taken from the FIRST Content-Disposition value
 * matched by /\s*filename\s?=\s?(.*)/ (case-sensitive, so `filename*=` alone does not match), cut at
 * the first ';' and stripped of '"' only; otherwise from the requested URL, query included, every
 * character outside [A-Za-z0-9_.-] made '_'. cURL follows redirects itself, so that URL is the one
 * Joomla asked for (with its dlid), not the redirect target. null means a random uniqid() name.
 */
export function joomlaPackageName(
  contentDisposition: string | undefined,
  url: string,
): string | null {
  let target: string | undefined;
  const parts = contentDisposition ? /\s*filename\s?=\s?(.*)/.exec(contentDisposition) : null;
  if (parts) target = phpTrim(parts[1]!.split(';')[0]!, '"');
  if (phpTruthy(target)) return phpBasename(target);
  return filenameFromUrl(url);
}
