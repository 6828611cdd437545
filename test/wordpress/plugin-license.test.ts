import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.js';
import { screenshot } from '../support/started-system.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';
import { buildSamplePlugin, PLUGIN_FILE, PLUGIN_SLUG } from '../support/wordpress-package.js';
import { missingForWordPress, WordPressSite } from '../support/wordpress-site.js';
import { signInToWordPress, WordPressStore } from '../support/wordpress-store.js';

/**
 * The PHP client's WordPress support (Licensing\WordPress) inside a real WordPress (Debian's
 * 6.1, its own MariaDB, served by `php -S`), with the sample plugin
 * (libs/client-php/examples/wordpress-plugin) installed at 1.0.0, against the licensing system
 * booted in this process. The tests walk one site through a license's life, in order: the
 * license screen in Chromium, the "View details" modal, WordPress's own update check and
 * Plugin_Upgrader, a revoked license, and uninstalling.
 */

type Offered = {
  response: { new_version: string; package: string } | null;
  no_update: { new_version: string } | null;
};

const SCREEN = `options-general.php?page=${PLUGIN_SLUG}-license`;
const NOTES = '**Faster** galleries.\n\n- A page of what is new (`whats-new.php`).';
const NEW_FILE = 'whats-new.php';

let system: TestSystem;
let store: WordPressStore;
let site: WordPressSite;
let browser: Browser;
let page: Page;
let work: string;
let key: string;

beforeAll(async () => {
  const missing = missingForWordPress();
  if (missing.length > 0) {
    throw new Error(
      `Missing for the WordPress test: ${missing.join(', ')} ` +
        '(apt-get install php-cli php-mysql php-curl mariadb-server wordpress zip chromium).',
    );
  }
  work = await mkdtemp(path.join(tmpdir(), 'wordpress-build-'));
  system = await bootSystem();
  const servicePort = Number(new URL(system.running.gatewayUrl).port);
  [site, browser, store] = await Promise.all([
    WordPressSite.start(servicePort),
    launchBrowser(),
    WordPressStore.open(system),
  ]);
  key = await store.issue('2099-06-30T12:00:00Z');
  const installed = await buildSamplePlugin(work, store.build('1.0.0'));
  await cp(installed, path.join(site.plugins, PLUGIN_SLUG), { recursive: true });
  expect(await site.php('activate-plugin')).toEqual({ error: null });
  await store.publish(
    work,
    store.build('1.1.0', { [NEW_FILE]: '<?php // New in 1.1.0.\n' }),
    NOTES,
  );
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signInToWordPress(page, site, SCREEN);
}, 120_000);

