import type { Browser, Page } from 'playwright-core';
import { launchBrowser, watchPage, type PageProblems } from '../support/browser.js';
import {
  adminCall,
  screenshot,
  startLikeNpmStart,
  type StartedSystem,
} from '../support/started-system.js';

/**
 * The customer portal (spec 1, 2.3) in a real browser, on the system as `npm start` starts it:
 * a customer enters their key (never put into a URL) and sees their license and activated
 * identifiers, each activation's name on hover or keyboard focus. Read-only, and it works on a
 * phone-sized screen.
 */

let system: StartedSystem;
let browser: Browser;
let key: string;
/** A license on a plan with a lease and a staging pattern, and its activations' lease ends. */
let leasedKey: string;
const leaseEnds: Record<string, string | null> = {};
const MARKUP = '<img src=x onerror=alert(1)>';

const admin = <T>(method: string, path: string, body?: object) =>
  adminCall<T>(system, method, path, body);

/** Activates `identifier` with `licenseKey`; when its lease ends (null: no lease). */
async function activate(
  identifier: string,
  name?: string,
  licenseKey = key,
): Promise<string | null> {
  const fields = new URLSearchParams({
    license_key: licenseKey,
    identifier,
    ...(name ? { name } : {}),
  });
  const response = await fetch(
    `${system.gatewayUrl}/api/index.php/v1/licensing/licenses/activate`,
    {
      method: 'POST',
      body: fields,
    },
  );
  if (!response.ok) throw new Error(`activate ${identifier}: ${await response.text()}`);
  const answer = (await response.json()) as { data: { lease_expires_at: string | null } };
  return answer.data.lease_expires_at;
}

