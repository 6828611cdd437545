/**
 * The feed of each updater a product can be pointed at (docs/updaters.md), with what a seller
 * pastes into the extension or app: without JSX, so the unit tests read them too. Every value
 * is text; the page renders it escaped.
 */

export interface UpdaterFeed {
  updater: string;
  url: string;
  /** Where the snippet goes. */
  where: string;
  snippet: string;
}

/**
 * The public API's base, `{PUBLIC_URL}{api_base}`, from the address of its key set, which the
 * management API gives as `{PUBLIC_URL}{api_base}/keys` (the path alone without PUBLIC_URL).
 */
export function publicApiBase(keySetUrl: string): string {
  return keySetUrl.replace(/\/keys$/, '');
}

export function updaterFeeds(
  apiBase: string,
  product: {
    id: number;
    title: string;
    wordpress: { slug: string } | null;
  },
): UpdaterFeed[] {
  const updates = `${apiBase}/updates/${product.id}`;
  const slug = product.wordpress?.slug ?? 'my-plugin';
  const joomla = `${updates}/joomla.xml`;
  const tauri = `${updates}/tauri/{{target}}/{{arch}}/{{current_version}}`;
  return [
    {
      updater: 'Joomla',
      url: joomla,
      where:
        "The extension's manifest, inside <extension>: the dlid element makes Joomla ask for " +
        'the Download Key and add it to each download.',
      // Joomla's update site name is what its Update Sites list shows: the product's title.
      snippet:
        '<updateservers>\n' +
        `  <server type="extension" priority="1" name="${xmlAttribute(product.title)}">` +
        `${xmlText(joomla)}</server>\n` +
        '</updateservers>\n' +
        '<dlid prefix="dlid=" suffix=""/>',
    },
    {
      updater: 'WordPress (plugin-update-checker)',
      url: `${updates}/wordpress.json`,
      where: "The plugin's main file, after loading plugin-update-checker 5.",
      snippet:
        '$checker = YahnisElsts\\PluginUpdateChecker\\v5\\PucFactory::buildUpdateChecker(\n' +
        `  '${phpString(`${updates}/wordpress.json`)}',\n` +
        '  __FILE__,\n' +
        `  '${phpString(slug)}'\n` +
        ');\n' +
        '$checker->addQueryArgFilter(fn ($args) => $args + [\n' +
        "  'license_key' => get_option('my_license_key'),\n" +
        "  'identifier' => home_url(),\n" +
        ']);',
    },
    {
      updater: 'Electron (electron-builder)',
      url: `${updates}/electron`,
      where:
        'electron-builder.yml, or "build" in package.json; the app sends the key with ' +
        "autoUpdater.requestHeaders = { Authorization: 'License ' + key }.",
      snippet: `publish:\n  provider: generic\n  url: '${yamlString(`${updates}/electron`)}'`,
    },
    {
      updater: 'Sparkle (macOS)',
      url: `${updates}/appcast.xml`,
      where: "The app's Info.plist; SUPublicEDKey is the key Sparkle's generate_keys prints.",
      snippet:
        `<key>SUFeedURL</key>\n<string>${xmlText(`${updates}/appcast.xml`)}</string>\n` +
        '<key>SUPublicEDKey</key>\n<string>the public key from generate_keys</string>',
    },
    {
      updater: 'Tauri',
      url: tauri,
      where:
        'tauri.conf.json; Tauri fills in {{target}}, {{arch}} and {{current_version}}, and ' +
        "pubkey is the content of the .key.pub that 'tauri signer generate' wrote.",
      snippet: JSON.stringify(
        {
          plugins: {
            updater: { endpoints: [tauri], pubkey: 'the content of your .key.pub file' },
          },
        },
        null,
        2,
      ),
    },
  ];
}

/** The ports WordPress downloads from: `wp_http_validate_url`'s `http_allowed_safe_ports`. */
const WORDPRESS_PORTS = ['80', '443', '8080'];

/**
 * Said when the public address is on a port WordPress refuses to download from (it allows a
 * site's own host and port too, which a licensing server is not); null for any other address.
 */
export function wordpressPortWarning(apiBase: string): string | null {
  if (apiBase.startsWith('/')) return null;
  let port: string;
  try {
    // The URL standard leaves the scheme's own port out: `https://host:443` has none.
    port = new URL(apiBase).port;
  } catch {
    return null;
  }
  if (port === '' || WORDPRESS_PORTS.includes(port)) return null;
  return (
    `The public address (PUBLIC_URL) is on port ${port}: WordPress downloads packages only from ` +
    'ports 80, 443 and 8080, so its updaters (plugin-update-checker, EDD) fail with ' +
    '"A valid URL was not provided." Serve the public API on one of those ports, or have each ' +
    'site allow this one with the http_allowed_safe_ports filter (docs/updaters/wordpress.md).'
  );
}

/** Joomla never sends an identifier: said for products whose downloads need one. */
export const JOOMLA_IDENTIFIER_NOTE =
  'Downloads of this product need an activated identifier, and Joomla never sends one: ' +
  "Joomla's updater will be refused until an installer plugin adds it " +
  '(onInstallerBeforePackageDownload; docs/updaters.md shows how).';

function xmlText(text: string) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
function xmlAttribute(text: string) {
  return xmlText(text).replace(/"/g, '&quot;');
}
function yamlString(text: string) {
  return text.replace(/'/g, "''");
}
function phpString(text: string) {
  return text.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}
