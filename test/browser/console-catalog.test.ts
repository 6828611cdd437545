import type { Locator } from 'playwright-core';
import {
  system,
  browser,
  product,
  plans,
  admin,
  issue,
  focusOn,
} from '../support/admin-console.js';
import { expectClean, openConsole, signIn } from '../support/browser.js';
import { screenshot } from '../support/started-system.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The admin console's catalog: products, bundles and plans listed, created and edited, plans
 * named and chosen, a file uploaded and offered by the update check, and refused downloads in
 * the download log.
 * The system, the browser and what the tests share are in test/support/admin-console.ts.
 */

describe('the admin console', () => {
  test('an uploaded file shows its progress and is what the update check offers', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const form = page.getByRole('form', { name: 'New product' });
      await form.getByLabel('Title').fill('Upload Plugin');
      await form.getByRole('button', { name: 'Create product' }).click();
      await page.getByText('Created Upload Plugin.').waitFor();
      const { products } = await admin<{ products: { id: number; title: string }[] }>(
        'GET',
        '/products',
      );
      const uploaded = products.find((p) => p.title === 'Upload Plugin')!;
      await page.getByRole('button', { name: 'Versions and files of Upload Plugin' }).click();
      await page.getByRole('heading', { name: 'Versions and files: Upload Plugin' }).waitFor();
      const offers = page.getByRole('region', { name: 'What the update check offers now' });
      const withoutKey = offers.locator('tbody tr', { hasText: 'Without a key' });
      await expect(withoutKey.innerText()).resolves.toMatch(/Nothing is offered/);

      await page.getByText('New version').click();
      await page.getByLabel('Version', { exact: true }).fill('2.0.0');
      await page.getByRole('button', { name: 'Create version' }).click();
      await page.getByRole('heading', { name: /Version 2\.0\.0/ }).waitFor();

      // A slow uplink, so the progress bar is seen between empty and full.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 1024 * 1024,
      });
      const bytes = Buffer.alloc(2 * 1024 * 1024, 'x');
      // Each field of the upload form is named by its label.
      await expect(page.getByLabel('For', { exact: true }).inputValue()).resolves.toBe('');
      await page.getByLabel('Package file').setInputFiles({
        name: 'upload-plugin-2.0.0.zip',
        mimeType: 'application/zip',
        buffer: bytes,
      });
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const bar = page.getByRole('progressbar', { name: 'Upload of upload-plugin-2.0.0.zip' });
      // Part-way: the bar shows a value between empty and full.
      await page
        .locator('progress:not([value="0"]):not([value="100"])')
        .waitFor({ timeout: 20_000 });
      await screenshot(page, 'console-upload-progress');
      await page
        .getByText('Uploaded upload-plugin-2.0.0.zip (2.0 MB).')
        .waitFor({ timeout: 30_000 });
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      await expect(bar.getAttribute('value')).resolves.toBe('100');

      await withoutKey.filter({ hasText: 'upload-plugin-2.0.0.zip' }).waitFor();
      await expect(withoutKey.innerText()).resolves.toMatch(/2\.0\.0\s+upload-plugin-2\.0\.0\.zip/);
      await screenshot(page, 'console-versions-and-offers');
      const check = await fetch(`${system.gatewayUrl}${API_BASE}/updates/${uploaded.id}`);
      const update = ((await check.json()) as { data: Record<string, unknown> }).data;
      expect(update).toMatchObject({
        update_available: true,
        version: '2.0.0',
        file_size: bytes.length,
      });

      // Restricted to one plan, the file is offered to that plan's keys only.
      await page.getByLabel('Plans of upload-plugin-2.0.0.zip').selectOption({
        label: 'Only Single site (domain, limit 1)',
      });
      await page.getByText('upload-plugin-2.0.0.zip is now for Single site.').waitFor();
      await withoutKey.filter({ hasText: 'Nothing is offered' }).waitFor();
      await expect(
        offers.locator('tbody tr', { hasText: 'A key of Single site' }).innerText(),
      ).resolves.toMatch(/2\.0\.0/);
      await expect(
        offers.locator('tbody tr', { hasText: 'A key of Three sites' }).innerText(),
      ).resolves.toMatch(/Nothing is offered/);
      const after = await fetch(`${system.gatewayUrl}${API_BASE}/updates/${uploaded.id}`);
      await expect(after.json()).resolves.toMatchObject({ data: { update_available: false } });
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test("the version form previews the release notes' Markdown as the feeds render it: bold is bold, raw HTML is text, a javascript: link is no link", async () => {
    const created = await admin<{ id: number }>('POST', '/products', { title: 'Notes Plugin' });
    const notes =
      '- **Bold** fix <script>alert(1)</script> <img src=x onerror=alert(2)>\n' +
      '- [a trap](javascript:alert(3)) and [docs](https://example.com/docs)';
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Versions and files');
      await page.getByLabel('Product', { exact: true }).selectOption({ label: 'Notes Plugin' });
      await page.getByText('New version', { exact: true }).click();
      const preview = page.getByRole('region', { name: 'Release notes preview' });
      await preview.getByText('Nothing to preview yet.').waitFor();
      await page.getByLabel('Release notes', { exact: true }).fill(notes);
      const body = preview.locator('.notes-preview-body');
      await body.locator('strong', { hasText: 'Bold' }).waitFor();
      // Raw HTML is text: no element was made of it, and it reads as written.
      await expect(body.locator('script, img').count()).resolves.toBe(0);
      await expect(body.innerText()).resolves.toContain(
        '<script>alert(1)</script> <img src=x onerror=alert(2)>',
      );
      // Only the safe link is a link.
      await expect(body.locator('a').count()).resolves.toBe(1);
      await expect(body.locator('a').getAttribute('href')).resolves.toBe(
        'https://example.com/docs',
      );
      await expect(body.innerText()).resolves.toContain('[a trap](javascript:alert(3))');
      await screenshot(page, 'console-release-notes-preview');

      // What the preview shows is what WordPress is sent.
      await page.getByLabel('Version', { exact: true }).fill('1.0.0');
      await page.getByRole('button', { name: 'Create version' }).click();
      await page.getByRole('heading', { name: /Version 1\.0\.0/ }).waitFor();
      const { versions } = await admin<{ versions: Array<{ id: number }> }>(
        'GET',
        `/products/${created.id}/versions`,
      );
      const upload = new FormData();
      upload.append('file', new Blob(['the bytes of Notes Plugin 1.0.0']), 'notes-1.0.0.zip');
      const stored = await fetch(
        `${system.managementUrl}/admin/v1/versions/${versions[0]!.id}/files`,
        { method: 'POST', headers: { Authorization: `Bearer ${system.adminToken}` }, body: upload },
      );
      expect(stored.status).toBe(201);
      const feed = await fetch(
        `${system.gatewayUrl}${API_BASE}/updates/${created.id}/wordpress.json`,
      );
      const { changelog } = ((await feed.json()) as { sections: { changelog: string } }).sections;
      const sent = changelog.replace(/^<h4>1\.0\.0<\/h4>/, '').replace(/>\n</g, '><');
      await page.getByLabel('Release notes', { exact: true }).fill(notes);
      // Both as the browser reads them: the preview's elements, and the feed's HTML parsed.
      const shown = await body.evaluate((element) => element.innerHTML);
      const parsed = await page.evaluate(`(() => {
        const template = document.createElement('template');
        template.innerHTML = ${JSON.stringify(sent)};
        return template.innerHTML;
      })()`);
      expect(shown).toBe(parsed);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('a refused download is in the download log, its reason given as a code and in words that tell no key, an unknown key and a revoked license apart', async () => {
    const gated = await admin<{ id: number }>('POST', '/products', { title: 'Gated Plugin' });
    const version = await admin<{ id: number }>('POST', `/products/${gated.id}/versions`, {
      version: '1.0.0',
    });
    const upload = new FormData();
    upload.append('file', new Blob(['the bytes of Gated Plugin 1.0.0']), 'gated-1.0.0.zip');
    const stored = await fetch(`${system.managementUrl}/admin/v1/versions/${version.id}/files`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${system.adminToken}` },
      body: upload,
    });
    expect(stored.status).toBe(201);
    const revoked = await issue(plans.single, gated.id, { status: 'revoked' });
    // Oldest first: an unknown key, a revoked license, no key at all.
    for (const query of ['?dlid=no-such-key', `?dlid=${revoked}`, '']) {
      const refused = await fetch(`${system.gatewayUrl}${API_BASE}/downloads/${gated.id}${query}`, {
        headers: { Accept: 'application/json' },
      });
      expect(refused.status).toBe(403);
      await expect(refused.json()).resolves.toMatchObject({ error: { code: 'LICENSE_INVALID' } });
    }

    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Download log' }).click();
      await page.getByRole('heading', { name: 'Download log', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Refused downloads' }).click();
      await page.getByLabel('Product').selectOption({ label: 'Gated Plugin' });
      await page.getByRole('heading', { name: 'Refused downloads', level: 1 }).waitFor();
      await page.getByText('1–3 of 3 refused downloads').waitFor();
      const reasons = await page.locator('tbody tr .reason').allInnerTexts();
      expect(reasons.map((text) => text.replace(/\s+/g, ' '))).toEqual([
        'LICENSE_INVALID No license key was sent.',
        'LICENSE_INVALID The license is revoked.',
        'LICENSE_INVALID No license has this key.',
      ]);
      await expect(page.locator('tbody tr').first().innerText()).resolves.toMatch(/Gated Plugin/);
      await expect(
        page.getByRole('button', { name: 'Refused downloads' }).getAttribute('aria-pressed'),
      ).resolves.toBe('true');
      await screenshot(page, 'console-refused-downloads');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('products, bundles and plans are listed, created and edited', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const newPlan = page.getByRole('form', { name: 'New plan' });
      await newPlan.getByLabel('Name').fill('Five devices');
      await newPlan.getByLabel('Activation type').selectOption('device');
      await newPlan.getByLabel('Activation limit').fill('5');
      await newPlan.getByRole('button', { name: 'Create plan' }).click();
      await page.getByText('Created Five devices.').waitFor();
      await page.getByRole('cell', { name: 'Five devices', exact: true }).waitFor();

      const newProduct = page.getByRole('form', { name: 'New product' });
      await newProduct.getByLabel('Title').fill('Starter Bundle');
      await newProduct.getByLabel('Console Plugin').check();
      await newProduct.getByRole('button', { name: 'Create product' }).click();
      await page.getByText('Created Starter Bundle.').waitFor();
      const bundleRow = page.locator('tbody tr', { hasText: 'Starter Bundle' });
      await expect(bundleRow.innerText()).resolves.toMatch(/Console Plugin/);

      await page.getByRole('button', { name: 'Edit Console Plugin' }).click();
      const edit = page.getByRole('form', { name: 'Edit Console Plugin' });
      await edit
        .getByLabel('Download API Access')
        .selectOption({ label: 'License key + activated identifier' });
      await edit.getByLabel('Requires License').uncheck();
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved Console Plugin.').waitFor();
      await page
        .locator('tbody tr', { hasText: 'Console Plugin' })
        .filter({ hasText: 'License key + activated identifier' })
        .waitFor();
      const changed = await admin<{ download_access: string; requires_license: boolean }>(
        'GET',
        `/products/${product.id}`,
      );
      expect(changed).toMatchObject({
        download_access: 'activated_identifier',
        requires_license: false,
      });
      await admin('PATCH', `/products/${product.id}`, {
        download_access: 'license_key',
        requires_license: true,
      });
      await screenshot(page, 'console-products-and-plans');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('the plans page creates a plan with a lease and exempt identifiers, and edits one by keyboard; a refused pattern is said beside the form', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    const planRow = () => page.locator('tbody tr', { hasText: 'Staging friendly' });
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const newPlan = page.getByRole('form', { name: 'New plan' });
      // The form says what the patterns are and when licenses take the settings.
      const said = await newPlan.innerText();
      expect(said).toMatch(/\*\.test/);
      expect(said).toMatch(/staging\.\*/);
      expect(said).toMatch(/\*@example\.com/);
      expect(said).toMatch(
        /Licenses take the lease and exempt settings when issued on this plan or moved to it/,
      );
      await expect(newPlan.getByLabel('Exempt activations per license').inputValue()).resolves.toBe(
        '3',
      );
      await newPlan.getByLabel('Name').fill('Staging friendly');
      await newPlan.getByLabel('Activation limit').fill('2');
      await newPlan.getByLabel('Lease (seconds; empty for none)').fill('3600');
      await newPlan
        .getByLabel('Exempt identifiers (one pattern per line)')
        .fill('*.test\nStaging.*\n\nlocalhost');
      await newPlan.getByLabel('Exempt activations per license').fill('2');
      await newPlan.getByRole('button', { name: 'Create plan' }).click();
      await page.getByText('Created Staging friendly.').waitFor();
      await planRow().waitFor();
      const created = await planRow().innerText();
      expect(created).toMatch(/1 hour \(3600 s\)/);
      expect(created).toMatch(/\*\.test\s+staging\.\*\s+localhost\s+up to 2 per license/);
      const { plans: stored } = await admin<{ plans: Array<{ id: number; name: string }> }>(
        'GET',
        '/plans',
      );
      const id = stored.find((plan) => plan.name === 'Staging friendly')!.id;
      await expect(admin('GET', `/plans/${id}`)).resolves.toMatchObject({
        lease_seconds: 3600,
        exempt_identifiers: ['*.test', 'staging.*', 'localhost'],
        exempt_limit: 2,
      });

      // By keyboard: Enter on Edit opens the form with focus in its first field.
      await page.getByRole('button', { name: 'Edit plan Staging friendly' }).focus();
      await page.keyboard.press('Enter');
      const edit = page.getByRole('form', { name: 'Edit plan Staging friendly' });
      await edit.waitFor();
      await expect(edit.innerText()).resolves.toMatch(/when issued on this plan or moved to it/);
      await focusOn(page, "el.name === 'name'");
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'lease_seconds'");
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'exempt_identifiers'");
      await page.keyboard.press('Control+A');
      await page.keyboard.type('sh*p.test');
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'exempt_limit'");
      await page.keyboard.press('Control+A');
      await page.keyboard.type('1');
      // Enter in a field sends the form; the API's refusal names the pattern, beside the form.
      await page.keyboard.press('Enter');
      const refusal = await edit.getByRole('alert').innerText();
      expect(refusal).toMatch(/"sh\*p\.test"/);
      expect(refusal).toMatch(/INVALID_REQUEST/);
      await screenshot(page, 'console-plan-pattern-refused');

      await page.keyboard.press('Shift+Tab');
      await focusOn(page, "el.name === 'exempt_identifiers'");
      await page.keyboard.press('Control+A');
      await page.keyboard.type('*.example.test\nlocalhost');
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'exempt_limit'");
      await page.keyboard.press('Enter');
      await page.getByText('Saved Staging friendly.').waitFor();
      // The form is gone, and focus is back on the button that opened it.
      await edit.waitFor({ state: 'detached' });
      await focusOn(page, "el.getAttribute('aria-label') === 'Edit plan Staging friendly'");
      await planRow().filter({ hasText: 'No lease' }).waitFor();
      await expect(planRow().innerText()).resolves.toMatch(
        /\*\.example\.test\s+localhost\s+up to 1 per license/,
      );
      await expect(admin('GET', `/plans/${id}`)).resolves.toMatchObject({
        lease_seconds: null,
        exempt_identifiers: ['*.example.test', 'localhost'],
        exempt_limit: 1,
      });
      await screenshot(page, 'console-plan-edited');
      expectClean(session, [400]);
    } finally {
      await page.close();
    }
  });

  test('the plan form chooses what happens at expiry, saying what each choice does to a customer, and an edit changes it', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    /** The sentence the strategy's select is described by (its hint, through aria-describedby). */
    const described = async (form: Locator) => {
      const select = form.getByLabel('When a license expires');
      const ids = ((await select.getAttribute('aria-describedby')) ?? '').split(' ');
      const texts = ids
        .filter((id) => id !== '')
        .map((id) => page.locator(`[id="${id}"]`).innerText());
      return (await Promise.all(texts)).join(' ');
    };
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const newPlan = page.getByRole('form', { name: 'New plan' });
      await newPlan.getByLabel('Name').fill('Kept past expiry');
      await newPlan.getByLabel('Activation limit').fill('2');
      await expect(described(newPlan)).resolves.toMatch(/no longer valid/);
      // By keyboard: the strategy chosen in its select, the grace days typed.
      await newPlan.getByLabel('When a license expires').focus();
      await page.keyboard.press('ArrowDown');
      await expect(newPlan.getByLabel('When a license expires').inputValue()).resolves.toBe(
        'maintain',
      );
      await expect(described(newPlan)).resolves.toBe(
        'Once expired, the software keeps working and can still be activated, but it gets only ' +
          'the versions released up to the expiry date; newer ones need a renewal.',
      );
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'grace_days'");
      await page.keyboard.press('Control+A');
      await page.keyboard.type('7');
      await newPlan.getByRole('button', { name: 'Create plan' }).click();
      await page.getByText('Created Kept past expiry.').waitFor();
      const { plans: stored } = await admin<{ plans: Array<{ id: number; name: string }> }>(
        'GET',
        '/plans',
      );
      const id = stored.find((plan) => plan.name === 'Kept past expiry')!.id;
      await expect(admin('GET', `/plans/${id}`)).resolves.toMatchObject({
        expiry_strategy: 'maintain',
        grace_days: 7,
        renewal_basis: 'from_expiry',
      });
      // The form is back to the spec's terms for the next plan.
      await expect(newPlan.getByLabel('When a license expires').inputValue()).resolves.toBe(
        'revoke',
      );

      await page.getByRole('button', { name: 'Edit plan Kept past expiry' }).click();
      const edit = page.getByRole('form', { name: 'Edit plan Kept past expiry' });
      await expect(edit.getByLabel('When a license expires').inputValue()).resolves.toBe(
        'maintain',
      );
      await expect(edit.getByLabel('Grace days').inputValue()).resolves.toBe('7');
      await edit.getByLabel('When a license expires').selectOption('restrict');
      await expect(described(edit)).resolves.toMatch(/new activations are refused/);
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved Kept past expiry.').waitFor();
      await expect(admin('GET', `/plans/${id}`)).resolves.toMatchObject({
        expiry_strategy: 'restrict',
        grace_days: 7,
      });
      await screenshot(page, 'console-plan-expiry');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('a plan named as another, in any case, is refused in words; plans are chosen by name, type and limit', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      // Every chooser of a plan says its type and limit (once the plans have arrived).
      const planOptions = page
        .getByRole('search')
        .getByLabel('Plan', { exact: true })
        .locator('option');
      await planOptions.nth(1).waitFor({ state: 'attached' });
      await expect(planOptions.allInnerTexts()).resolves.toEqual(
        expect.arrayContaining(['Single site (domain, limit 1)', 'Devices (device, limit 5)']),
      );
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const newPlan = page.getByRole('form', { name: 'New plan' });
      await newPlan.getByLabel('Name').fill('  single   SITE ');
      await newPlan.getByLabel('Activation limit').fill('1');
      await newPlan.getByRole('button', { name: 'Create plan' }).click();
      await expect(newPlan.getByRole('alert').innerText()).resolves.toBe(
        `Plan ${plans.single} is already named "Single site". Plan names are compared without ` +
          'letter case and extra spaces: choose another name. (ALREADY_EXISTS)',
      );
      const { plans: stored } = await admin<{ plans: Array<{ name: string }> }>('GET', '/plans');
      expect(stored.filter((plan) => /^single site$/i.test(plan.name))).toHaveLength(1);
      await screenshot(page, 'console-plan-name-taken');
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });
});
