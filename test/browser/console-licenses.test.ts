import {
  MARKUP,
  system,
  browser,
  product,
  plans,
  admin,
  issue,
  activate,
  activated,
  activatedUntil,
  waitPast,
  openLicense,
  alertText,
} from '../support/admin-console.js';
import { expectClean, openConsole, signIn } from '../support/browser.js';
import { screenshot } from '../support/started-system.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The admin console's licenses: a license found by an identifier and opened, its activations
 * added, removed, leased, lapsed, exempt and paged through, the last license file issued, the
 * rejected attempts, and values holding markup shown as text.
 * The system, the browser and what the tests share are in test/support/admin-console.ts.
 */

describe('the admin console', () => {
  test('a license is found by an identifier spelled differently (https://www.Shop.example/cart finds shop.example), and opening it keeps the key out of the URL', async () => {
    const key = await issue(plans.single);
    await activated(key, 'shop.example', 'Shop');
    await activated(await issue(plans.single), 'other-shop.example');
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByLabel('Key prefix or identifier').fill('https://www.Shop.example/cart');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('1–1 of 1 licenses').waitFor();
      const keys = await page.locator('tbody tr td:nth-child(2)').allInnerTexts();
      expect(keys).toEqual([key]);
      await screenshot(page, 'console-license-search');

      await page.getByRole('button', { name: `Open license ${key}` }).click();
      await page.getByRole('heading', { name: /^Activations/ }).waitFor();
      const facts = await page.locator('dl.facts').innerText();
      expect(facts).toContain(key);
      expect(facts).toMatch(/Console Plugin/);
      expect(facts).toMatch(/Last check IP/);
      expect(facts).toMatch(/Check count/);
      expect(facts).toMatch(/Lease\s+No lease: activations never lapse/);
      expect(facts).toMatch(/Exempt identifiers\s+None/);
      expect(page.url()).toBe(`${system.managementUrl}/#license`);
      await screenshot(page, 'console-license-detail');

      // Back returns to the search as it was; the address never named the key.
      await page.goBack();
      await page.getByRole('button', { name: `Open license ${key}` }).waitFor();
      expect(page.url()).toBe(`${system.managementUrl}/#licenses`);
      const history = await page.evaluate('JSON.stringify(history.state)');
      expect(history).not.toContain(key);
      await expect(page.title()).resolves.not.toContain(key);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('an activation is added (normalised as the API does) and removed after a confirmation that says it cannot be undone', async () => {
    const key = await issue(plans.three);
    await activated(key, 'kept.example');
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      // No license file issued for it yet: said so in the activation's row.
      const kept = page.locator('tbody tr', { hasText: 'kept.example' });
      await expect(kept.innerText()).resolves.toMatch(/none issued/);
      await page.getByLabel('Identifier').fill('https://www.Added.example:8443/staging');
      await page.getByLabel('Name', { exact: true }).fill('Staging');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByText('Added added.example.').waitFor();
      const row = page.locator('tbody tr', { hasText: 'added.example' });
      await expect(row.innerText()).resolves.toMatch(/Staging/);
      await expect(row.innerText()).resolves.toMatch(/added in admin/);
      const afterAdd = await admin<{ activations: { identifier: string; ip: string }[] }>(
        'GET',
        `/licenses/${key}`,
      );
      expect(afterAdd.activations).toContainEqual(
        expect.objectContaining({ identifier: 'added.example', ip: '' }),
      );

      // A refusal of Add is said in words.
      await page.getByLabel('Identifier').fill('kept.example');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await expect(alertText(page)).resolves.toMatch(/already activated/);

      // Escape cancels the confirmation; nothing is removed.
      await page.getByRole('button', { name: 'Remove added.example' }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove this activation?' });
      await dialog.waitFor();
      await expect(dialog.innerText()).resolves.toMatch(/This cannot be undone\./);
      await expect(dialog.innerText()).resolves.toMatch(/added\.example \(Staging\)/);
      await screenshot(page, 'console-remove-confirmation');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await expect(row.count()).resolves.toBe(1);

      // By keyboard: focus starts on Cancel; Tab reaches the removal, Enter confirms it.
      await page.getByRole('button', { name: 'Remove added.example' }).click();
      await dialog.waitFor();
      await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Cancel');
      await page.keyboard.press('Tab');
      await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe(
        'Remove activation',
      );
      await page.keyboard.press('Enter');
      await page.getByText('Removed added.example; its slot is free.').waitFor();
      await expect(row.count()).resolves.toBe(0);
      const afterRemove = await admin<{ activations: { identifier: string }[] }>(
        'GET',
        `/licenses/${key}`,
      );
      expect(afterRemove.activations.map((a) => a.identifier)).toEqual(['kept.example']);
      await screenshot(page, 'console-activation-removed');
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });

  test('a leased license says when each activation lapses; a lapsed one is marked "lapsed, not counted", an exempt one "exempt (staging, not counted)"', async () => {
    const shortLease = await admin<{ id: number }>('POST', '/plans', {
      name: 'One-second lease',
      activation_type: 'domain',
      activation_limit: 1,
      lease_seconds: 1,
      exempt_identifiers: ['staging.*'],
      exempt_limit: 2,
    });
    const hourLease = await admin<{ id: number }>('POST', '/plans', {
      name: 'Hour lease',
      activation_type: 'domain',
      activation_limit: 2,
      lease_seconds: 3600,
    });
    const lapsing = await issue(shortLease.id);
    // A limit of 1: the staging site is let in beside the live one because it is exempt.
    const ends = [
      await activatedUntil(lapsing, 'live.example'),
      await activatedUntil(lapsing, 'staging.shop.example'),
    ];
    const kept = await issue(hourLease.id);
    const keptUntil = await activatedUntil(kept, 'leased.example');
    for (const end of ends) await waitPast(end!);
    // Nothing has used the license since: the lapsed activations are still stored.
    const stored = await admin<{ activations: { identifier: string; exempt: boolean }[] }>(
      'GET',
      `/licenses/${lapsing}`,
    );
    expect(stored.activations).toEqual([
      expect.objectContaining({ identifier: 'live.example', exempt: false }),
      expect.objectContaining({ identifier: 'staging.shop.example', exempt: true }),
    ]);

    const session = await openConsole(browser, system);
    const { page } = session;
    const facts = () => page.locator('dl.facts').innerText();
    const row = (identifier: string) =>
      page
        .getByRole('region', { name: /^Activations/ })
        .locator('tbody tr', { hasText: identifier });
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, kept);
      await expect(facts()).resolves.toMatch(
        /Lease\s+Activations lapse after 1 hour \(3600 s\) unless renewed/,
      );
      await row('leased.example').locator(`time[datetime="${keptUntil}"]`).waitFor();
      const running = await row('leased.example').innerText();
      expect(running).toMatch(/renews while in use; lapses at/);
      expect(running).not.toMatch(/lapsed|exempt/);

      await page.getByRole('button', { name: 'Back to licenses' }).click();
      await openLicense(page, lapsing);
      const text = await facts();
      expect(text).toMatch(/Lease\s+Activations lapse after 1 second unless renewed/);
      // The license keeps them until its next use, and its counts say they count for nothing.
      expect(text).toMatch(/Activations used\s+1 of 1 \(1 lapsed: not counted/);
      expect(text).toMatch(/Exempt activations\s+1 of 2 exempt slots used \(1 lapsed: not counted/);
      expect(text).toMatch(/Exempt identifiers\s+staging\.\*/);
      const live = await row('live.example').innerText();
      expect(live).toMatch(/lapsed, not counted/);
      expect(live).not.toMatch(/exempt|renews while in use/);
      const staging = await row('staging.shop.example').innerText();
      expect(staging).toMatch(/staging\.shop\.example\s+exempt \(staging, not counted\)/);
      await screenshot(page, 'console-lapsed-and-exempt');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('a license with more activations than its detail holds pages through them all, and finds one by identifier', async () => {
    const fleet = await admin<{ id: number }>('POST', '/plans', {
      name: 'Fleet',
      activation_type: 'instance',
      activation_limit: 0,
    });
    const key = await issue(fleet.id);
    const node = (n: number) => `node-${String(n).padStart(3, '0')}`;
    for (let n = 1; n <= 102; n += 1) {
      await admin('POST', `/licenses/${key}/activations`, { identifier: node(n) });
    }
    const session = await openConsole(browser, system);
    const { page } = session;
    const activations = page.getByRole('region', { name: /^Activations/ });
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      await activations.getByText('1–100 of 102 activations (page 1 of 2)').waitFor();
      await expect(activations.locator('tbody tr').count()).resolves.toBe(100);
      await expect(activations.locator('tbody tr', { hasText: node(101) }).count()).resolves.toBe(
        0,
      );
      await page
        .getByRole('navigation', { name: 'Pages of activations' })
        .getByRole('button', { name: 'Next' })
        .click();
      await activations.getByText('101–102 of 102 activations (page 2 of 2)').waitFor();
      await expect(activations.locator('tbody tr').allInnerTexts()).resolves.toEqual([
        expect.stringContaining(node(101)),
        expect.stringContaining(node(102)),
      ]);

      // Found in another spelling, as the API normalises it; removed from the page it is on.
      await page.getByLabel('Find an activation by identifier').fill('  node-050 ');
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await activations.getByText('1–1 of 1 activations (page 1 of 1)').waitFor();
      await expect(activations.locator('tbody tr').allInnerTexts()).resolves.toEqual([
        expect.stringContaining(node(50)),
      ]);
      await screenshot(page, 'console-activation-pages');
      await page.getByRole('button', { name: `Remove ${node(50)}` }).click();
      await page.getByRole('button', { name: 'Remove activation' }).click();
      await page.getByText(`Removed ${node(50)}; its slot is free.`).waitFor();
      await activations.getByText('No activation of this identifier.').waitFor();
      await page.getByRole('button', { name: 'Show all', exact: true }).click();
      await activations.getByText('1–100 of 101 activations (page 1 of 2)').waitFor();
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('the last license file issued for an activation is shown in its row', async () => {
    const key = await issue(plans.three);
    await activated(key, 'offline.example');
    await activated(key, 'online.example');
    const checkout = await fetch(`${system.gatewayUrl}${API_BASE}/licenses/checkout`, {
      method: 'POST',
      body: new URLSearchParams({
        license_key: key,
        identifier: 'offline.example',
        product_id: String(product.id),
      }),
    });
    const issued = ((await checkout.json()) as { data: { issued_at: string } }).data;
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      const offline = page.locator('tbody tr', { hasText: 'offline.example' });
      await offline.locator(`time[datetime="${issued.issued_at}"]`).waitFor();
      const online = page.locator('tbody tr', { hasText: 'online.example' });
      await expect(online.innerText()).resolves.toMatch(/none issued/);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('a refused activation through the public API appears as a rejected attempt with the name sent, why it was refused, its tries and last try; a refused Add here too', async () => {
    const key = await issue(plans.single);
    await activated(key, 'first.example');
    for (let i = 0; i < 2; i += 1) {
      const refused = await activate(key, 'https://second.example/', 'Second shop');
      expect(refused.status).toBe(403);
    }
    const session = await openConsole(browser, system);
    const { page } = session;
    const section = page.getByRole('region', { name: 'Rejected activation attempts' });
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      const row = section.locator('tbody tr', { hasText: 'second.example' });
      await row.waitFor();
      await expect(row.locator('td').allInnerTexts()).resolves.toEqual([
        'second.example',
        'Second shop',
        'Full: every activation slot was in use',
        '2',
        expect.any(String),
      ]);
      await expect(row.locator('time').getAttribute('title')).resolves.toMatch(/GMT$/);
      // No spec section numbers in what the page says.
      await expect(page.locator('main').innerText()).resolves.not.toMatch(/spec \d/i);

      // An Add refused on the full license is recorded as the public call's refusal is.
      await page.getByLabel('Identifier').fill('third.example');
      await page.getByLabel('Name', { exact: true }).fill('Third shop');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await expect(alertText(page)).resolves.toMatch(/1 of 1 activations are in use/);
      await page.getByRole('button', { name: 'Refresh' }).click();
      const added = section.locator('tbody tr', { hasText: 'third.example' });
      await added.waitFor();
      await expect(added.locator('td').allInnerTexts()).resolves.toEqual([
        'third.example',
        'Third shop',
        'Full: every activation slot was in use (an Add in this console)',
        '1',
        expect.any(String),
      ]);
      await screenshot(page, 'console-rejected-attempts');
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });

  test('an identifier, an activation name and a product title holding markup are shown as inert text', async () => {
    const marked = await admin<{ id: number }>('POST', '/products', { title: MARKUP });
    const key = await issue(plans.devices, marked.id);
    await activated(key, MARKUP, MARKUP);
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      const row = page.locator('tbody tr', { hasText: MARKUP }).first();
      const cells = await row.locator('td').allInnerTexts();
      expect(cells[0]).toBe(MARKUP);
      expect(cells[1]).toBe(MARKUP);
      await expect(page.locator('dl.facts').innerText()).resolves.toContain(MARKUP);
      await page.getByRole('button', { name: `Remove ${MARKUP}` }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog.innerText()).resolves.toContain(MARKUP);
      await screenshot(page, 'console-markup-inert');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('link', { name: 'Products and plans' }).click();
      await page.getByRole('cell', { name: MARKUP, exact: true }).first().waitFor();
      await expect(page.locator('img').count()).resolves.toBe(0);
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});
