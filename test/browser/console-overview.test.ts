import type { Browser, Page } from 'playwright-core';
import {
  expectClean,
  launchBrowser,
  openConsole,
  pageWidth,
  signIn,
  type Session,
} from '../support/browser.js';
import {
  adminCall,
  screenshot,
  startLikeNpmStart,
  type StartedSystem,
} from '../support/started-system.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The console's overview, the first page after sign-in, in a real browser on the system as
 * `npm start` starts it: the figures of now and today, charts drawn on canvases by the bundled
 * chart library under the strict Content-Security-Policy, the same numbers as tables behind a
 * toggle usable by keyboard, a product filter and the 30 or 90 days switch.
 */

let system: StartedSystem;
let browser: Browser;
let plugin: { id: number; title: string };
let theme: { id: number; title: string };

const admin = <T>(method: string, path: string, body?: object) =>
  adminCall<T>(system, method, path, body);

/** A public call of client software (form fields), as the gateway answers it. */
async function publicCall(operation: string, fields: Record<string, string>): Promise<number> {
  const response = await fetch(`${system.gatewayUrl}${API_BASE}/licenses/${operation}`, {
    method: 'POST',
    body: new URLSearchParams(fields),
  });
  await response.arrayBuffer();
  return response.status;
}

async function download(productId: number, query: string): Promise<number> {
  const response = await fetch(`${system.gatewayUrl}${API_BASE}/downloads/${productId}?${query}`, {
    headers: { Accept: 'application/json' },
  });
  await response.arrayBuffer();
  return response.status;
}

/** A version of `productId` with a package file, through the management API. */
async function release(productId: number): Promise<void> {
  const version = await admin<{ id: number }>('POST', `/products/${productId}/versions`, {
    version: '1.0.0',
  });
  const upload = new FormData();
  upload.append('file', new Blob(['the bytes']), 'package-1.0.0.zip');
  const stored = await fetch(`${system.managementUrl}/admin/v1/versions/${version.id}/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${system.adminToken}` },
    body: upload,
  });
  if (stored.status !== 201) throw new Error(`upload: ${await stored.text()}`);
}

