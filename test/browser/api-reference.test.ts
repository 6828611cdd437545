import type { Browser } from 'playwright-core';
import { publicOpenApi } from '../../services/gateway/openapi.js';
import { managementOpenApi } from '../../services/management/openapi.js';
import { launchBrowser, watchPage } from '../support/browser.js';
import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * The API reference pages (`/docs` on the gateway and on the management port) render their
 * OpenAPI documents in a real browser, from this system alone (no CDN), under a strict
 * Content-Security-Policy that the page never violates.
 */

let system: TestSystem;
let browser: Browser;
beforeAll(async () => {
  [system, browser] = await Promise.all([bootSystem(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

const surfaces = [
  { name: 'public API', url: () => system.running.gatewayUrl, doc: publicOpenApi },
  { name: 'management API', url: () => system.running.managementUrl, doc: managementOpenApi },
];

describe.each(surfaces)('the $name reference page', ({ url, doc }) => {
  test('shows every operation of the document, loading nothing from elsewhere', async () => {
    const page = await browser.newPage();
    try {
      const problems = await watchPage(page);
      const response = await page.goto(`${url()}/docs`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
      const operations = Object.values(doc.paths ?? {}).flatMap((item) =>
        Object.keys(item ?? {}).filter((key) =>
          ['get', 'post', 'patch', 'put', 'delete'].includes(key),
        ),
      );
      await page.waitForFunction(
        `document.querySelectorAll('.opblock').length >= ${operations.length}`,
        undefined,
        { timeout: 20_000 },
      );
      await expect(page.locator('.info .title').first().textContent()).resolves.toContain(
        doc.info.title,
      );
      const origin = new URL(url()).origin;
      expect(problems.requests.filter((request) => !request.startsWith(origin))).toEqual([]);
      expect(problems.violations).toEqual([]);
      expect(problems.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test('an operation opens by keyboard and shows its parameters', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${url()}/docs`);
      const summary = page.locator('.opblock-summary-control').first();
      await summary.waitFor({ timeout: 20_000 });
      await summary.focus();
      await page.keyboard.press('Enter');
      await page.locator('.opblock-body').first().waitFor({ timeout: 20_000 });
      await expect(page.locator('.opblock-body').count()).resolves.toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });
});
