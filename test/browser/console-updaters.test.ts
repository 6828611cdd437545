import type { Locator, Page } from 'playwright-core';
import { system, browser, admin, focusOn, MARKUP } from '../support/admin-console.js';
import { expectClean, openConsole, signIn } from '../support/browser.js';
import { screenshot } from '../support/started-system.js';

/**
 * The admin console's updater controls (docs/updaters.md): a product's Updaters panel with each
 * feed and its snippet, a version's channel and staged rollout, the product's Joomla settings,
 * and a package file's platform and processor.
 * The system, the browser and what the tests share are in test/support/admin-console.ts.
 */

interface Version {
  id: number;
  version: string;
  channel: string;
  rollout_percent: number;
  published: boolean;
  files: Array<{
    filename: string;
    platform: string | null;
    arch: string | null;
    signature: string | null;
  }>;
}

const versionsOf = async (productId: number) =>
  (await admin<{ versions: Version[] }>('GET', `/products/${productId}/versions`)).versions;

/** Signs in and opens the versions of the product titled `title`. */
async function openVersions(page: Page, title: string): Promise<void> {
  await signIn(page, system.adminToken, 'Versions and files');
  await page.getByLabel('Product', { exact: true }).selectOption({ label: title });
  await page.getByRole('heading', { name: `Versions and files: ${title}`, level: 1 }).waitFor();
}

const card = (page: Page, version: string): Locator =>
  page.getByRole('article', { name: new RegExp(`^Version ${version.replace(/\./g, '\\.')} `) });

