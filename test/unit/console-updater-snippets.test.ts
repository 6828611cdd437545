import {
  JOOMLA_IDENTIFIER_NOTE,
  publicApiBase,
  updaterFeeds,
  wordpressPortWarning,
} from '../../services/management/console/pages/versions/updater-snippets.js';

/**
 * The Updaters panel's feeds and snippets (docs/updaters.md): each snippet names its own feed's
 * URL for the product, in the form the updater's documentation gives.
 */

const BASE = 'https://licenses.example/api/v1';
const product = { id: 42, title: 'Gallery "Pro" & Co', wordpress: { slug: 'gallery-pro' } };
const feeds = updaterFeeds(BASE, product);
const feed = (updater: string) => {
  const found = feeds.find((one) => one.updater.startsWith(updater));
  if (!found) throw new Error(`no ${updater} feed`);
  return found;
};

describe('the updater snippets', () => {
  test('the public API base is the key set address without /keys, with or without PUBLIC_URL', () => {
    expect(publicApiBase(`${BASE}/keys`)).toBe(BASE);
    expect(publicApiBase('/api/v1/keys')).toBe('/api/v1');
  });

  test.each([
    ['Joomla', `${BASE}/updates/42/joomla.xml`],
    ['WordPress', `${BASE}/updates/42/wordpress.json`],
    ['Electron', `${BASE}/updates/42/electron`],
    ['Sparkle', `${BASE}/updates/42/appcast.xml`],
    ['Tauri', `${BASE}/updates/42/tauri/{{target}}/{{arch}}/{{current_version}}`],
  ])('the %s snippet names its feed, %s', (updater, url) => {
    expect(feed(updater).url).toBe(url);
    expect(feed(updater).snippet).toContain(url);
    // No other product's feed, and no other updater's.
    for (const other of feeds.filter((one) => one !== feed(updater))) {
      expect(feed(updater).snippet).not.toContain(other.url);
    }
  });

  test("Joomla's snippet is an extension update server with priority and the dlid element, the title escaped", () => {
    expect(feed('Joomla').snippet).toBe(
      '<updateservers>\n' +
        '  <server type="extension" priority="1" name="Gallery &quot;Pro&quot; &amp; Co">' +
        `${BASE}/updates/42/joomla.xml</server>\n` +
        '</updateservers>\n' +
        '<dlid prefix="dlid=" suffix=""/>',
    );
  });

  test("Tauri's snippet is plugins.updater with endpoints and pubkey, the placeholders kept literally", () => {
    const config = JSON.parse(feed('Tauri').snippet) as {
      plugins: { updater: { endpoints: string[]; pubkey: string } };
    };
    expect(config.plugins.updater.endpoints).toEqual([
      `${BASE}/updates/42/tauri/{{target}}/{{arch}}/{{current_version}}`,
    ]);
    expect(config.plugins.updater.pubkey).toEqual(expect.any(String));
  });

  test("Sparkle's snippet sets SUFeedURL and SUPublicEDKey in Info.plist", () => {
    expect(feed('Sparkle').snippet).toMatch(
      new RegExp(
        `^<key>SUFeedURL</key>\\n<string>${BASE}/updates/42/appcast\\.xml</string>\\n` +
          '<key>SUPublicEDKey</key>\\n<string>[^<]+</string>$',
      ),
    );
  });

  test("electron-builder's snippet publishes to the generic provider at the feed's base", () => {
    expect(feed('Electron').snippet).toBe(
      `publish:\n  provider: generic\n  url: '${BASE}/updates/42/electron'`,
    );
  });

  test("plugin-update-checker's snippet builds a v5 checker on the plugin's slug and sends the key", () => {
    const snippet = feed('WordPress').snippet;
    expect(snippet).toContain(
      'YahnisElsts\\PluginUpdateChecker\\v5\\PucFactory::buildUpdateChecker(\n' +
        `  '${BASE}/updates/42/wordpress.json',\n  __FILE__,\n  'gallery-pro'\n);`,
    );
    expect(snippet).toMatch(/addQueryArgFilter\(.*\n\s+'license_key' =>/);
    // Without WordPress settings the slug is a placeholder to replace.
    const bare = updaterFeeds(BASE, { ...product, wordpress: null });
    expect(bare.find((one) => one.updater.startsWith('WordPress'))!.snippet).toContain(
      "'my-plugin'",
    );
  });

  test('a quote in a value cannot end the string it is put in', () => {
    const odd = updaterFeeds("https://x.example/it's", { ...product, wordpress: { slug: "a'b" } });
    expect(odd.find((one) => one.updater.startsWith('WordPress'))!.snippet).toContain(
      "'https://x.example/it\\'s/updates/42/wordpress.json'",
    );
    expect(odd.find((one) => one.updater.startsWith('Electron'))!.snippet).toContain(
      "url: 'https://x.example/it''s/updates/42/electron'",
    );
  });

  test('a public address on a port WordPress does not download from is warned of; 80, 443 and 8080 are not', () => {
    expect(wordpressPortWarning('http://licenses.example:3000/api/v1')).toMatch(
      /port 3000.*80, 443 and 8080.*A valid URL was not provided.*http_allowed_safe_ports/,
    );
    for (const base of [
      'https://licenses.example/api/v1',
      'https://licenses.example:443/api/v1',
      'http://licenses.example:80/api/v1',
      'http://licenses.example:8080/api/v1',
      'https://licenses.example:8080/api/v1',
      '/api/v1',
    ]) {
      expect(wordpressPortWarning(base)).toBeNull();
    }
  });

  test('the Joomla identifier note names the installer event that can add one', () => {
    expect(JOOMLA_IDENTIFIER_NOTE).toMatch(/onInstallerBeforePackageDownload/);
  });
});
