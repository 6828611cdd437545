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
    joomla: { element: string } | null;
    wordpress: { slug: string } | null;
  },
): UpdaterFeed[] {
  const updates = `${apiBase}/updates/${product.id}`;
  const slug = product.wordpress?.slug ?? 'my-plugin';
  const name = product.joomla?.element ?? product.title;
  return [
    {
      updater: 'Joomla',
      url: `${updates}/joomla.xml`,
      where: "The extension's manifest (the dlid element asks Joomla for the Download Key).",
      snippet:
        '<updateservers>\n' +
        `  <server type="extension" name="${xmlAttribute(name)}">${xmlText(`${updates}/joomla.xml`)}</server>\n` +
        '</updateservers>\n' +
        '<dlid prefix="dlid=" suffix=""/>',
    },
    {
      updater: 'WordPress (plugin-update-checker)',
      url: `${updates}/wordpress.json`,
      where: "The plugin's main file, after loading plugin-update-checker.",
      snippet:
        '$checker = YahnisElsts\\PluginUpdateChecker\\v5\\PucFactory::buildUpdateChecker(\n' +
        `  '${phpString(`${updates}/wordpress.json`)}',\n` +
        '  __FILE__,\n' +
        `  '${phpString(slug)}'\n` +
        ');\n' +
        "$checker->addQueryArgFilter(fn ($args) => $args + ['license_key' => get_option('my_license_key')]);",
    },
    {
      updater: 'Electron (electron-builder)',
      url: `${updates}/electron`,
      where: 'electron-builder.yml, or "build" in package.json.',
      snippet: `publish:\n  provider: generic\n  url: '${updates}/electron'`,
    },
    {
      updater: 'Sparkle (macOS)',
      url: `${updates}/appcast.xml`,
      where: "The app's Info.plist.",
      snippet: `<key>SUFeedURL</key>\n<string>${xmlText(`${updates}/appcast.xml`)}</string>`,
    },
    {
      updater: 'Tauri',
      url: `${updates}/tauri/{{target}}/{{arch}}/{{current_version}}`,
      where: 'tauri.conf.json, under plugins.updater.',
      snippet:
        '"endpoints": [\n' + `  "${updates}/tauri/{{target}}/{{arch}}/{{current_version}}"\n` + ']',
    },
  ];
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
function phpString(text: string) {
  return text.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}
