import type { Page } from 'playwright-core';
import {
  TOKEN_ITEM,
  system,
  browser,
  product,
  plans,
  issue,
  activate,
  activated,
  openLicense,
  overflows,
  unnamedCells,
  alertText,
} from '../support/admin-console.js';
import { expectClean, openConsole, signIn } from '../support/browser.js';
import { screenshot } from '../support/started-system.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The admin console's sign-in and its pages one by one: a token refused or kept, the jobs and
 * health page, the operations page, and every page's tables and buttons fitting a desktop and a
 * phone screen.
 * The system, the browser and what the tests share are in test/support/admin-console.ts.
 */

describe('the admin console', () => {
  test('a wrong admin token is refused in words; the right one signs in and out, and is kept in sessionStorage, never in a URL', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    const authorizations: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/admin/v1/')) {
        authorizations.push(request.headers().authorization ?? '');
      }
    });
    try {
      const response = await page.goto(`${system.managementUrl}/`);
      expect(response?.headers()['content-security-policy']).toMatch(/form-action 'none'/);
      await screenshot(page, 'console-sign-in');
      await page.getByLabel('Admin token').fill('not-the-admin-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(alertText(page)).resolves.toMatch(/admin token was not accepted/);
      await expect(page.evaluate(`sessionStorage.getItem('${TOKEN_ITEM}')`)).resolves.toBeNull();
      await screenshot(page, 'console-sign-in-refused');

      await signIn(page, system.adminToken, 'Licenses');
      await expect(page.evaluate(`sessionStorage.getItem('${TOKEN_ITEM}')`)).resolves.toBe(
        system.adminToken,
      );
      await page.getByRole('navigation', { name: 'Sections' }).waitFor();
      await screenshot(page, 'console-licenses');
      // The tab stays signed in across a reload, and only the header carries the token.
      await page.reload();
      await page.getByRole('heading', { name: 'Licenses', level: 1 }).waitFor();
      expect(authorizations.length).toBeGreaterThan(2);
      expect(
        authorizations.slice(1).every((value) => value === `Bearer ${system.adminToken}`),
      ).toBe(true);
      expect(authorizations[0]).toBe('Bearer not-the-admin-token');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Admin token').waitFor();
      await expect(page.getByRole('status').first().innerText()).resolves.toMatch(/signed out/);
      await expect(page.evaluate(`sessionStorage.getItem('${TOKEN_ITEM}')`)).resolves.toBeNull();
      await screenshot(page, 'console-signed-out');

      for (const url of [...session.problems.requests, page.url()]) {
        expect(url).not.toContain(system.adminToken);
      }
      await expect(page.context().cookies()).resolves.toEqual([]);
      expectClean(session, [401]);
    } finally {
      await page.close();
    }
  });

  test('jobs run on demand show their result, and health shows every service answering', async () => {
    await issue(plans.single, product.id, { expires_at: '2001-01-01T00:00:00Z' });
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Jobs and health' }).click();
      await page.getByRole('heading', { name: 'Jobs and health', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Run License expiry now' }).click();
      await page.getByText(/^License expiry ran: \d+ licenses? marked expired\.$/).waitFor();
      await page.locator('tr[data-task="license-expiry"]', { hasText: 'on demand' }).waitFor();
      await page.getByRole('button', { name: 'Run Rejected attempt pruning now' }).click();
      await page
        .getByText(/^Rejected attempt pruning ran: \d+ rejected attempts? removed\.$/)
        .waitFor();
      await page
        .locator('tr[data-task="rejected-attempt-pruning"]', { hasText: 'on demand' })
        .waitFor();

      for (const service of ['management', 'license', 'update-catalog', 'download', 'webhooks']) {
        const row = page.locator(`tr[data-service="${service}"]`);
        await expect(row.innerText()).resolves.toMatch(/Answering/);
      }
      await expect(page.getByText('Not answering').count()).resolves.toBe(0);
      await screenshot(page, 'console-jobs-and-health');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('the operations page shows the key that signs and where the key set is published', async () => {
    const published = (await (await fetch(`${system.gatewayUrl}${API_BASE}/keys`)).json()) as {
      keys: Array<{ kid: string }>;
    };
    const kid = published.keys[0]!.kid;
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Jobs and health' }).click();
      const section = page.getByRole('region', { name: 'Signing keys' });
      const facts = section.locator('dl[data-signing-keys]');
      await facts.waitFor();
      const text = await facts.innerText();
      expect(text).toMatch(new RegExp(`Signing now\\s+${kid}`));
      expect(text).toMatch(new RegExp(`Published\\s+${kid}`));
      expect(text).toContain(`${system.gatewayUrl}${API_BASE}/keys`);
      await screenshot(page, 'console-signing-keys');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test.each([
    { width: 1280, height: 900, name: 'desktop' },
    { width: 390, height: 800, name: 'phone' },
  ])(
    'every table fits its box at $width px (under 700 px a card per row, each value named), and every button is on the screen',
    async ({ width, height, name }) => {
      // A list with every column filled: checked licenses, an activation with a long name, a
      // rejected attempt, and served and refused downloads.
      const key = await issue(plans.three);
      await activated(
        key,
        'i-0a1b2c3d4e5f67890.fleet.example',
        'Worker node in eu-west-1, the one with the long name',
      );
      await activated(key, 'shop.example', 'Main shop');
      await activated(key, 'blog.example');
      expect((await activate(key, 'fourth.example', 'Refused')).status).toBe(403);
      await fetch(`${system.gatewayUrl}${API_BASE}/licenses/validate`, {
        method: 'POST',
        body: new URLSearchParams({ license_key: key }),
      });
      await fetch(
        `${system.gatewayUrl}${API_BASE}/downloads/${product.id}?dlid=${key}&identifier=elsewhere.example`,
        {
          headers: { Accept: 'application/json' },
        },
      );
      const session = await openConsole(browser, system, { viewport: { width, height } });
      const { page } = session;
      const cards = width < 700;
      const check = async (page: Page, shot: string) => {
        await expect(overflows(page)).resolves.toEqual([]);
        if (cards) await expect(unnamedCells(page)).resolves.toEqual([]);
        await screenshot(page, `console-${name}-${shot}`);
      };
      try {
        await signIn(page, system.adminToken, 'Licenses');
        await page.locator('main tbody tr').first().waitFor();
        await check(page, 'licenses');
        await openLicense(page, key);
        await page
          .getByRole('region', { name: 'Rejected activation attempts' })
          .locator('tbody tr')
          .waitFor();
        await check(page, 'license');
        // The Remove buttons are in view on every card.
        await expect(
          page.getByRole('button', { name: 'Remove shop.example' }).isVisible(),
        ).resolves.toBe(true);
        await page.getByRole('link', { name: 'Download log' }).click();
        await page.locator('main tbody tr').first().waitFor();
        await check(page, 'download-log');
        await page.getByRole('link', { name: 'Products and plans' }).click();
        await page.locator('main tbody tr').first().waitFor();
        await check(page, 'products-and-plans');
        await page.getByRole('link', { name: 'Versions and files' }).click();
        await page.getByLabel('Product').selectOption({ label: 'Console Plugin' });
        await page
          .getByRole('heading', { name: /Versions and files/ })
          .first()
          .waitFor();
        await check(page, 'versions');
        await page.getByRole('link', { name: 'Jobs and health' }).click();
        await page.locator('tr[data-task="license-expiry"]').waitFor();
        await check(page, 'jobs-and-health');
        await page.getByRole('link', { name: 'Webhooks' }).click();
        await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
        await check(page, 'webhooks');
        // Each refused call above was on purpose: a full license's activate, a download.
        expectClean(session);
      } finally {
        await page.close();
      }
    },
    // Seven pages visited and measured: on a loaded two-core machine this took over 60 s.
    180_000,
  );
});