beforeAll(async () => {
  [system, browser] = await Promise.all([startLikeNpmStart(), launchBrowser()]);
  plugin = await admin('POST', '/products', { title: 'Overview Plugin' });
  theme = await admin('POST', '/products', { title: 'Overview Theme' });
  const plan = await admin<{ id: number }>('POST', '/plans', {
    name: 'One site',
    activation_type: 'domain',
    activation_limit: 1,
  });
  const soon = new Date(Date.now() + 7 * 24 * 60 * 60 * 1000).toISOString();
  const { license_key: key } = await admin<{ license_key: string }>('POST', '/licenses', {
    product_id: plugin.id,
    plan_id: plan.id,
    expires_at: soon,
  });
  await admin('POST', '/licenses', { product_id: theme.id, plan_id: plan.id });
  await release(plugin.id);
  // The plugin's day: an activation, one refused (the license is full), two validations, two
  // downloads served and one refused.
  expect(await publicCall('activate', { license_key: key, identifier: 'shop.example' })).toBe(200);
  expect(await publicCall('activate', { license_key: key, identifier: 'other.example' })).toBe(403);
  expect(await publicCall('validate', { license_key: key })).toBe(200);
  expect(await publicCall('validate', { license_key: key, identifier: 'shop.example' })).toBe(200);
  expect(await download(plugin.id, `dlid=${key}`)).toBe(200);
  expect(await download(plugin.id, `dlid=${key}`)).toBe(200);
  expect(await download(plugin.id, 'dlid=no-such-key')).toBe(403);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

/** A fresh tab, signed in: the overview is the page it lands on. */
async function signedIn(viewport: { width: number; height: number }): Promise<Session> {
  const session = await openConsole(browser, system, { viewport });
  await signIn(session.page, system.adminToken);
  await session.page.locator('dl.figures').waitFor();
  return session;
}

/** The figures at the top, by label. */
async function figures(page: Page): Promise<Record<string, string>> {
  const cards = await page.locator('dl.figures .figure').all();
  const entries = await Promise.all(
    cards.map(async (card) => [
      await card.locator('dt').innerText(),
      await card.locator('.value').innerText(),
    ]),
  );
  return Object.fromEntries(entries);
}

/** The cells of today's row (the first: newest first) of a chart's table. */
async function todayRow(page: Page, chart: string): Promise<string[]> {
  const panel = page.getByRole('region', { name: new RegExp(`^${chart},`) });
  return panel.locator('tbody tr').first().locator('th, td').allInnerTexts();
}

describe('the overview', () => {
  test('is the first page after sign-in: the figures of now and today, and a chart per kind drawn on a canvas, days in UTC', async () => {
    const session = await signedIn({ width: 1280, height: 900 });
    const { page } = session;
    try {
      expect(page.url()).toBe(`${system.managementUrl}/#overview`);
      await expect(page.title()).resolves.toBe('Overview – Licensing console');
      await expect(figures(page)).resolves.toEqual({
        'Active licenses': '2',
        'Activations in use': '1',
        'Expiring in 30 days': '1',
        'Refused activations today': '1',
        'Downloads served today': '2',
        'Refused downloads today': '1',
        Trials: '0',
        'Trials converted': '0',
      });
      await expect(page.getByText(/Days are UTC days/).innerText()).resolves.toMatch(/\(UTC\)/);
      for (const chart of ['Activations', 'Validations', 'Downloads']) {
        const panel = page.getByRole('region', { name: `${chart}, last 30 days` });
        await panel.locator('canvas').waitFor();
        const image = panel.getByRole('img');
        await expect(image.getAttribute('aria-label')).resolves.toMatch(
          new RegExp(`^${chart} per UTC day over the last 30 days, in all: `),
        );
      }
      await expect(
        page.getByRole('img', { name: /^Downloads per UTC day/ }).getAttribute('aria-label'),
      ).resolves.toMatch(/downloads served 2, downloads refused 1/);
      // Drawn: the canvas has pixels of the lines' colours, not only the background.
      const drawn = await page.evaluate(`(() => {
        const canvas = document.querySelector('.chart canvas');
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        let coloured = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0) coloured++;
        return coloured;
      })()`);
      expect(drawn).toBeGreaterThan(100);
      await screenshot(page, 'console-overview');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('the same numbers as tables, by keyboard; a product filter and 90 days', async () => {
    const session = await signedIn({ width: 1280, height: 900 });
    const { page } = session;
    try {
      const toggle = page.getByRole('button', { name: 'Show as tables' });
      await toggle.focus();
      await page.keyboard.press('Enter');
      await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
      await expect(page.locator('.chart canvas').count()).resolves.toBe(0);
      const today = new Date().toLocaleDateString('en-GB', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      });
      await expect(todayRow(page, 'Activations')).resolves.toEqual([today, '1', '0', '1']);
      await expect(todayRow(page, 'Validations')).resolves.toEqual([today, '2']);
      await expect(todayRow(page, 'Downloads')).resolves.toEqual([today, '2', '1']);
      const columns = await page
        .getByRole('region', { name: /^Activations,/ })
        .locator('thead th')
        .allInnerTexts();
      expect(columns).toEqual([
        'Day (UTC)',
        'Activations',
        'Deactivations',
        'Rejected activations',
      ]);
      await screenshot(page, 'console-overview-tables');

      // Another product: its own figures and days.
      await page.getByLabel('Product').selectOption({ label: 'Overview Theme' });
      await page
        .locator('dl.figures .figure', { hasText: 'Activations in use' })
        .locator('.value', { hasText: /^0$/ })
        .waitFor();
      await expect(figures(page)).resolves.toMatchObject({
        'Active licenses': '1',
        'Activations in use': '0',
        'Downloads served today': '0',
      });
      await expect(todayRow(page, 'Downloads')).resolves.toEqual([today, '0', '0']);

      // 90 days, by keyboard too; the toggle back to charts with the space bar.
      await page.getByRole('button', { name: 'Last 90 days' }).focus();
      await page.keyboard.press('Enter');
      const ninety = page.getByRole('region', { name: 'Validations, last 90 days' });
      await ninety.waitFor();
      await expect(ninety.locator('tbody tr').count()).resolves.toBe(90);
      await expect(
        page.getByRole('button', { name: 'Last 90 days' }).getAttribute('aria-pressed'),
      ).resolves.toBe('true');
      await toggle.focus();
      await page.keyboard.press('Space');
      await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
      await ninety.locator('canvas').waitFor();
      await expect(
        page.getByRole('img', { name: /^Validations per UTC day over the last 90 days/ }).count(),
      ).resolves.toBe(1);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('fits a phone-sized screen: the charts take its width, the page does not scroll sideways', async () => {
    const session = await signedIn({ width: 390, height: 844 });
    const { page } = session;
    try {
      await page.locator('.chart canvas').first().waitFor();
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(390);
      const width = await page
        .locator('.chart')
        .first()
        .evaluate((el) => el.clientWidth);
      const canvas = await page
        .locator('.chart canvas')
        .first()
        .evaluate((el) => el.getBoundingClientRect().width);
      expect(canvas).toBeLessThanOrEqual(width);
      await screenshot(page, 'console-overview-phone');
      await page.getByRole('button', { name: 'Show as tables' }).click();
      await page.locator('main tbody tr').first().waitFor();
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(390);
      await screenshot(page, 'console-overview-phone-tables');
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});
