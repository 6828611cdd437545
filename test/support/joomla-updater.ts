// Checks a Joomla extension update stream the way Joomla 4.x/5.x does, so tests can say "Joomla would
// choose version X and download URL Y" without PHP. Ported from joomla/joomla-cms:
// - libraries/src/Updater/Adapter/ExtensionAdapter.php (_startElement/_endElement/_characterData,
//   findUpdate): the update check, which keeps ONE update per stream, the highest that passes the
//   targetplatform, php_minimum, supported_databases and stability checks, WHATEVER its element;
// - libraries/src/Updater/Updater.php (getUpdateObjectsForSite): only then is that one update matched
//   to an installed extension by element, type, client_id and folder, and kept if its version is higher;
// - libraries/src/Updater/Update.php (loadFromXml): the install re-reads the stream with the same rules
//   and takes <downloadurl>, <sha256>/<sha384>/<sha512> from the update it keeps;
// - administrator/components/com_installer/src/Model/UpdateModel.php (install): the extra query append;
// - libraries/src/Installer/InstallerHelper.php (downloadPackage, getFilenameFromUrl, isChecksumValid);
// - joomla-framework/uri src/AbstractUri.php (parse), through which joomla-framework/http sends the URL.
import { createHash } from 'node:crypto';
import { readXmlEvents } from './joomla-update-xml.js';
import { phpVersionAtLeast, phpVersionGreater } from './php-version-compare.js';

/** Updater::STABILITY_* constants. */
export const STABILITY = { dev: 0, alpha: 1, beta: 2, rc: 3, stable: 4 } as const;
export type Stability = keyof typeof STABILITY;

/** One <update> as Joomla's handlers record it (no trimming anywhere, as in Joomla). */
export interface JoomlaUpdate {
  /** UpdateAdapter::$updatecols, lower-cased: name, element, type, folder, client, version, ... */
  fields: Record<string, string>;
  /** Attributes of the last <targetplatform>, names upper-cased (NAME, VERSION). */
  targetplatform?: Record<string, string>;
  /** The last character-data piece of <php_minimum> (ExtensionAdapter assigns, it does not append). */
  phpMinimum?: string;
  /** Attributes of <supported_databases>, names upper-cased (MYSQL, MARIADB, POSTGRESQL). */
  supportedDatabases?: Record<string, string>;
  /** From the last piece of <tag> text; unknown tags count as stable. */
  stability?: number;
  /** Text of the last <downloadurl> (Update.php resets it at each start tag) and its attributes. */
  downloadurl?: { text: string; attrs: Record<string, string> };
  hashes: Partial<Record<'sha256' | 'sha384' | 'sha512', string>>;
}

export interface JoomlaStream {
  updates: JoomlaUpdate[];
}

const UPDATE_COLS = new Set([
  'NAME',
  'ELEMENT',
  'TYPE',
  'FOLDER',
  'CLIENT',
  'VERSION',
  'DESCRIPTION',
  'INFOURL',
  'CHANGELOGURL',
  'EXTRA_QUERY',
]);
const HASHES = ['sha256', 'sha384', 'sha512'] as const;

function stabilityTagToInteger(tag: string): number {
  const known = STABILITY[tag.toLowerCase() as Stability];
  return known ?? STABILITY.stable;
}

/** Reads a stream; throws where Joomla's xml_parse() fails (Joomla then finds no update at all). */
export function parseUpdateStream(xml: string): JoomlaStream {
  const updates: JoomlaUpdate[] = [];
  const stack: string[] = [];
  let current: JoomlaUpdate | undefined;
  for (const event of readXmlEvents(xml)) {
    if (event.kind === 'start') {
      stack.push(event.name);
      if (event.name === 'UPDATE') {
        current = { fields: {}, hashes: {} };
        updates.push(current);
        continue;
      }
      if (!current) continue;
      if (UPDATE_COLS.has(event.name)) current.fields[event.name.toLowerCase()] = '';
      if (event.name === 'TARGETPLATFORM') current.targetplatform = event.attrs;
      if (event.name === 'PHP_MINIMUM') current.phpMinimum = '';
      if (event.name === 'SUPPORTED_DATABASES') current.supportedDatabases = event.attrs;
      if (event.name === 'DOWNLOADURL') current.downloadurl = { text: '', attrs: event.attrs };
      const hash = event.name.toLowerCase() as (typeof HASHES)[number];
      if (HASHES.includes(hash)) current.hashes[hash] = '';
    } else if (event.kind === 'end') {
      stack.pop();
    } else if (current) {
      const tag = stack[stack.length - 1]!;
      const lower = tag.toLowerCase();
      if (UPDATE_COLS.has(tag)) current.fields[lower] += event.data;
      if (tag === 'PHP_MINIMUM') current.phpMinimum = event.data;
      if (tag === 'TAG') current.stability = stabilityTagToInteger(event.data);
      if (tag === 'DOWNLOADURL' && current.downloadurl) current.downloadurl.text += event.data;
      if ((HASHES as readonly string[]).includes(lower)) {
        current.hashes[lower as (typeof HASHES)[number]] += event.data;
      }
    }
  }
  return { updates };
}

/**
 * preg_match('/^' . $version . '/', JVERSION). PHP ends the pattern at the first '/' not preceded by a
 * backslash, wherever it is (even inside [...]); what follows is read as modifiers, and the closing '/'
 * always makes them invalid ("Unknown modifier"), so preg_match returns false: the update is ignored.
 * A pattern PCRE cannot compile also matches nothing. The rest is assumed to mean the same in JS.
 */