beforeAll(async () => {
  [system, browser] = await Promise.all([startLikeNpmStart(), launchBrowser()]);
  const one = await admin<{ id: number }>('POST', '/products', { title: 'Gallery Plugin' });
  const two = await admin<{ id: number }>('POST', '/products', { title: 'Forms Plugin' });
  const bundle = await admin<{ id: number }>('POST', '/products', {
    title: 'Agency Bundle',
    bundle_items: [one.id, two.id],
  });
  const plan = await admin<{ id: number }>('POST', '/plans', {
    name: 'Agency',
    activation_type: 'domain',
    activation_limit: 5,
  });
  const license = await admin<{ license_key: string }>('POST', '/licenses', {
    product_id: bundle.id,
    plan_id: plan.id,
    expires_at: '2099-06-30T12:00:00Z',
  });
  key = license.license_key;
  await activate('https://www.shop.example/', 'Main shop');
  await activate('blog.example');
  await activate('inert.example', MARKUP);

  const leased = await admin<{ id: number }>('POST', '/plans', {
    name: 'Hourly lease',
    activation_type: 'domain',
    activation_limit: 2,
    lease_seconds: 3600,
    exempt_identifiers: ['staging.*'],
  });
  leasedKey = (
    await admin<{ license_key: string }>('POST', '/licenses', {
      product_id: one.id,
      plan_id: leased.id,
    })
  ).license_key;
  for (const identifier of ['live.example', 'staging.shop.example']) {
    leaseEnds[identifier] = await activate(identifier, undefined, leasedKey);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

/** Opens the portal and looks the license up, as a customer does. */
async function lookUp(page: Page, licenseKey: string): Promise<PageProblems> {
  const problems = await watchPage(page);
  page.on('dialog', (dialog) => {
    problems.errors.push(`a dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.goto(`${system.gatewayUrl}/portal`);
  await page.getByLabel('License key').fill(licenseKey);
  await page.getByLabel('License key').press('Enter');
  return problems;
}

describe('the customer portal', () => {
  test("shows the license, the bundle's products and the activated identifiers", async () => {
    const page = await browser.newPage();
    try {
      const problems = await lookUp(page, key);
      await page.getByRole('heading', { name: 'Agency Bundle' }).waitFor();
      const facts = await page.locator('dl.facts').innerText();
      expect(facts).toMatch(/Active/);
      expect(facts).toMatch(/Agency/);
      expect(facts).toMatch(/Gallery Plugin, Forms Plugin/);
      expect(facts).toMatch(/3 of 5 in use/);
      // No lease on this plan: nothing is said to lapse.
      expect(facts).not.toMatch(/renew automatically|lapse/);
      await expect(page.locator('th', { hasText: /lapse/i }).count()).resolves.toBe(0);
      const identifiers = await page.locator('tbody td:first-child .tip').allInnerTexts();
      expect(identifiers.map((text) => text.split('\n')[0])).toEqual(
        expect.arrayContaining(['shop.example', 'blog.example', 'inert.example']),
      );
      // The key went in the body of a POST: never into the address.
      expect(page.url()).toBe(`${system.gatewayUrl}/portal`);
      expect(page.url()).not.toContain(key);
      await screenshot(page, 'portal-license');
      expect(problems.violations).toEqual([]);
      expect(problems.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test('on a plan with a lease, activations renew automatically while in use and each says when it lapses; a staging site is marked not counted', async () => {
    const page = await browser.newPage();
    const row = (identifier: string) => page.locator('tbody tr', { hasText: identifier });
    try {
      const problems = await lookUp(page, leasedKey);
      await page.getByRole('heading', { name: 'Gallery Plugin' }).waitFor();
      const facts = await page.locator('dl.facts').innerText();
      // The staging site takes no slot: one of two in use.
      expect(facts).toMatch(/Activations\s+1 of 2 in use/);
      expect(facts).toMatch(
        /Activations renew automatically while in use; one unused for 1 hour lapses/,
      );
      for (const identifier of ['live.example', 'staging.shop.example']) {
        await row(identifier).locator(`time[datetime="${leaseEnds[identifier]}"]`).waitFor();
      }
      await expect(row('live.example').innerText()).resolves.not.toMatch(/not counted/);
      await expect(row('staging.shop.example').innerText()).resolves.toMatch(
        /staging\.shop\.example\s+staging, not counted/,
      );
      await screenshot(page, 'portal-lease-and-staging');
      expect(problems.violations).toEqual([]);
      expect(problems.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("an identifier shows its activation's name on hover and on keyboard focus", async () => {
    const page = await browser.newPage();
    try {
      await lookUp(page, key);
      const shop = page.locator('.tip', { hasText: 'shop.example' });
      const name = shop.getByRole('tooltip');
      await shop.waitFor();
      await expect(name.isVisible()).resolves.toBe(false);
      await shop.hover();
      await expect(name.isVisible()).resolves.toBe(true);
      await expect(name.innerText()).resolves.toBe('Main shop');
      await page.mouse.move(0, 0);
      // Keyboard: Tab moves from the button to the identifiers, and focus shows the name.
      await shop.focus();
      await expect(name.isVisible()).resolves.toBe(true);
      await expect(shop.getAttribute('aria-describedby')).resolves.toBe(
        await name.getAttribute('id'),
      );
      await expect(
        page.locator('.tip', { hasText: 'blog.example' }).locator('[role="tooltip"]').textContent(),
      ).resolves.toBe('No name given');
      await screenshot(page, 'portal-name-on-focus');
    } finally {
      await page.close();
    }
  });

  test("every row's name is shown whole, the last row's too (the table's box does not cut it)", async () => {
    const page = await browser.newPage();
    try {
      await lookUp(page, key);
      const tips = page.locator('.tip');
      await tips.first().waitFor();
      for (const tip of await tips.all()) {
        await tip.focus();
        // The point at the middle of the shown name is the name: nothing hides or clips it.
        const seen = await tip.getByRole('tooltip').evaluate((name) => {
          const box = name.getBoundingClientRect();
          const top = name.ownerDocument.elementFromPoint(
            box.x + box.width / 2,
            box.y + box.height / 2,
          );
          return top !== null && name.contains(top);
        });
        expect(seen).toBe(true);
      }
    } finally {
      await page.close();
    }
  });

  test('a name holding markup is shown as text, and runs nothing', async () => {
    const page = await browser.newPage();
    try {
      const problems = await lookUp(page, key);
      const inert = page.locator('.tip', { hasText: 'inert.example' });
      await inert.hover();
      await expect(inert.getByRole('tooltip').innerText()).resolves.toBe(MARKUP);
      await expect(page.locator('img').count()).resolves.toBe(0);
      expect(problems.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test('read-only: the page offers no action but looking the license up', async () => {
    const page = await browser.newPage();
    try {
      await lookUp(page, key);
      await page.getByRole('heading', { name: 'Agency Bundle' }).waitFor();
      await expect(page.getByRole('button').allInnerTexts()).resolves.toEqual(['Show my license']);
      await expect(
        page.locator('a, input:not([name="license_key"]), select, textarea').count(),
      ).resolves.toBe(0);
    } finally {
      await page.close();
    }
  });

  test('an unknown key is refused in words', async () => {
    const page = await browser.newPage();
    try {
      await lookUp(page, 'no-such-key');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      // Said once: the server's "This license key is not valid." is in the page's own words.
      await expect(alert.innerText()).resolves.toBe(
        'This license key is not valid, or the license is not active. (LICENSE_INVALID)',
      );
      await screenshot(page, 'portal-unknown-key');
    } finally {
      await page.close();
    }
  });

  test('works on a phone-sized screen', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
    try {
      const problems = await lookUp(page, key);
      await page.getByRole('heading', { name: 'Agency Bundle' }).waitFor();
      // Nothing wider than the screen: no sideways scrolling of the page.
      const width = await page.evaluate('document.documentElement.scrollWidth');
      expect(width).toBeLessThanOrEqual(375);
      await screenshot(page, 'portal-phone');
      expect(problems.violations).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
