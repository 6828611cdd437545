import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';
import { missingForWordPress, WordPressSite } from '../support/wordpress-site.js';
import { WordPressStore } from '../support/wordpress-store.js';
import {
  buildPlainTheme,
  buildSampleTheme,
  PLAIN_THEME,
  THEME_SLUG,
  zipSampleTheme,
} from '../support/wordpress-theme.js';

/**
 * `Licensing\WordPress\ThemeLicense` inside a real WordPress (as the plugin's test sets it up):
 * a theme that adds its license in functions.php gets WordPress's own theme updates from the
 * service's feed, installed by Theme_Upgrader, and frees the site's activation when the site
 * switches to another theme.
 */

type Offered = { response: { new_version: string; package: string } | null };

const NEW_FILE = 'whats-new.php';

let system: TestSystem;
let store: WordPressStore;
let site: WordPressSite;
let work: string;
let key: string;

const theme = <T = Record<string, unknown>>(command: string, ...args: string[]) =>
  site.script<T>('theme.php', command, ...args);

beforeAll(async () => {
  const missing = missingForWordPress();
  if (missing.length > 0) throw new Error(`Missing for the WordPress test: ${missing.join(', ')}`);
  work = await mkdtemp(path.join(tmpdir(), 'wordpress-theme-'));
  system = await bootSystem();
  const servicePort = Number(new URL(system.running.gatewayUrl).port);
  [site, store] = await Promise.all([
    WordPressSite.start(servicePort),
    WordPressStore.open(system, 'Sample Licensed Theme', THEME_SLUG),
  ]);
  key = await store.issue('2099-06-30T12:00:00Z');
  const installed = await buildSampleTheme(work, store.build('1.0.0'));
  await cp(installed, path.join(site.themes, THEME_SLUG), { recursive: true });
  await buildPlainTheme(site.themes);
  expect(await theme('switch', THEME_SLUG)).toEqual({ stylesheet: THEME_SLUG });
  const zip = await zipSampleTheme(work, store.build('2.0.0', { [NEW_FILE]: '<?php\n' }));
  await store.upload('2.0.0', zip, `${THEME_SLUG}-2.0.0.zip`, 'A page of what is new.');
}, 120_000);

afterAll(async () => {
  await site?.stop();
  await system?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("a theme's license in a real WordPress", () => {
  test("WordPress's theme check offers 2.0.0 with its package, and Theme_Upgrader installs it", async () => {
    expect(await theme('license-activate', key)).toEqual({
      type: 'success',
      message: 'The license is activated on this site.',
      menu: `${site.url}/wp-admin/themes.php?page=${THEME_SLUG}-license`,
    });

    const offered = await theme<Offered>('update-check');
    expect(offered.response).toMatchObject({ new_version: '2.0.0' });
    expect(offered.response?.package).toMatch(
      new RegExp(
        `^${store.storeUrl}${API_BASE}/downloads/${store.productId}/.*[?&]license_key=${key}`,
      ),
    );

    expect(await theme('upgrade')).toMatchObject({ result: true, version: '2.0.0' });
    expect(existsSync(path.join(site.themes, THEME_SLUG, NEW_FILE))).toBe(true);
  });

  test("switching to another theme frees the site's activation", async () => {
    expect(await store.activations(key)).toEqual(['127.0.0.1']);
    expect(await theme('switch', PLAIN_THEME)).toEqual({ stylesheet: PLAIN_THEME });
    expect(await store.activations(key)).toEqual([]);
  });
});