afterAll(async () => {
  await page?.close();
  await browser?.close();
  await site?.stop();
  await system?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Submits the license screen's form whose button says `button`; the notice it shows. */
async function press(button: string): Promise<{ type: string; text: string }> {
  await Promise.all([
    page.waitForURL(`${site.url}/wp-admin/${SCREEN}`),
    page.getByRole('button', { name: button }).click(),
  ]);
  const notice = page.locator('.wrap .notice').first();
  const type = (await notice.getAttribute('class'))?.match(/notice-(\w+)/)?.[1] ?? '';
  return { type, text: (await notice.innerText()).trim() };
}

/** The license screen's status table, by row label. */
async function statusRows(): Promise<Record<string, string>> {
  const rows = await page
    .locator('.licensing-status tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [tr.querySelector('th')?.textContent, tr.querySelector('td')?.textContent]),
    );
  return Object.fromEntries(rows);
}

describe('the sample plugin in a real WordPress', () => {
  test('the license screen: a wrong key is refused in plain words, the right one activates and shows its status, expiry and activations left as text, deactivate frees the site', async () => {
    await page.getByLabel('License key').fill('0000-not-a-key-of-this-store');
    const refused = await press('Activate license');
    expect(refused.type).toBe('error');
    expect(refused.text).toMatch(/^[A-Z][^<>]+$/);
    expect(refused.text).not.toMatch(/LICENSE_INVALID|Exception/);
    await screenshot(page, 'pages/wordpress-license-error');

    await page.getByLabel('License key').fill(key);
    expect(await press('Activate license')).toEqual({
      type: 'success',
      text: 'The license is activated on this site.',
    });
    expect(await statusRows()).toMatchObject({
      Status: 'Active',
      Plan: expect.stringMatching(/^Sites <b>\w+<\/b>$/),
      Expires: 'June 30, 2099',
      'Activations left': '2 of 3',
    });
    expect(await store.activations(key)).toEqual(['127.0.0.1']);
    await screenshot(page, 'pages/wordpress-license-active');

    expect((await press('Deactivate license')).type).toBe('success');
    expect(await store.activations(key)).toEqual([]);
    await expect(page.getByLabel('License key').count()).resolves.toBe(1);
    await screenshot(page, 'pages/wordpress-license-deactivated');

    // Activated again: the updates below come with it.
    await page.getByLabel('License key').fill(key);
    expect((await press('Activate license')).type).toBe('success');
  });

  test('only a user who may manage options opens the screen, and a form without its nonce is refused', async () => {
    const forged = await page.request.post(`${site.url}/wp-admin/${SCREEN}`, {
      form: { licensing_action: 'deactivate' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    expect(await store.activations(key)).toEqual(['127.0.0.1']);

    expect(await site.php('add-user', 'editor', 'editor-password', 'editor')).toEqual({
      error: null,
    });
    const editor = await browser.newPage();
    try {
      await signInToWordPress(editor, site, 'index.php', 'editor', 'editor-password');
      await expect(editor.locator('#adminmenu').innerText()).resolves.not.toContain('License');
      const refused = await editor.goto(`${site.url}/wp-admin/${SCREEN}`);
      expect(refused?.status()).toBe(403);
    } finally {
      await editor.close();
    }
  });

  test('"View details" shows the version and the Markdown changelog as HTML', async () => {
    await page.goto(
      `${site.url}/wp-admin/plugin-install.php?tab=plugin-information&plugin=${PLUGIN_SLUG}&section=changelog`,
    );
    await expect(page.locator('.fyi').innerText()).resolves.toContain('Version: 1.1.0');
    await expect(page.locator('#section-changelog strong').innerText()).resolves.toBe('Faster');
    await screenshot(page, 'pages/wordpress-license-details');
  });

  test("WordPress's update check offers 1.1.0 with its package, and Plugin_Upgrader installs it", async () => {
    const offered = await site.php<Offered>('update-check');
    expect(offered.response).toMatchObject({ new_version: '1.1.0' });
    expect(offered.response?.package).toMatch(
      new RegExp(
        `^${store.storeUrl}${API_BASE}/downloads/${store.productId}/.*[?&]license_key=${key}`,
      ),
    );
    // WordPress asked its own servers too (the must-use plugin answered).
    expect(await site.outsideRequests()).toContainEqual(
      expect.stringMatching(/^https?:\/\/api\.wordpress\.org\/plugins\/update-check\//),
    );

    const upgraded = await site.php('upgrade');
    expect(upgraded).toMatchObject({ result: true, version: '1.1.0' });
    expect(existsSync(path.join(site.plugins, PLUGIN_SLUG, NEW_FILE))).toBe(true);
    // As the update screen does after an upgrade, in a request of its own.
    expect(await site.php('activate-plugin', 'silent')).toEqual({ error: null });
    expect((await site.php<Offered>('update-check')).no_update).toMatchObject({
      new_version: '1.1.0',
    });
  });

  test('once the license is revoked, the daily check sees it and WordPress offers 1.2.0 with no package', async () => {
    await store.publish(work, store.build('1.2.0'), 'Later fixes.');
    await store.revoke(key);
    expect(await site.php('daily-check')).toEqual({ scheduled: true, status: 'revoked' });

    const offered = await site.php<Offered>('update-check');
    expect(offered.response).toMatchObject({ new_version: '1.2.0', package: '' });
    const refused = await site.php<{ result: unknown; messages: string[] }>('upgrade');
    expect(refused).toMatchObject({ version: '1.1.0', active: true });
    expect(refused.result).not.toBe(true);
    // Plugin_Upgrader's own words for a download with no package (its `no_package` string).
    expect(refused.messages).toContain('Update package not available.');

    await page.goto(`${site.url}/wp-admin/${SCREEN}`);
    expect(await statusRows()).toMatchObject({ Status: 'Revoked' });
    await expect(page.locator('.wrap .notice-warning').innerText()).resolves.toMatch(
      /no longer usable \(Revoked\), so updates are not available/,
    );
    await screenshot(page, 'pages/wordpress-license-revoked');
    await page.goto(`${site.url}/wp-admin/plugins.php`);
    const row = page.locator(`tr.plugin-update-tr[data-plugin="${PLUGIN_FILE}"]`);
    await expect(row.innerText()).resolves.toContain('Activate your license key to update.');
    await screenshot(page, 'pages/wordpress-license-plugins');
  });

  test('uninstalling the plugin frees the site on the license and removes what it kept', async () => {
    const spare = await store.issue('2099-06-30T12:00:00Z');
    expect(await site.php('license-activate', spare)).toMatchObject({ type: 'success' });
    expect(await store.activations(spare)).toEqual(['127.0.0.1']);
    expect(await site.php('deactivate-plugin')).toEqual({ active: false });
    expect(await store.activations(spare)).toEqual(['127.0.0.1']);

    expect(await site.php('uninstall-plugin')).toEqual({
      registered: true,
      options_left: [],
      cron_left: false,
    });
    expect(await store.activations(spare)).toEqual([]);
  });

  test("the library left no PHP warning or notice in WordPress's log", async () => {
    const ours = (await site.debugLog())
      .split('\n')
      .filter((line) => line.includes('licensing-client') || line.includes(PLUGIN_SLUG));
    expect(ours).toEqual([]);
  });
});