export function targetPlatformVersionMatches(version: string, joomlaVersion: string): boolean {
  for (let i = 0; i < version.length; i++) {
    if (version[i] === '\\' && i + 1 < version.length) i++;
    else if (version[i] === '/') return false;
  }
  try {
    return new RegExp('^' + version).test(joomlaVersion);
  } catch {
    return false;
  }
}

export interface JoomlaSite {
  /** JVERSION, e.g. "5.1.2" (or "5.2.0-rc1"). */
  joomlaVersion: string;
  /** PHP_VERSION, e.g. "8.2.12". */
  phpVersion: string;
  /** com_installer's minimum_stability option (default stable). */
  minimumStability?: Stability;
  /** getServerType() ('mysql', 'postgresql') and getVersion(); a MariaDB version contains "mariadb". */
  database?: { serverType: string; version: string };
}

const DEFAULT_DATABASE = { serverType: 'mysql', version: '8.0.36' };

function databaseMatches(update: JoomlaUpdate, site: JoomlaSite): boolean {
  if (!update.supportedDatabases) return true;
  const db = site.database ?? DEFAULT_DATABASE;
  let type = db.serverType.toLowerCase();
  let version = db.version;
  if (type === 'mysql' && version.toLowerCase().includes('mariadb')) {
    version = version.replace(/^5\.5\.5-/, '');
    type = 'mariadb';
  }
  const minimum = update.supportedDatabases[type.toUpperCase()];
  return minimum !== undefined && phpVersionAtLeast(version, minimum);
}

/** ExtensionAdapter::_endElement('UPDATE'): may this update be the stream's candidate? */
export function updatePassesChecks(update: JoomlaUpdate, site: JoomlaSite): boolean {
  const tp = update.targetplatform;
  // $product ('joomla') == NAME: exact, so "Joomla" or a missing <targetplatform> never matches.
  if (!tp || tp['NAME'] !== 'joomla') return false;
  if (!targetPlatformVersionMatches(tp['VERSION'] ?? '', site.joomlaVersion)) return false;
  if (update.phpMinimum !== undefined && !phpVersionAtLeast(site.phpVersion, update.phpMinimum)) {
    return false;
  }
  if (!databaseMatches(update, site)) return false;
  const minimum = STABILITY[site.minimumStability ?? 'stable'];
  return update.stability === undefined || update.stability >= minimum;
}

/** The one update Joomla keeps from a stream, before it looks at which extension it is for. */
export function joomlaLatest(stream: JoomlaStream, site: JoomlaSite): JoomlaUpdate | null {
  let latest: JoomlaUpdate | null = null;
  for (const update of stream.updates) {
    if (!updatePassesChecks(update, site)) continue;
    // version_compare(current, latest, '>'): on a tie the earlier <update> stays.
    if (
      !latest ||
      phpVersionGreater(update.fields['version'] ?? '', latest.fields['version'] ?? '')
    ) {
      latest = update;
    }
  }
  return latest;
}

/** ApplicationHelper::getClientInfo ids (UpdateModel also names 3 as API). */
const CLIENT_IDS: Record<string, number> = { site: 0, administrator: 1, installation: 2, api: 3 };

/**
 * ExtensionAdapter::findUpdate: no or empty <client> leaves client_id 1 (administrator); a numeric one
 * is used as is; a name is looked up case-insensitively; an unknown name gives no id at all (null).
 */
export function updateClientId(update: JoomlaUpdate): number | null {
  const client = update.fields['client'];
  if (client === undefined || client.length === 0) return 1;
  if (/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(client)) return Number(client);
  return CLIENT_IDS[client.toLowerCase()] ?? null;
}

export interface InstalledExtension {
  element: string;
  type: string;
  /** The extension's client: plugins, packages, libraries, files and components' records use their own ids. */
  client: 'site' | 'administrator' | number;
  folder?: string;
  /** The installed version; the update must be strictly higher (Updater uses operator 'gt'). */
  installedVersion?: string;
}

export type JoomlaCheck = JoomlaSite & InstalledExtension;

/** The update Joomla offers for this installed extension, or null (exactly as the rules above). */
export function joomlaChooses(stream: JoomlaStream, check: JoomlaCheck): JoomlaUpdate | null {
  const latest = joomlaLatest(stream, check);
  if (!latest) return null;
  const clientId = typeof check.client === 'number' ? check.client : CLIENT_IDS[check.client];
  const same =
    latest.fields['element'] === check.element &&
    latest.fields['type'] === check.type &&
    updateClientId(latest) === clientId &&
    (latest.fields['folder'] ?? '') === (check.folder ?? '');
  if (!same) return null;
  if (
    check.installedVersion !== undefined &&
    !phpVersionGreater(latest.fields['version'] ?? '', check.installedVersion)
  ) {
    return null;
  }
  return latest;
}

export {
  downloadUrlWithDlid,
  joomlaDownloadUrl,
  joomlaPackageName,
  joomlaRequestUrl,
} from './joomla-download.js';

export type ChecksumResult = 'validated' | 'not-validated' | 'not-provided';

/**
 * InstallerHelper::isChecksumValid: every hash element present (even empty) must equal the lower-case
 * hex digest of the file, compared with strtolower() of the text and NO trimming; none present means
 * "not provided", which Joomla installs after a warning.
 */
export function checksumMatches(update: JoomlaUpdate, bytes: Uint8Array): ChecksumResult {
  let onFile = false;
  for (const algorithm of HASHES) {
    const remote = update.hashes[algorithm];
    if (remote === undefined) continue;
    onFile = true;
    const digest = createHash(algorithm).update(bytes).digest('hex');
    if (digest !== remote.toLowerCase()) return 'not-validated';
  }
  return onFile ? 'validated' : 'not-provided';
}