describe('the admin console', () => {
  test("a product's Updaters panel gives each feed's URL and snippet, by keyboard, with the Joomla identifier note where downloads need an identifier", async () => {
    const title = `Desk ${MARKUP}`;
    const gated = await admin<{ id: number }>('POST', '/products', {
      title,
      download_access: 'activated_identifier',
      wordpress: { slug: 'desk-app' },
    });
    const plain = await admin<{ id: number }>('POST', '/products', { title: 'Plain Feeds' });
    const keys = await admin<{ key_set_url: string }>('GET', '/signing-keys');
    const base = keys.key_set_url.replace(/\/keys$/, '');
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await openVersions(page, title);
      const panel = page.locator('details', {
        has: page.locator('summary', { hasText: 'Updaters' }),
      });
      // By keyboard: Enter on the summary opens the panel; Tab reaches the first snippet.
      await panel.locator('summary').focus();
      await page.keyboard.press('Enter');
      await expect(panel.getAttribute('open')).resolves.toBe('');
      await panel.locator('[data-feed]').first().waitFor();
      const feeds = {
        Joomla: `${base}/updates/${gated.id}/joomla.xml`,
        'WordPress (plugin-update-checker)': `${base}/updates/${gated.id}/wordpress.json`,
        'Electron (electron-builder)': `${base}/updates/${gated.id}/electron`,
        'Sparkle (macOS)': `${base}/updates/${gated.id}/appcast.xml`,
        Tauri: `${base}/updates/${gated.id}/tauri/{{target}}/{{arch}}/{{current_version}}`,
      };
      await expect(panel.locator('[data-feed]').count()).resolves.toBe(5);
      for (const [updater, url] of Object.entries(feeds)) {
        const feed = page.getByRole('region', { name: `${updater} feed` });
        await expect(feed.locator('[data-feed-url]').innerText()).resolves.toBe(url);
        await expect(feed.getByLabel(`${updater} snippet`).innerText()).resolves.toContain(url);
      }
      const joomla = await page.getByLabel('Joomla snippet').innerText();
      expect(joomla).toContain('<server type="extension" priority="1" name="Desk &lt;img');
      expect(joomla).toContain('<dlid prefix="dlid=" suffix=""/>');
      await expect(
        page.getByLabel('WordPress (plugin-update-checker) snippet').innerText(),
      ).resolves.toContain("'desk-app'");
      // The product's title is text: no element was made of it.
      await expect(page.locator('main img').count()).resolves.toBe(0);
      await page.keyboard.press('Tab');
      await focusOn(page, "el.getAttribute('aria-label') === 'Joomla snippet'");
      await expect(panel.locator('[data-joomla-identifier]').innerText()).resolves.toMatch(
        /Joomla never sends one.*onInstallerBeforePackageDownload/s,
      );
      await screenshot(page, 'console-updaters-panel');

      // A product whose downloads need only the key: no note, and its own id in every URL.
      await page.getByLabel('Product', { exact: true }).selectOption({ label: 'Plain Feeds' });
      await page.getByRole('heading', { name: 'Versions and files: Plain Feeds' }).waitFor();
      await panel.locator('summary').click();
      await panel.locator('[data-feed]').first().waitFor();
      const urls = await panel.locator('[data-feed-url]').allInnerTexts();
      expect(urls).toHaveLength(5);
      expect(urls.every((url) => url.startsWith(`${base}/updates/${plain.id}/`))).toBe(true);
      await expect(panel.locator('[data-joomla-identifier]').count()).resolves.toBe(0);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('the Updaters panel warns that WordPress will not download from a PUBLIC_URL on port 3000, and says nothing on 443', async () => {
    await admin('POST', '/products', { title: 'Port Plugin' });
    for (const [origin, warned] of [
      ['http://licensing.example:3000', true],
      ['https://licensing.example:443', false],
    ] as const) {
      const session = await openConsole(browser, system);
      const { page } = session;
      try {
        // The management API answers the key set's address with PUBLIC_URL: here another one.
        await page.route('**/admin/v1/signing-keys', async (route) => {
          const response = await route.fetch();
          const answer = (await response.json()) as { data: { key_set_url: string } };
          const { pathname } = new URL(answer.data.key_set_url, 'http://any.example');
          answer.data.key_set_url = `${origin}${pathname}`;
          await route.fulfill({ response, json: answer });
        });
        await openVersions(page, 'Port Plugin');
        const panel = page.locator('details', {
          has: page.locator('summary', { hasText: 'Updaters' }),
        });
        await panel.locator('summary').click();
        await panel.locator('[data-feed]').first().waitFor();
        await expect(panel.locator('[data-feed-url]').first().innerText()).resolves.toMatch(
          new RegExp(`^${origin.replace(/[.:/]/g, '\\$&')}`),
        );
        const warning = panel.locator('[data-wordpress-port]');
        if (warned) {
          await expect(warning.innerText()).resolves.toMatch(
            /port 3000: WordPress downloads packages only from ports 80, 443 and 8080.*A valid URL was not provided.*http_allowed_safe_ports/s,
          );
          await screenshot(page, 'console-updaters-wordpress-port');
        } else {
          await expect(warning.count()).resolves.toBe(0);
        }
        expectClean(session);
      } finally {
        await page.close();
      }
    }
  });

  test('a new version takes its channel and rollout; its rollout is raised by keyboard, kept after a reload, paused at 0, and the version rolled back', async () => {
    const product = await admin<{ id: number }>('POST', '/products', { title: 'Rollout App' });
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await openVersions(page, 'Rollout App');
      await page.getByText('New version', { exact: true }).click();
      const form = page.locator('details', { hasText: 'Create version' });
      await expect(form.getByLabel('Channel').inputValue()).resolves.toBe('stable');
      await expect(form.getByLabel('Rollout (%)').inputValue()).resolves.toBe('100');
      await form.getByLabel('Version', { exact: true }).fill('3.0.0');
      await form.getByLabel('Channel').selectOption('beta');
      await form.getByLabel('Rollout (%)').fill('25');
      await form.getByRole('button', { name: 'Create version' }).click();
      const version = card(page, '3.0.0');
      await version.waitFor();
      await expect(version.locator('[data-channel]').innerText()).resolves.toBe('beta');
      await expect(version.locator('[data-rollout]').innerText()).resolves.toBe(
        '25 % (25 % of licensed callers)',
      );
      expect(await versionsOf(product.id)).toEqual([
        expect.objectContaining({ version: '3.0.0', channel: 'beta', rollout_percent: 25 }),
      ]);

      // Raised by keyboard: the field, a new share, Enter.
      const rollout = version.getByRole('form', { name: 'Rollout of version 3.0.0' });
      await rollout.getByLabel('Rollout (%)').focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('60');
      await page.keyboard.press('Enter');
      await version.getByText('Version 3.0.0 now reaches 60 % of licensed callers.').waitFor();
      await version.locator('[data-rollout]', { hasText: '60 %' }).waitFor();
      await page.reload();
      await card(page, '3.0.0').locator('[data-rollout]', { hasText: '60 % (60 %' }).waitFor();
      expect((await versionsOf(product.id))[0]).toMatchObject({ rollout_percent: 60 });
      await expect(card(page, '3.0.0').getByLabel('Rollout (%)').inputValue()).resolves.toBe('60');

      // Pausing sets 0: nobody new gets it.
      await card(page, '3.0.0').getByRole('button', { name: 'Pause rollout' }).click();
      await card(page, '3.0.0').getByText('Version 3.0.0 now reaches paused: nobody.').waitFor();
      await card(page, '3.0.0')
        .locator('[data-rollout]', { hasText: '0 % (paused: nobody)' })
        .waitFor();
      await expect(
        card(page, '3.0.0').getByRole('button', { name: 'Pause rollout' }).isDisabled(),
      ).resolves.toBe(true);
      expect((await versionsOf(product.id))[0]).toMatchObject({ rollout_percent: 0 });

      // Rolling back unpublishes it.
      await card(page, '3.0.0').getByRole('button', { name: 'Unpublish (roll back)' }).click();
      await card(page, '3.0.0').getByText('Not published', { exact: true }).waitFor();
      expect((await versionsOf(product.id))[0]).toMatchObject({ published: false });
      await screenshot(page, 'console-version-rollout');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test("the product form saves the Joomla settings; a target platform with '/' is refused in the server's words and changes nothing", async () => {
    const product = await admin<{ id: number }>('POST', '/products', { title: 'Joomla Gallery' });
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Products and plans');
      await page.getByRole('button', { name: 'Edit Joomla Gallery' }).click();
      const edit = page.getByRole('form', { name: 'Edit Joomla Gallery' });
      await edit.getByLabel('Serve a Joomla update stream').check();
      await edit.getByLabel('Element').fill('gallery');
      await edit.getByLabel('Extension type').selectOption('plugin');
      await edit.getByLabel('Plugin group').fill('content');
      // Nothing declared: the stream names Joomla 5 alone, which the field's hint says.
      await expect(edit.getByLabel('Joomla versions').inputValue()).resolves.toBe('');
      await expect(edit.getByText(/Empty: 5\\., Joomla 5 only\./).count()).resolves.toBe(1);
      await edit.getByLabel('Minimum PHP').fill('8.1');
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved Joomla Gallery.').waitFor();
      const saved = {
        element: 'gallery',
        type: 'plugin',
        client: 'site',
        folder: 'content',
        target_platform: null,
        php_minimum: '8.1',
      };
      await expect(admin('GET', `/products/${product.id}`)).resolves.toMatchObject({
        joomla: saved,
      });

      // After a reload the form shows what is stored; a '/' ends Joomla's pattern, so the server
      // refuses it.
      await page.reload();
      await page.getByRole('button', { name: 'Edit Joomla Gallery' }).click();
      await expect(edit.getByLabel('Element').inputValue()).resolves.toBe('gallery');
      await edit.getByLabel('Joomla versions').fill('4/5');
      await edit.getByLabel('Joomla versions').press('Enter');
      const refusal = await edit.getByRole('alert').innerText();
      expect(refusal).toMatch(/must not contain "\/"/);
      expect(refusal).toMatch(/INVALID_REQUEST/);
      await screenshot(page, 'console-joomla-settings-refused');
      await expect(admin('GET', `/products/${product.id}`)).resolves.toMatchObject({
        joomla: saved,
      });
      expectClean(session, [400]);
    } finally {
      await page.close();
    }
  });

  test('an upload with a platform, a minimum macOS, a processor and a signature shows them on the file', async () => {
    const product = await admin<{ id: number }>('POST', '/products', { title: 'Desktop App' });
    await admin('POST', `/products/${product.id}/versions`, { version: '1.2.0' });
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await openVersions(page, 'Desktop App');
      const upload = page.getByRole('form', { name: 'Upload a file to version 1.2.0' });
      await upload.getByLabel('Package file').setInputFiles({
        name: 'desktop-app-1.2.0-arm64.tar.gz',
        mimeType: 'application/gzip',
        buffer: Buffer.from('the bytes of Desktop App 1.2.0'),
      });
      // Only a macOS file has a minimum macOS: the field shows once macOS is chosen.
      await expect(upload.getByLabel('Minimum macOS').count()).resolves.toBe(0);
      await upload.getByLabel('Platform').selectOption({ label: 'macOS' });
      await upload.getByLabel('Minimum macOS').fill('12.0');
      await upload.getByLabel('Processor').selectOption({ label: 'aarch64 (ARM 64-bit)' });
      await upload.getByLabel('Updater signature').fill('c2lnbmF0dXJlIG9mIDEuMi4w');
      await upload.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByText('Uploaded desktop-app-1.2.0-arm64.tar.gz').waitFor();
      const row = card(page, '1.2.0').locator('tbody tr', {
        hasText: 'desktop-app-1.2.0-arm64.tar.gz',
      });
      await expect(row.locator('[data-target]').innerText()).resolves.toBe(
        'macOS 12.0 or later, aarch64 (ARM 64-bit); signed',
      );
      // The form is ready for the next file: any platform, any processor.
      await expect(upload.getByLabel('Platform').inputValue()).resolves.toBe('');
      await expect(upload.getByLabel('Minimum macOS').count()).resolves.toBe(0);
      expect((await versionsOf(product.id))[0]!.files).toEqual([
        expect.objectContaining({
          platform: 'darwin',
          arch: 'aarch64',
          signature: 'c2lnbmF0dXJlIG9mIDEuMi4w',
          minimum_system_version: '12.0',
        }),
      ]);
      await screenshot(page, 'console-file-target');
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});
